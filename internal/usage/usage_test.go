package usage

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Two counters over one database (two processes) counting concurrently
// add up after their flushes, by day, dataset, service and token, and a
// second flush of each adds to the rows the first made.
func TestCountersOfTwoProcessesAddUp(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := t.Context()
		day1 := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
		a, b := New(st, nil), New(st, nil)
		a.now = func() time.Time { return day1 }
		b.now = func() time.Time { return day1 }
		var wg sync.WaitGroup
		for _, c := range []*Counter{a, b} {
			for range 4 {
				wg.Go(func() {
					for range 500 {
						c.Add(Layer, 7, Tiles, 3, Amounts{Requests: 1, Bytes: 10, Tiles: 1})
						c.Add(Layer, 7, WFS, 0, Amounts{Requests: 1, Features: 5})
					}
				})
			}
		}
		wg.Wait()
		c := a
		c.Add(Set, 7, Tiles, 0, Amounts{Requests: 1})    // another kind, same id
		c.Add(NoKind, 7, Tiles, 0, Amounts{Requests: 1}) // ignored
		c.Add(Layer, 0, Tiles, 0, Amounts{Requests: 1})  // ignored
		c.Add(Layer, 7, NoService, 0, Amounts{Requests: 1})
		for _, c := range []*Counter{a, b} {
			if _, err := c.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// The next day, and a second flush onto existing rows.
		a.now = func() time.Time { return day1.Add(2 * time.Minute) }
		b.now = a.now
		a.Add(Layer, 7, Tiles, 3, Amounts{Requests: 1, Bytes: 4, Tiles: 1})
		b.Add(Layer, 7, Tiles, 3, Amounts{Requests: 1, Bytes: 6, Tiles: 1})
		for _, c := range []*Counter{a, b} {
			if _, err := c.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		p, err := ParsePeriod("2026-03-01", "2026-03-02", day1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DatasetFigures(ctx, st, Layer, 7, p)
		if err != nil {
			t.Fatal(err)
		}
		want := []Figure{
			{Day: "2026-03-01", Service: "tiles", Amounts: Amounts{Requests: 4000, Bytes: 40000, Tiles: 4000}},
			{Day: "2026-03-01", Service: "wfs", Amounts: Amounts{Requests: 4000, Features: 20000}},
			{Day: "2026-03-02", Service: "tiles", Amounts: Amounts{Requests: 2, Bytes: 10, Tiles: 2}},
		}
		if !equalFigures(got, want) {
			t.Fatalf("layer figures = %+v, want %+v", got, want)
		}
		tok, err := TokenFigures(ctx, st, 3, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != 2 || tok[0].Tiles != 4000 || tok[1].Tiles != 2 || tok[0].Features != 0 {
			t.Fatalf("token figures = %+v", tok)
		}
		sets, err := DatasetFigures(ctx, st, Set, 7, p)
		if err != nil || len(sets) != 1 || sets[0].Requests != 1 {
			t.Fatalf("set figures = %+v, %v", sets, err)
		}
		// Nothing left to write.
		if n, err := a.Flush(ctx); n != 0 || err != nil {
			t.Fatalf("empty flush wrote %d rows, %v", n, err)
		}
	})
}

// A flush that fails keeps its figures for the next one.
func TestFailedFlushKeepsFigures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := New(st, nil)
		c.Add(Document, 2, Download, 0, Amounts{Requests: 1, Downloads: 1})
		ctx, cancel := contextCanceled(t)
		cancel()
		if _, err := c.Flush(ctx); err == nil {
			t.Fatal("a flush on a canceled context succeeded")
		}
		if err := c.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		p, _ := ParsePeriod("", "", time.Now())
		got, err := DatasetFigures(t.Context(), st, Document, 2, p)
		if err != nil || len(got) != 1 || got[0].Downloads != 1 {
			t.Fatalf("figures after the retry = %+v, %v", got, err)
		}
	})
}

// The middleware counts what doors mark, once per dataset, with the
// body's bytes shared among them and the request's token; unmarked and
// failed requests are not counted.
func TestMiddlewareCountsMarks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := New(st, nil)
		h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/two":
				Served(w, Layer, 1, QueryVector, Amounts{Features: 2})
				Served(w, Layer, 2, QueryVector, Amounts{Features: 1})
				Served(w, Layer, 2, QueryVector, Amounts{Features: 1})
				_, _ = w.Write([]byte("12345"))
			case "/failed":
				Served(w, Layer, 1, QueryVector, Amounts{Features: 2})
				w.WriteHeader(http.StatusNotFound)
			case "/file":
				Served(w, Document, 4, Download, Amounts{Downloads: 1})
				http.ServeContent(w, r, "f.txt", time.Time{}, strings.NewReader("0123456789"))
			default:
				_, _ = w.Write([]byte("not marked"))
			}
		}))
		tok := &ent.Token{ID: 9}
		for _, path := range []string{"/two", "/failed", "/file", "/none", "/file?range"} {
			r := httptest.NewRequest(http.MethodGet, path, nil)
			if r.URL.RawQuery == "range" {
				r.Header.Set("Range", "bytes=0-3") // a part: a request, not a download
			}
			r = r.WithContext(auth.WithPrincipal(r.Context(), auth.Principal{Method: auth.TokenAuth, Token: tok}))
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
		if _, err := c.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		p, _ := ParsePeriod("", "", time.Now())
		one, _ := DatasetFigures(t.Context(), st, Layer, 1, p)
		two, _ := DatasetFigures(t.Context(), st, Layer, 2, p)
		doc, _ := DatasetFigures(t.Context(), st, Document, 4, p)
		if len(one) != 1 || one[0].Amounts != (Amounts{Requests: 1, Bytes: 3, Features: 2}) {
			t.Fatalf("layer 1 = %+v", one)
		}
		if len(two) != 1 || two[0].Amounts != (Amounts{Requests: 1, Bytes: 2, Features: 2}) {
			t.Fatalf("layer 2 = %+v", two)
		}
		if len(doc) != 1 || doc[0].Amounts != (Amounts{Requests: 2, Bytes: 14, Downloads: 1}) || doc[0].Service != "download" {
			t.Fatalf("document = %+v", doc)
		}
		tf, _ := TokenFigures(t.Context(), st, 9, p)
		if got := Total(tf); got.Requests != 4 || got.Bytes != 19 {
			t.Fatalf("token total = %+v", got)
		}
	})
}

func TestParsePeriod(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	p, err := ParsePeriod("", "", now)
	if err != nil || p.From.Format(time.DateOnly) != "2026-04-11" || p.To.Format(time.DateOnly) != "2026-05-10" {
		t.Fatalf("default period = %v, %v", p, err)
	}
	for _, bad := range [][2]string{{"2026-13-01", ""}, {"", "yesterday"}, {"2026-05-02", "2026-05-01"}, {"2024-01-01", "2026-01-01"}} {
		if _, err := ParsePeriod(bad[0], bad[1], now); err == nil {
			t.Errorf("ParsePeriod(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func equalFigures(a, b []Figure) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
