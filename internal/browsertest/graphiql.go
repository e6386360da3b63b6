package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// editorsJS yields the query editor's text once GraphiQL has rendered both
// editors and the execute button, and null before.
const editorsJS = `(() => {
	const cm = (sel) => { const el = document.querySelector(sel + " .CodeMirror"); return el && el.CodeMirror; };
	const q = cm(".graphiql-query-editor"), r = cm(".graphiql-response");
	return q && r && document.querySelector(".graphiql-execute-button") ? {query: q.getValue()} : null;
})()`

type editorState struct {
	Query string `json:"query"`
}

// resultJS yields the text of GraphiQL's result pane.
const resultJS = `(() => {
	const el = document.querySelector(".graphiql-response .CodeMirror");
	if (el && el.CodeMirror) return el.CodeMirror.getValue();
	const pane = document.querySelector(".graphiql-response");
	return pane ? pane.innerText : "";
})()`

// RunGraphiQLQuery opens the GraphiQL page at pageURL (such as
// http://127.0.0.1:PORT/graphiql) with query in its ?query= parameter, checks
// that the editor shows it, clicks the execute button, and returns the JSON
// text of the result pane once it holds a settled result. It fails the test on
// a timeout (Timeout in all), with the page's console errors and failed
// requests, and reports any request to another host or any
// Content-Security-Policy violation as an error. Call it from the test's
// goroutine.
func RunGraphiQLQuery(t testing.TB, pageURL string, query string) string {
	t.Helper()
	target := withQuery(t, pageURL, query)
	ctx, m, fail, editors, cancel := openGraphiQL(t, target)
	defer cancel()
	var err error
	for wait := time.Now(); editors.Query != query && time.Since(wait) < 2*time.Second; {
		time.Sleep(100 * time.Millisecond)
		if editors, err = chromedp.Run(ctx, chromedp.Evaluate[editorState](editorsJS)); err != nil {
			fail("reading the query editor: %v", err)
		}
	}
	if editors.Query != query {
		fail("the query editor shows %q, not the ?query= parameter %q", editors.Query, query)
	}
	// Let the schema introspection finish, so its outcome cannot overwrite
	// the result pane after the query ran.
	if err := m.waitIdle(ctx, 500*time.Millisecond); err != nil {
		fail("the page did not settle: %v", err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](resultJS))
	if err != nil {
		fail("reading the result pane: %v", err)
	}
	fetchesBefore := m.fetchCount()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".graphiql-execute-button"))); err != nil {
		fail("clicking the execute button: %v", err)
	}

	result, err := waitForResult(ctx, m, before, fetchesBefore)
	if err != nil {
		fail("no result after clicking execute: %v", err)
	}
	if problems := m.offlineProblems(); len(problems) > 0 {
		t.Errorf("browsertest: the page is not self-contained:\n  %s", strings.Join(problems, "\n  "))
	}
	return result
}

// openGraphiQL opens the GraphiQL page at target in a new browser, watched
// by a monitor, and waits until its editors are there. fail ends the test
// with what the monitor saw; cancel stops the browser.
func openGraphiQL(t testing.TB, target string) (ctx context.Context, m *monitor, fail func(format string, args ...any), editors editorState, cancel context.CancelFunc) {
	t.Helper()
	ctx, cancel, output := NewBrowser(t, Timeout)
	m = newMonitor(target)
	fail = func(format string, args ...any) {
		t.Helper()
		t.Fatalf("browsertest: %s\n%s", fmt.Sprintf(format, args...), m.report(output()))
	}
	if err := chromedp.Listen(ctx, m.onEvent); err != nil {
		fail("starting chromium: %v", err)
	}
	go m.readConsole(chromedp.Console(ctx))
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(target))
	if err != nil {
		fail("opening %s: %v", target, err)
	}
	if res.Status != http.StatusOK {
		fail("opening %s: HTTP status %d", target, res.Status)
	}
	editors, err = chromedp.Run(ctx, chromedp.Poll[editorState](editorsJS,
		chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		fail("GraphiQL did not load at %s: %v", target, err)
	}
	return ctx, m, fail, editors, cancel
}

// waitForResult waits until the result pane holds JSON that is new (it
// differs from before, or a fetch ended since the click) and settled (the same
// on two reads in a row, with no request in flight).
func waitForResult(ctx context.Context, m *monitor, before string, fetchesBefore int) (string, error) {
	last := ""
	for {
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](resultJS))
		if err != nil {
			return "", fmt.Errorf("%w; the result pane shows %q", err, last)
		}
		text = strings.TrimSpace(text)
		settled := text != "" && json.Valid([]byte(text)) && text == last && m.idle()
		if settled && (text != before || m.fetchCount() > fetchesBefore) {
			return text, nil
		}
		last = text
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w; the result pane shows %q", ctx.Err(), last)
		case <-time.After(150 * time.Millisecond):
		}
	}
}

// pageOrigin returns scheme://host of u.
func pageOrigin(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Scheme + "://" + p.Host
}

// waitIdle waits until no request has been in flight for quiet.
func (m *monitor) waitIdle(ctx context.Context, quiet time.Duration) error {
	for {
		if m.quietFor() >= quiet {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
