package rest_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 11 acceptance, fuzz harness: JSON bodies of every write route and
// query strings of every list, with no panic and no 500. The routes come
// from the router itself (chi.Walk), so a new route is fuzzed without
// being listed here. FuzzWriteBodies and FuzzListQueries are the native
// fuzz targets (seeds in testdata/fuzz/); TestHostileInputsPerRoute runs
// GEOPUB_HOSTILE_N generated inputs (default 20) against every route in
// ordinary test runs.

// route is one method and concrete path of the REST API.
type route struct{ method, path string }

// hostile is a running service with a site administrator and one of each
// object the routes' path parameters can name (id 1, or c1 for items).
type hostile struct {
	e      *env
	key    string
	writes []route
	lists  []route
}

var hostileParamRE = regexp.MustCompile(`\{([a-z]+)(:[^}]*)?\}`)

// newHostile starts the service over SQLite (PostgreSQL too when tb is
// run per backend by the caller) and walks the router.
func newHostile(tb testing.TB, dialectName string) *hostile {
	e := servertest.New(tb, storetest.Open(tb, dialectName, storetest.Options{}))
	admin := e.NewUser(tb, "Admin", servertest.SiteAdmin)
	h := &hostile{e: e, key: admin.Key}
	// Fixtures, each id 1: a table with a draft version, a set, a
	// catalogue item, a document, a comment and a service template.
	seedLayer(tb, e, admin.User, layer.TypeTable, "Roads", true)
	seedDocument(tb, e, &user{User: admin.User, Key: admin.Key}, "Report", true)
	if _, err := e.Server.Resolver.Blobs.Put(tb.Context(), "documents/x", strings.NewReader("%PDF-1.4"), "application/pdf"); err != nil {
		tb.Fatal(err)
	}
	for _, c := range []req{
		{Method: "PUT", Path: "/site/settings/", Body: map[string]any{"external_services": true}},
		{Method: "POST", Path: "/sets/", Body: map[string]any{"title": "Set"}},
		{Method: "POST", Path: "/items/", Body: map[string]any{"title": "Item", "link_url": "https://example.com/"}},
		{Method: "POST", Path: "/comments/", Body: map[string]any{"description": "Hello"}},
		{Method: "POST", Path: "/site/external-service-templates/", Body: map[string]any{"title": "WMS", "scope": []string{"all"}, "template_urls": []map[string]any{{"service_url": "https://a.example.com/"}}}},
	} {
		c.Key = admin.Key
		if r := e.Do(tb, c); r.Status >= 300 {
			tb.Fatalf("fixture %s %s: %d %s", c.Method, c.Path, r.Status, r.Body)
		}
	}
	for _, rt := range restRoutes(tb) {
		path := hostileParamRE.ReplaceAllStringFunc(rt.pattern, func(p string) string {
			if strings.HasPrefix(hostileParamRE.FindStringSubmatch(p)[2], ":c") {
				return "c1"
			}
			return "1"
		})
		switch rt.method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			h.writes = append(h.writes, route{rt.method, path + "/"})
		case http.MethodGet:
			h.lists = append(h.lists, route{rt.method, path + "/"})
		}
	}
	return h
}

// check sends one input and fails on a 500 (a panic in a handler is one
// too: the server recovers it as 500) or a hang.
func (h *hostile) check(t testing.TB, r route, query string, body []byte) {
	t.Helper()
	if err := h.try(r, query, body); err != nil {
		t.Fatal(err)
	}
}

// try sends one input through the service's handler in process (the
// whole middleware chain and router, without the loopback connection,
// so that CI-sized runs fit) and describes a 500 or a hang.
func (h *hostile) try(r route, query string, body []byte) error {
	path := h.e.API + r.path
	if query != "" {
		path += "?" + query
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequest(r.method, path, rd)
	if err != nil {
		return fmt.Errorf("%s %.300s: %v", r.method, path, err)
	}
	hr.RemoteAddr = "127.0.0.1:40000"
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Authorization", "key "+h.key)
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.e.HTTP.Config.Handler.ServeHTTP(rec, hr)
		done <- rec
	}()
	select {
	case rec := <-done:
		if rec.Code >= 500 {
			return fmt.Errorf("%s %s: %d; body %.300q\nsent: %.500q", r.method, path, rec.Code, rec.Body.Bytes(), body)
		}
		return nil
	case <-time.After(hangAfter):
		return fmt.Errorf("%s %.300s: no answer in %s\nsent: %.500q", r.method, path, hangAfter, body)
	}
}

// hangAfter is how long an input may take before the harness calls it a
// hang.
const hangAfter = 5 * time.Second

func FuzzWriteBodies(f *testing.F) {
	h := newHostile(f, dialect.SQLite)
	for i, s := range seedBodies {
		f.Add(uint16(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, n uint16, body []byte) {
		h.check(t, h.writes[int(n)%len(h.writes)], "", body)
	})
}

func FuzzListQueries(f *testing.F) {
	h := newHostile(f, dialect.SQLite)
	for i, s := range seedQueries {
		f.Add(uint16(i), s)
	}
	f.Fuzz(func(t *testing.T, n uint16, query string) {
		h.check(t, h.lists[int(n)%len(h.lists)], sendable(query), nil)
	})
}

// TestHostileInputsPerRoute sends GEOPUB_HOSTILE_N generated inputs
// (default 20; CI sets 3,000) to every write route (JSON bodies) and
// every GET route (query strings), on each backend. On PostgreSQL, whose
// every query is a round trip, GEOPUB_HOSTILE_N_POSTGRES sets the count
// when given (CI sets 500, so the suite stays inside its time budget).
func TestHostileInputsPerRoute(t *testing.T) {
	testtier.FullOnly(t, "sends GEOPUB_HOSTILE_N generated inputs to every route")
	for _, d := range storetest.Backends {
		t.Run(d, func(t *testing.T) {
			n := hostileCount(t, "GEOPUB_HOSTILE_N", 20)
			if d == dialect.Postgres {
				n = hostileCount(t, "GEOPUB_HOSTILE_N_POSTGRES", n)
			}
			h := newHostile(t, d)
			start := time.Now()
			// One task per route and input kind, worked by as many
			// clients as there are CPUs; the first failure stops them.
			type task struct {
				r     route
				query bool
				seed  uint64
			}
			var tasks []task
			for i, r := range h.writes {
				tasks = append(tasks, task{r, false, uint64(i)})
			}
			for i, r := range h.lists {
				tasks = append(tasks, task{r, true, uint64(i)})
			}
			var (
				next   atomic.Int64
				failed atomic.Pointer[error]
				wg     sync.WaitGroup
			)
			for range 4 * runtime.GOMAXPROCS(0) {
				wg.Go(func() {
					for failed.Load() == nil {
						k := int(next.Add(1)) - 1
						if k >= len(tasks) {
							return
						}
						tk := tasks[k]
						stream := uint64(1)
						if tk.query {
							stream = 2
						}
						rng := rand.New(rand.NewPCG(tk.seed, stream))
						for range n {
							var err error
							if tk.query {
								err = h.try(tk.r, genQuery(rng), nil)
							} else {
								err = h.try(tk.r, "", genBody(rng, 0))
							}
							if err != nil {
								failed.CompareAndSwap(nil, &err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			if err := failed.Load(); err != nil {
				t.Fatal(*err)
			}
			t.Logf("%s: %d inputs to each of %d write and %d GET routes in %s", d, n, len(h.writes), len(h.lists), time.Since(start))
		})
	}
}

// hostileCount reads a count of inputs per route from the environment.
func hostileCount(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}

// keys are the field and parameter names inputs use: the API's own and a
// few it does not know.
var keys = []string{"name", "title", "description", "q", "email", "first_name", "last_name", "tags", "categories",
	"link_url", "url_remote", "type", "group", "items", "scope", "permissions", "status", "sub_status", "country",
	"url_slug", "page", "page_size", "sort", "drafts", "id", "user", "expires_at", "referrers", "template_urls",
	"options", "metadata", "ticketed_object", "assignee", "password", "username", "grant_type", "external_services",
	"datasources", "layers", "version", "publish", "content", "role", "access", "unknown",
	// The catalogue's query language (catalogquery.go).
	"kind", "tag", "category", "geotag", "license.type", "from", "facets", "cursor", "created_at.after",
	"raster_resolution.gt", "data.geometry_type", "is_starred", "public", "version.status"}

// badStrings are the texts inputs are made of, as Go strings (JSON
// encoding keeps them as they are, NUL and invalid UTF-8 included).
var badStrings = []string{"", " ", "a", "\x00", "a\x00b", "\xff\xfe", "\xed\xa0\xbd", "%", "_", "\\",
	"'; DROP TABLE users; --", "<script>", "../../etc/passwd", "https://127.0.0.1/x", "draft", "published", "all",
	"-1", "0", "1", "99999999999999999999", "1e309", "NaN", "true", "null", "\u202e", "\U0001F600",
	strings.Repeat("x", 201), strings.Repeat("x", 1001), strings.Repeat("é", 5000), strings.Repeat("ab ", 20000)}

// rawLiterals are JSON texts the encoder cannot make: unpaired surrogate
// escapes and numbers out of every range.
var rawLiterals = []string{`"\ud83d"`, `"a\udc00b"`, `"\u0000"`, `1e309`, `-1e309`, `9223372036854775808`, `-0`, `1.5`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `{}`, `[]`, `null`, `true`}

// genBody makes a JSON document: an object of random members, sometimes
// something else entirely.
func genBody(rng *rand.Rand, depth int) []byte {
	switch rng.IntN(20) {
	case 0:
		return []byte(rawLiterals[rng.IntN(len(rawLiterals))])
	case 1:
		return []byte(`{"name": "x"`) // cut short
	case 2:
		return []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000))
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range rng.IntN(5) + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:", keys[rng.IntN(len(keys))])
		b.WriteString(genValue(rng, depth))
	}
	b.WriteString("}")
	return []byte(b.String())
}

func genValue(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(10); {
	case k < 4:
		return jsonString(badStrings[rng.IntN(len(badStrings))])
	case k < 6:
		return rawLiterals[rng.IntN(len(rawLiterals))]
	case k < 7:
		return strconv.Itoa(rng.IntN(2000) - 1000)
	case k < 8 && depth < 3:
		return "[" + genValue(rng, depth+1) + "," + genValue(rng, depth+1) + "]"
	case k < 9 && depth < 3:
		return string(genBody(rng, depth+1))
	}
	return jsonString(badStrings[rng.IntN(len(badStrings))])
}

// jsonString writes s as a JSON string literal byte for byte: invalid
// UTF-8 is sent as it is, not replaced.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// genQuery makes a query string of random parameters, encoded or raw.
func genQuery(rng *rand.Rand) string {
	var parts []string
	for range rng.IntN(4) + 1 {
		k := keys[rng.IntN(len(keys))]
		v := badStrings[rng.IntN(len(badStrings))]
		if rng.IntN(4) == 0 {
			parts = append(parts, k+"="+rawQueryValue(v))
		} else {
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
		}
	}
	if rng.IntN(10) == 0 {
		parts = append(parts, "q=%ZZ", "page=%00")
	}
	return strings.Join(parts, "&")
}

// rawQueryValue escapes only what a URL cannot carry (see sendable) and
// &, leaving stray % signs to test the decoder.
func rawQueryValue(v string) string { return strings.ReplaceAll(sendable(v), "&", "%26") }

// hexDigits are the digits of the escapes the generators write (fmt
// would cost a tenth of the harness's time).
const hexDigits = "0123456789ABCDEF"

// sendable escapes the bytes no URL can carry (controls, spaces, non-ASCII
// and #), which the client would refuse to send, and leaves the rest of a
// fuzzed query as it is.
func sendable(query string) string {
	var b strings.Builder
	for i := 0; i < len(query); i++ {
		if c := query[i]; c <= ' ' || c >= 0x7f || c == '#' {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// seedBodies and seedQueries start the native fuzz targets besides the
// corpus in testdata/fuzz.
var seedBodies = []string{`{"name": "a\u0000b"}`, `{"title": "\ud83d"}`, `{"title": 5}`, `{"q": 1e309}`, `[]`, `{"tags": [null]}`}

var seedQueries = []string{"q=%00", "q=%FF", "page=-1", "page_size=99999999999999999999", "sort=%27", "q=" + strings.Repeat("a", 5000)}
