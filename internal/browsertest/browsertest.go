// Package browsertest drives a headless Debian Chromium from Go tests with
// chromedp.
//
// Chromium finds the browser binary and skips the test when it is missing
// (or fails it in CI); scripts/install-test-deps.sh installs it.
// RunGraphiQLQuery runs a query through the GraphiQL explorer page the way a
// person would and returns what the result pane shows.
//
// The browser runs with a fresh profile and with its background networking
// turned off, so that it talks to the test server only.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/geopub/geopub/internal/testtier"
)

// DefaultChromium is where Debian's chromium package puts the browser.
const DefaultChromium = "/usr/bin/chromium"

// Timeout bounds one RunGraphiQLQuery call, browser start included.
const Timeout = 30 * time.Second

// Chromium returns the path of the Chromium binary: $GEOPUB_CHROMIUM if set,
// else DefaultChromium. When it is missing, the test is skipped, or failed if
// CI is set or GEOPUB_REQUIRE_BROWSER=1.
func Chromium(t testing.TB) string {
	t.Helper()
	testtier.FullOnly(t, "starts Chromium")
	path := os.Getenv("GEOPUB_CHROMIUM")
	if path == "" {
		path = DefaultChromium
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return path
	}
	msg := fmt.Sprintf("chromium is not installed at %s; install it with "+
		"`sudo scripts/install-test-deps.sh` (Debian package chromium), "+
		"or set GEOPUB_CHROMIUM to a Chromium binary", path)
	if os.Getenv("CI") != "" || os.Getenv("GEOPUB_REQUIRE_BROWSER") == "1" {
		t.Fatalf("browser test cannot run: %s (required because CI or GEOPUB_REQUIRE_BROWSER=1 is set)", msg)
	}
	t.Skipf("browser test skipped: %s", msg)
	return ""
}

// NewBrowser starts a headless Chromium for the test and returns a chromedp
// context for one tab, ending after timeout. The browser stops when cancel is
// called; its profile is a temporary directory of the test. output returns
// what the browser printed, for failure messages.
func NewBrowser(t testing.TB, timeout time.Duration) (ctx context.Context, cancel context.CancelFunc, output func() string) {
	t.Helper()
	out := &lockedBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.CombinedOutput(out),
	)
	parent, stop := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	return ctx, func() { cancelTab(); cancelAlloc(); stop() }, out.String
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// withQuery returns pageURL with its query parameter set to query.
func withQuery(t testing.TB, pageURL, query string) string {
	t.Helper()
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatalf("browsertest: bad page URL %q: %v", pageURL, err)
	}
	q := u.Query()
	q.Set("query", query)
	u.RawQuery = q.Encode()
	return u.String()
}
