package queryapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// BenchmarkVectorQueryHandler measures the server's own work for one
// vector query (radius 1000 m, max_results 10) over a published layer of
// 100,000 points: the whole middleware chain, authentication by key, the
// access decision, the search and the JSON body, without the network
// (bench/query measures it over HTTP). Allocations per query are the
// figure to watch.
func BenchmarkVectorQueryHandler(b *testing.B) {
	st := storetest.Open(b, dialect.SQLite, storetest.Options{})
	e := servertest.New(b, st)
	u := e.NewUser(b, "Bench")
	rng := rand.New(rand.NewPCG(1, 2))
	fs := make([]feature, 100_000)
	for i := range fs {
		// About 1.6 points per square kilometre around Wellington.
		lon, lat := offset(cLon, cLat, (rng.Float64()-0.5)*250_000, (rng.Float64()-0.5)*250_000)
		fs[i] = feature{int64(i + 1), pt(lon, lat), map[string]any{"name": fmt.Sprintf("point %d", i+1)}}
	}
	id := publishLayer(b, e, u.User, "Bench", "point", []string{"name"}, fs)
	h := e.Server.Handler()
	reqs := make([]*http.Request, 256)
	for i := range reqs {
		lon, lat := offset(cLon, cLat, (rng.Float64()-0.5)*250_000, (rng.Float64()-0.5)*250_000)
		q := url.Values{"key": {u.Key}, "layer": {fmt.Sprint(id)}, "x": {fmt.Sprint(lon)}, "y": {fmt.Sprint(lat)}, "max_results": {"10"}}
		reqs[i] = httptest.NewRequest(http.MethodGet, "/services/query/v1/vector.json?"+q.Encode(), nil)
	}
	// The first query builds the index.
	w := httptest.NewRecorder()
	if h.ServeHTTP(w, reqs[0]); w.Code != http.StatusOK {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, reqs[i%len(reqs)])
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
