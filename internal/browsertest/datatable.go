package browsertest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TablePage is a data table page (web/htmlview, /layers/{id}/data/) open
// in a headless Chromium, its first rows shown.
type TablePage struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	fail   func(format string, args ...any)
}

// TableView is what the table shows: the column headings, each row's
// cells, the status line, the error shown (if any), the CSV link and
// whether Previous and Next may be pressed.
type TableView struct {
	Head   []string   `json:"head"`
	Rows   [][]string `json:"rows"`
	Status string     `json:"status"`
	Error  string     `json:"error"`
	CSV    string     `json:"csv"`
	Prev   bool       `json:"prev"`
	Next   bool       `json:"next"`
}

const tableStateJS = `(() => document.getElementById("datatable").dataset.state || null)()`

const tableViewJS = `(() => ({
	head: [...document.querySelectorAll("#rows thead th")].map(th => th.innerText.trim()),
	rows: [...document.querySelectorAll("#rows tbody tr")].map(tr => [...tr.cells].map(td => td.textContent)),
	status: document.getElementById("status").innerText,
	error: document.getElementById("error").hidden ? "" : document.getElementById("error").innerText,
	csv: document.getElementById("csv").href,
	prev: !document.getElementById("prev").disabled,
	next: !document.getElementById("next").disabled,
}))()`

// OpenTablePage opens pageURL with cookies set for its origin and waits
// until the first rows are shown; it checks that the page loaded nothing
// from other hosts and broke no Content-Security-Policy rule. Close it
// when done.
func OpenTablePage(t testing.TB, pageURL string, cookies ...*http.Cookie) *TablePage {
	t.Helper()
	ctx, cancel, m, fail := navigate(t, pageURL, cookies)
	p := &TablePage{t: t, ctx: ctx, cancel: cancel, fail: fail}
	p.wait()
	if err := m.waitIdle(ctx, 200*time.Millisecond); err != nil {
		p.fail("the page did not settle: %v", err)
	}
	if problems := m.offlineProblems(); len(problems) > 0 {
		t.Errorf("browsertest: the table page is not self-contained:\n  %s", strings.Join(problems, "\n  "))
	}
	return p
}

// wait waits until the table answered (ready or error).
func (p *TablePage) wait() {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[string](tableStateJS,
		chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		p.fail("the table never loaded: %v", err)
	}
}

// Do runs js in the page (a click, a filter typed and submitted) and
// waits for the table to answer; it returns what the table then shows.
func (p *TablePage) Do(js string) TableView {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](`(() => { document.getElementById("datatable").dataset.state = ""; `+js+`; return null; })()`)); err != nil {
		p.fail("running %s: %v", js, err)
	}
	p.wait()
	return p.View()
}

// View is what the table shows now.
func (p *TablePage) View() TableView {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[TableView](tableViewJS))
	if err != nil {
		p.fail("reading the table: %v", err)
	}
	return v
}

// Close stops the browser.
func (p *TablePage) Close() { p.cancel() }
