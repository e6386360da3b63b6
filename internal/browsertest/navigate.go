package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// navigate starts a browser watched by a monitor, sets cookies for
// pageURL's origin and opens it, failing the test unless it answers 200.
// fail ends the browser and fails the test with the page's console and
// failed requests.
func navigate(t testing.TB, pageURL string, cookies []*http.Cookie) (ctx context.Context, cancel context.CancelFunc, m *monitor, fail func(format string, args ...any)) {
	t.Helper()
	ctx, cancel, output := NewBrowser(t, Timeout)
	m = newMonitor(pageURL)
	fail = func(format string, args ...any) {
		t.Helper()
		cancel()
		t.Fatalf("browsertest: %s\n%s", fmt.Sprintf(format, args...), m.report(output()))
	}
	if err := chromedp.Listen(ctx, m.onEvent); err != nil {
		fail("starting chromium: %v", err)
	}
	go m.readConsole(chromedp.Console(ctx))
	for _, c := range cookies {
		_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
			Name: c.Name, Value: c.Value, URL: pageOrigin(pageURL), Path: "/"})
		if err != nil {
			fail("setting cookie %s: %v", c.Name, err)
		}
	}
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(pageURL))
	if err != nil {
		fail("opening %s: %v", pageURL, err)
	}
	if res.Status != http.StatusOK {
		fail("opening %s: HTTP status %d", pageURL, res.Status)
	}
	return ctx, cancel, m, fail
}
