package explorer

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, target string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var pageRefRe = regexp.MustCompile(`(?:src|href)="(/graphiql/assets/[^"]+)"`)

func TestPage(t *testing.T) {
	h := Handler("/api/graphql")
	for _, p := range []string{"/graphiql", "/graphiql/", "/graphiql?query=%7B+hello+%7D"} {
		res := get(t, h, http.MethodGet, p)
		page := body(t, res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d", p, res.StatusCode)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") ||
			!strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", p, csp)
		}
		if !strings.Contains(page, `data-endpoint="/api/graphql"`) {
			t.Errorf("GET %s: endpoint missing from page:\n%s", p, page)
		}
		if n := len(pageRefRe.FindAllString(page, -1)); n != 6 {
			t.Errorf("GET %s: %d asset references, want 6:\n%s", p, n, page)
		}
	}
}

func TestAssets(t *testing.T) {
	h := Handler("/graphql")
	page := body(t, get(t, h, http.MethodGet, "/graphiql"))
	want := map[string]string{
		"graphiql.min.css":            "text/css; charset=utf-8",
		"page.css":                    "text/css; charset=utf-8",
		"react.production.min.js":     "text/javascript; charset=utf-8",
		"react-dom.production.min.js": "text/javascript; charset=utf-8",
		"graphiql.min.js":             "text/javascript; charset=utf-8",
		"init.js":                     "text/javascript; charset=utf-8",
	}
	for _, m := range pageRefRe.FindAllStringSubmatch(page, -1) {
		url := m[1]
		name := strings.TrimPrefix(url[:strings.Index(url, "?")], "/graphiql/assets/")
		res := get(t, h, http.MethodGet, url)
		b := body(t, res)
		if res.StatusCode != http.StatusOK || len(b) == 0 {
			t.Fatalf("GET %s: status %d, %d bytes", url, res.StatusCode, len(b))
		}
		if ct := res.Header.Get("Content-Type"); ct != want[name] {
			t.Errorf("GET %s: Content-Type %q, want %q", url, ct, want[name])
		}
		if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") {
			t.Errorf("GET %s: Cache-Control %q", url, cc)
		}
		etag := res.Header.Get("ETag")
		if res := get(t, h, http.MethodGet, url, "If-None-Match", etag); res.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match: status %d", url, res.StatusCode)
		}
		delete(want, name)
	}
	if len(want) != 0 {
		t.Errorf("page does not reference %v", want)
	}
}

func TestErrors(t *testing.T) {
	h := Handler("/graphql")
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/graphiql/assets/nope.js", http.StatusNotFound},
		{http.MethodGet, "/graphiql/assets/", http.StatusNotFound},
		{http.MethodGet, "/graphiql/assets/../page.html", http.StatusNotFound},
		{http.MethodGet, "/graphiql/other", http.StatusNotFound},
		{http.MethodPost, "/graphiql", http.StatusMethodNotAllowed},
		{http.MethodHead, "/graphiql/", http.StatusOK},
	} {
		if res := get(t, h, c.method, c.path); res.StatusCode != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, res.StatusCode, c.status)
		}
	}
	for _, bad := range []string{"https://example.com/graphql", "//evil/graphql", "graphql"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handler(%q) did not panic", bad)
				}
			}()
			Handler(bad)
		}()
	}
}

var (
	// References that a browser fetches from HTML and CSS.
	htmlRefRe = regexp.MustCompile(`(?i)\b(?:src|href|action|srcset|poster)\s*=\s*["']?([^"'\s>]+)`)
	cssRefRe  = regexp.MustCompile(`(?i)(?:url\(\s*["']?|@import\s+["'])([^"')\s]+)`)
	// Loads of absolute or protocol-relative URLs written into JavaScript. Bare
	// URLs in strings (license links, error docs) and <a href> links are not
	// loads and pass.
	jsLoadRe = regexp.MustCompile(`(?i)(?:\bsrc\s*=\s*\\?["']|<link\b[^>]*\bhref\s*=\s*\\?["']|url\(\s*\\?["']?|@import\s+\\?["']|importScripts\(\s*["']|import\(\s*["']|fetch\(\s*["'])(?:https?:)?//`)
	cdnRe    = regexp.MustCompile(`(?i)//(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|ajax\.googleapis\.com|esm\.sh|cdn\.skypack\.dev)`)
)

// external reports whether a reference leaves the origin: an absolute URL
// with a scheme other than data:, or a protocol-relative one.
func external(ref string) bool {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "//") || strings.HasPrefix(ref, `\/\/`) {
		return true
	}
	scheme, _, ok := strings.Cut(ref, ":")
	return ok && scheme != "" && !strings.ContainsAny(scheme, "/?#") && !strings.EqualFold(scheme, "data")
}

// externalLoads lists what the content would fetch from other hosts.
func externalLoads(name, content string) []string {
	var out []string
	var res []*regexp.Regexp
	switch {
	case strings.HasSuffix(name, ".html"):
		res = []*regexp.Regexp{htmlRefRe, cssRefRe}
		for _, s := range []string{"http://", "https://"} {
			if strings.Contains(content, s) {
				out = append(out, "URL "+s)
			}
		}
	case strings.HasSuffix(name, ".css"):
		res = []*regexp.Regexp{cssRefRe}
	case strings.HasSuffix(name, ".js"):
		out = append(out, jsLoadRe.FindAllString(content, -1)...)
	}
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatch(content, -1) {
			if external(m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return append(out, cdnRe.FindAllString(content, -1)...)
}

func TestNoExternalLoads(t *testing.T) {
	page := body(t, get(t, Handler("/graphql"), http.MethodGet, "/graphiql"))
	if bad := externalLoads("page.html", page); len(bad) > 0 {
		t.Errorf("served page loads from other hosts: %q", bad)
	}
	n := 0
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		n++
		if bad := externalLoads(name, string(b)); len(bad) > 0 {
			t.Errorf("%s loads from other hosts: %.200q", name, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 7 {
		t.Errorf("scanned %d embedded files, want at least 7", n)
	}
}

// TestExternalLoadsDetector makes sure the scan above can fail.
func TestExternalLoadsDetector(t *testing.T) {
	bad := map[string]string{
		"a.html": `<script src="https://unpkg.com/graphiql"></script>`,
		"b.html": `<link rel=stylesheet href=//cdn.example.com/x.css>`,
		"c.css":  `@import "https://fonts.googleapis.com/css?family=Roboto";`,
		"d.css":  `.x{background:url( '//cdn.example.com/a.png')}`,
		"e.js":   `el.innerHTML = '<img src="https://tracker.example/p.gif">'`,
		"f.js":   `s.src="https://example.com/x.js"`,
		"g.js":   `fetch("//api.example.com/q")`,
		"i.js":   `head.innerHTML += '<link rel="stylesheet" href="//x.example/a.css">'`,
		"h.js":   `var u = "https://cdn.jsdelivr.net/npm/x"`,
	}
	for name, content := range bad {
		if len(externalLoads(name, content)) == 0 {
			t.Errorf("%s: not flagged: %s", name, content)
		}
	}
	good := map[string]string{
		"a.html": `<link rel="icon" href="data:,"><script src="/graphiql/assets/a.js?v=1"></script>`,
		"b.css":  `@font-face{src:url(data:font/woff2;base64,AAAA)} .y{background:url("img.png")}`,
		"d.js":   `// http:<a href="//example.com/">//example.com/</a>`,
		"c.js":   `throw Error("see https://reactjs.org/docs/error-decoder.html?invariant=" + n); // CDN source (jsdelivr, unpkg)`,
	}
	for name, content := range good {
		if bad := externalLoads(name, content); len(bad) != 0 {
			t.Errorf("%s: wrongly flagged %q", name, bad)
		}
	}
}
