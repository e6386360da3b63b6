package browsertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/geopub/geopub/graph/explorer"
)

// TestRunGraphiQLQuery runs a query through the real explorer page against a
// stub GraphQL endpoint.
func TestRunGraphiQLQuery(t *testing.T) {
	Chromium(t)
	var mu sync.Mutex
	var queries []string
	mux := http.NewServeMux()
	mux.Handle("/graphiql", explorer.Handler("/graphql"))
	mux.Handle("/graphiql/", explorer.Handler("/graphql"))
	mux.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		queries = append(queries, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":{"hello":"world"}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	start := time.Now()
	got := RunGraphiQLQuery(t, srv.URL+"/graphiql", "{ hello }")
	t.Logf("RunGraphiQLQuery took %s and returned %s", time.Since(start).Round(time.Millisecond), got)
	if !strings.Contains(got, `"hello"`) || !strings.Contains(got, `"world"`) {
		t.Errorf("result pane shows %q, want the hello world response", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(queries, "\n"), `hello`) {
		t.Errorf("the endpoint never got the query; it got %q", queries)
	}
}

// TestOfflineGuards checks both guards against loads from other hosts: the
// explorer's Content-Security-Policy blocks them, and the monitor behind
// RunGraphiQLQuery notices them on a page without that policy. The "other
// host" is a second loopback server, which is another origin.
func TestOfflineGuards(t *testing.T) {
	Chromium(t)
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.Handle("/graphiql", explorer.Handler("/graphql"))
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><img src="`+other.URL+`/pixel.png">`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel, _ := NewBrowser(t, Timeout)
	defer cancel()
	m := newMonitor(srv.URL)
	if err := chromedp.Listen(ctx, m.onEvent); err != nil {
		t.Fatal(err)
	}
	go m.readConsole(chromedp.Console(ctx))

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/graphiql")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`fetch(`+strconv.Quote(other.URL+"/x")+`).then(() => "loaded", () => "blocked")`,
		chromedp.EvalAwaitPromise))
	if err != nil || got != "blocked" {
		t.Errorf("fetch to another origin from the explorer page: %q, %v; want blocked", got, err)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/plain")); err != nil {
		t.Fatal(err)
	}
	if err := m.waitIdle(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the other origin got %d requests, want 1 (the plain page's image)", n)
	}
	problems := strings.Join(m.offlineProblems(), "\n")
	if !strings.Contains(problems, "Content Security Policy") || !strings.Contains(problems, other.URL+"/pixel.png") {
		t.Errorf("the monitor missed a CSP violation or an external load; it saw:\n%s", problems)
	}
}
