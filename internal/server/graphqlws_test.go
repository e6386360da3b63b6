package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/chromedp/chromedp"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// wsClientPage runs the stock graphql-ws client (vendored from npm) in the
// browser: it subscribes with the key it is given and records every
// connection attempt and close for three seconds.
const wsClientPage = `<!doctype html><script src="/ws-client/graphql-ws.min.js"></script><script>
window.report = null;
const attempts = [], closes = [];
let subscriptionError = null;
const key = new URLSearchParams(location.search).get("key");
const client = graphqlWs.createClient({
  url: location.origin.replace(/^http/, "ws") + "/graphql",
  connectionParams: {Authorization: "key " + key},
  retryAttempts: 5,
  on: {connecting: () => attempts.push(Date.now()), closed: (e) => closes.push({code: e.code, reason: e.reason})},
});
client.subscribe({query: "subscription { notifications { id } }"}, {
  next() {}, complete() {},
  error(e) { subscriptionError = {code: e.code || 0, reason: e.reason || String(e)}; },
});
setTimeout(() => { window.report = JSON.stringify({attempts: attempts.length, closes, subscriptionError}); }, 3000);
</script>`

// A websocket client with a refused key gets the graphql-transport-ws close
// 4401 Unauthorized once and stops; it used to get 1000 "terminated" and
// the stock client reconnected about a thousand times a second.
func TestWebsocketBadKeyStopsTheStockClient(t *testing.T) {
	browsertest.Chromium(t)
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	mux := http.NewServeMux()
	mux.HandleFunc("/ws-client/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".js") {
			http.ServeFile(w, r, "../browsertest/testdata/graphql-ws/graphql-ws.min.js")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(wsClientPage))
	})
	mux.Handle("/", e.Server.Handler())
	site := httptest.NewServer(mux) // the page and the service on one origin
	defer site.Close()

	ctx, cancel, output := browsertest.NewBrowser(t, browsertest.Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(site.URL+"/ws-client/?key=not-a-real-key-0123456789abcdef")); err != nil {
		t.Fatalf("opening the client page: %v\nbrowser output:\n%s", err, output())
	}
	report, err := chromedp.Run(ctx, chromedp.Poll[string](`window.report`, chromedp.WithPollingTimeout(15*time.Second)))
	if err != nil {
		t.Fatalf("running the client page: %v\nbrowser output:\n%s", err, output())
	}
	var got struct {
		Attempts int
		Closes   []struct {
			Code   int
			Reason string
		}
		SubscriptionError *struct {
			Code   int
			Reason string
		}
	}
	if err := json.Unmarshal([]byte(report), &got); err != nil {
		t.Fatalf("report %q: %v", report, err)
	}
	if len(report) > 300 {
		report = report[:300] + "..."
	}
	t.Logf("client report: %s", report)
	if got.Attempts != 1 || len(got.Closes) != 1 {
		t.Fatalf("the client connected %d times and saw %d closes in 3 s, want 1 and 1: %s", got.Attempts, len(got.Closes), report)
	}
	if c := got.Closes[0]; c.Code != graph.CloseUnauthorized || c.Reason != "Unauthorized" {
		t.Errorf("close = %d %q, want %d Unauthorized", c.Code, c.Reason, graph.CloseUnauthorized)
	}
	if got.SubscriptionError == nil || got.SubscriptionError.Code != graph.CloseUnauthorized {
		t.Errorf("the subscription did not end with the close: %+v", got.SubscriptionError)
	}
}
