package fetch_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
)

// Issue 24.5: the shared client carries no credential across origins on
// a redirect: a body (a form with a password, re-posted on 307 or 308)
// is not re-sent elsewhere, credential headers are dropped, and a URL
// that carries the request's token is not followed.
func TestRedirectsKeepCredentialsAtHome(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" "+r.Header.Get("Authorization")+
			r.Header.Get("X-Esri-Authorization")+r.Header.Get("Cookie"))
		mu.Unlock()
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/307":
			http.Redirect(w, r, other.URL+"/stolen", http.StatusTemporaryRedirect)
		case "/308":
			http.Redirect(w, r, other.URL+"/stolen", http.StatusPermanentRedirect)
		case "/token":
			http.Redirect(w, r, other.URL+"/stolen?"+r.URL.RawQuery, http.StatusFound)
		case "/302":
			http.Redirect(w, r, other.URL+"/plain", http.StatusFound)
		case "/local":
			http.Redirect(w, r, "/landed", http.StatusTemporaryRedirect)
		case "/landed":
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		}
	}))
	defer home.Close()
	allow, _ := fetch.ParseAllowList("127.0.0.1")
	c := &fetch.Client{Guard: &fetch.Guard{Allow: allow}}
	u, _ := url.Parse(home.URL)
	hc := c.HTTPClient(fetch.Options{Username: "reader", Password: "pw-307", SSLVerify: true}, u)
	form := "username=reader&password=pw-307"
	post := func(path string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, home.URL+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return hc.Do(req)
	}
	for _, p := range []string{"/307", "/308"} {
		if resp, err := post(p); err == nil {
			resp.Body.Close()
			t.Errorf("POST %s re-posted to another origin: %s", p, resp.Status)
		}
	}
	// Within the origin, a 307 re-posts as it should.
	if resp, err := post("/local"); err != nil {
		t.Errorf("same-origin 307: %v", err)
	} else if b, _ := io.ReadAll(resp.Body); string(b) != form {
		t.Errorf("same-origin 307 body %q", b)
	}
	if resp, err := hc.Get(home.URL + "/token?f=json&token=tok-secret-1"); err == nil {
		resp.Body.Close()
		t.Error("a redirect carrying the token to another origin was followed")
	}
	req, _ := http.NewRequest(http.MethodGet, home.URL+"/302", nil)
	req.Header.Set("X-Esri-Authorization", "Bearer tok-secret-2")
	req.Header.Set("Cookie", "session=tok-secret-3")
	if resp, err := hc.Do(req); err != nil {
		t.Errorf("a plain redirect elsewhere: %v", err)
	} else {
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, "pw-307") || strings.Contains(s, "tok-secret") || strings.Contains(s, "Basic") {
			t.Errorf("another origin got %q", s)
		}
	}
	if len(seen) != 1 {
		t.Errorf("another origin got %q, want only the plain redirect", seen)
	}
}
