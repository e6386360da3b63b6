package ogc_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/relate"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 24, 0b: S_DISJOINT with a polygon of thousands of vertices on a
// large public layer ran for minutes, anonymously. Every request has a
// time budget: past it the work stops (the store's statement included)
// and the client is told why, 504 with a message, in every door.
func TestRequestTimeBudget(t *testing.T) {
	if !relate.Available() {
		t.Skip("GDAL without GEOS: no spatial functions to be slow")
	}
	const budget = 300 * time.Millisecond
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.NewWith(t, st, func(c *server.Config) { c.RequestTimeout = budget })
		owner := e.NewUser(t, "Owner")
		var fs []feature
		for i := range 20000 {
			fs = append(fs, feature{int64(i + 1), pt(170+float64(i%200)*0.03, -45+float64(i/200)*0.05), map[string]any{"name": fmt.Sprint(i)}})
		}
		id := publish(t, e, owner.User, layer.TypeLayer, "Many points", "point", []schematype.Field{{Name: "name", Type: "string"}}, fs)
		// A circle of 2,800 vertices around the points' middle.
		var ring []string
		for i := range 2800 {
			a := 2 * math.Pi * float64(i) / 2800
			ring = append(ring, fmt.Sprintf("%.6f %.6f", 173+2*math.Cos(a), -42.5+2*math.Sin(a)))
		}
		ring = append(ring, ring[0])
		wkt := "POLYGON((" + strings.Join(ring, ",") + "))"

		start := time.Now()
		q := url.Values{"filter": {"S_DISJOINT(geometry," + wkt + ")"}, "filter-lang": {"cql2-text"}, "limit": {"10000"}}
		resp := get(t, e.HTTP.URL+"/services/ogc/features/collections/layer-"+itoa(id)+"/items?"+q.Encode())
		took := time.Since(start)
		var body struct{ Code, Description string }
		if err := json.Unmarshal(resp.body, &body); err != nil || resp.status != http.StatusGatewayTimeout || body.Code != "TIMEOUT" || body.Description == "" {
			t.Fatalf("items past the budget: %d %.300s after %s, want 504 with code TIMEOUT and a description", resp.status, resp.body, took)
		}
		if took > budget+3*time.Second {
			t.Errorf("items answered %s after a %s budget", took, budget)
		}

		start = time.Now()
		filter := `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:Not><fes:Intersects><fes:ValueReference>GEOMETRY</fes:ValueReference>` +
			`<gml:Polygon srsName="urn:ogc:def:crs:OGC:1.3:CRS84"><gml:exterior><gml:LinearRing><gml:posList>` +
			strings.NewReplacer(",", " ").Replace(strings.Join(ring, " ")) + `</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></fes:Intersects></fes:Not></fes:Filter>`
		q = url.Values{"SERVICE": {"WFS"}, "VERSION": {"2.0.0"}, "REQUEST": {"GetFeature"}, "TYPENAMES": {"layer-" + itoa(id)},
			"COUNT": {"10000"}, "OUTPUTFORMAT": {"application/json"}, "FILTER": {filter}}
		resp = get(t, e.HTTP.URL+"/services/wfs?"+q.Encode())
		took = time.Since(start)
		if resp.status != http.StatusGatewayTimeout || !strings.Contains(string(resp.body), "OperationProcessingFailed") || !strings.Contains(string(resp.body), "time") {
			t.Fatalf("GetFeature past the budget: %d %.300s after %s, want 504 OperationProcessingFailed saying why", resp.status, resp.body, took)
		}
		if took > budget+3*time.Second {
			t.Errorf("GetFeature answered %s after a %s budget", took, budget)
		}
	})
}

// get fetches an absolute URL anonymously.
func get(t *testing.T, u string) response {
	t.Helper()
	return (&fixture{}).get(t, "", u)
}
