package queryapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkt"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 6's reference check: on a generated dataset of points, lines and
// polygons, for 1,000 random query points, the vector query gives what
// PostGIS gives (ST_DWithin on geography, ordered by ST_Distance on
// geography): the same ids in the same order, except that features whose
// distances differ by less than 0.5 m may swap places, and distances that
// agree within 0.5 % or 0.5 m.
func TestVectorQueryMatchesPostGIS(t *testing.T) {
	st := storetest.Open(t, dialect.Postgres, storetest.Options{})
	ctx := context.Background()
	if _, err := st.DB.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS postgis"); err != nil {
		t.Fatalf("PostGIS is needed (scripts/install-test-deps.sh installs it): %v", err)
	}
	e := servertest.New(t, st)
	owner := e.NewUser(t, "Owner")

	// Around Wellington, about 20 km square: points, lines and polygons.
	rng := rand.New(rand.NewPCG(6, 1000))
	const west, south, span = 174.70, -41.35, 0.2
	rnd := func() (float64, float64) { return west + rng.Float64()*span, south + rng.Float64()*span*0.75 }
	var fs []feature
	for i := range 3000 {
		x, y := rnd()
		var g geom.T
		switch {
		case i < 2000:
			g = pt(x, y)
		case i < 2600:
			n := 2 + rng.IntN(5)
			flat := []float64{x, y}
			for range n - 1 {
				x, y = x+(rng.Float64()-0.5)*0.01, y+(rng.Float64()-0.5)*0.01
				flat = append(flat, x, y)
			}
			g = geom.NewLineStringFlat(geom.XY, flat)
		default:
			w, h := 0.001+rng.Float64()*0.01, 0.001+rng.Float64()*0.01
			g = geom.NewPolygonFlat(geom.XY, []float64{x, y, x + w, y, x + w, y + h, x, y + h, x, y}, []int{10})
		}
		fs = append(fs, feature{fid: int64(i + 1), g: g, attrs: map[string]any{"n": int64(i)}})
	}
	layerID := publishLayer(t, e, owner.User, "Mixed", "geometry", []string{"n"}, fs)

	if _, err := st.DB.ExecContext(ctx, "CREATE TABLE ref (fid bigint PRIMARY KEY, geog geography)"); err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		w, err := wkt.Marshal(f.g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB.ExecContext(ctx, "INSERT INTO ref VALUES ($1, ST_GeogFromText($2))", f.fid, "SRID=4326;"+w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DB.ExecContext(ctx, "CREATE INDEX ON ref USING gist (geog)"); err != nil {
		t.Fatal(err)
	}

	type hit struct {
		id int64
		d  float64
	}
	const maxResults = 10
	tol := func(d float64) float64 { return math.Max(0.5, d*0.005) }
	failures := 0
	for q := range 1000 {
		x, y := rnd()
		radius := []int{100, 300, 1000, 2500}[q%4]
		// PostGIS, one beyond the limit to judge ties at the cut.
		rows, err := st.DB.QueryContext(ctx, `SELECT fid, ST_Distance(geog, ST_MakePoint($1, $2)::geography)
			FROM ref WHERE ST_DWithin(geog, ST_MakePoint($1, $2)::geography, $3)
			ORDER BY ST_Distance(geog, ST_MakePoint($1, $2)::geography), fid LIMIT $4`, x, y, radius, maxResults+1)
		if err != nil {
			t.Fatal(err)
		}
		var ref []hit
		for rows.Next() {
			var h hit
			if err := rows.Scan(&h.id, &h.d); err != nil {
				t.Fatal(err)
			}
			ref = append(ref, h)
		}
		rows.Close()

		resp, body := get(t, e, "/services/query/v1/vector.json", url.Values{"key": {owner.Key}, "layer": {fmt.Sprint(layerID)},
			"x": {fmt.Sprint(x)}, "y": {fmt.Sprint(y)}, "radius": {fmt.Sprint(radius)}, "max_results": {fmt.Sprint(maxResults)}}, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("query: %d %s", resp.StatusCode, body)
		}
		var r jsonResult
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		var ours []hit
		for _, f := range r.VectorQuery.Layers[fmt.Sprint(layerID)].Features {
			ours = append(ours, hit{f.ID, f.Distance})
		}

		problem := func(format string, args ...any) {
			failures++
			if failures <= 10 {
				t.Errorf("query %d at %f,%f radius %d: %s\n ours %v\n ref  %v", q, x, y, radius, fmt.Sprintf(format, args...), ours, ref)
			}
		}
		refIdx := map[int64]int{}
		for i, h := range ref {
			refIdx[h.id] = i
		}
		want := min(len(ref), maxResults)
		if len(ours) != want {
			// Only features at the radius's edge may differ.
			edge := false
			if len(ours) > want && math.Abs(ours[want].d-float64(radius)) <= tol(float64(radius)) {
				edge = true
			}
			if len(ours) < want && math.Abs(ref[len(ours)].d-float64(radius)) <= tol(float64(radius)) {
				edge = true
			}
			if !edge {
				problem("%d results, PostGIS %d", len(ours), want)
			}
		}
		for i := range min(len(ours), want) {
			o, rf := ours[i], ref[i]
			if math.Abs(o.d-rf.d) > tol(rf.d) {
				problem("distance %d: %.3f vs %.3f", i, o.d, rf.d)
				break
			}
			if o.id != rf.id {
				j, ok := refIdx[o.id]
				if !ok || math.Abs(ref[j].d-rf.d) >= 0.5 {
					problem("position %d: id %d vs %d", i, o.id, rf.id)
					break
				}
			}
		}
	}
	if failures > 0 {
		t.Fatalf("%d of 1000 queries differ from PostGIS", failures)
	}
}
