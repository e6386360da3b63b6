package rest_test

import (
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/croplayers"
	"github.com/geopub/geopub/internal/server/servertest"
)

// cropRegions are polygon features with coordinates to the 12th decimal:
// a Polygon and a MultiPolygon (and a second Polygon) named by "region".
const cropRegions = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"region":"Wellington","code":9},"geometry":{"type":"Polygon","coordinates":[[[174.612345678901,-41.412345678901],[174.987654321098,-41.412345678901],[174.987654321098,-41.112345678901],[174.612345678901,-41.412345678901]]]}},
{"type":"Feature","properties":{"region":"Islands","code":4},"geometry":{"type":"MultiPolygon","coordinates":[[[[175.1,-41.0],[175.3,-41.0],[175.3,-40.8],[175.1,-41.0]]],[[[175.5,-40.5],[175.7,-40.5],[175.7,-40.3],[175.5,-40.5]]]]}},
{"type":"Feature","properties":{"region":"Wairarapa","code":7},"geometry":{"type":"Polygon","coordinates":[[[175.2,-41.5],[176.0,-41.5],[176.0,-40.9],[175.2,-41.5]]]}}
]}`

const cropPoints = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"region":"Here"},"geometry":{"type":"Point","coordinates":[174.7,-41.3]}}]}`

// cropLayerRecord is a crop layer as REST shows it.
type cropLayerRecord struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Features string `json:"features"`
	Extent   struct {
		Type        string           `json:"type"`
		Coordinates [][][][2]float64 `json:"coordinates"`
	} `json:"extent"`
	SourceLayer string `json:"source_layer"`
}

type cropFeatureRecord struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Geometry *struct {
		Type        string           `json:"type"`
		Coordinates [][][][2]float64 `json:"coordinates"`
	} `json:"geometry"`
}

// cropSources publishes the regions, the points and a table, and imports
// the regions again into a layer left unpublished; it returns their ids.
func cropSources(t *testing.T, e *env, pub *user) (regions, points, table, draftOnly int) {
	t.Helper()
	src := upload(t, e, pub.Key, map[string][]byte{
		"regions.geojson": []byte(cropRegions),
		"points.geojson":  []byte(cropPoints),
		"codes.csv":       []byte("code,label\nA,Alpha\n"),
	})
	if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, pub.Key, src.ID)
	regions = publishLayerFrom(t, e, pub, "Regions", ds["regions.geojson"].ID)
	points = publishLayerFrom(t, e, pub, "Points", ds["points.geojson"].ID)
	table = publishLayerFrom(t, e, pub, "Codes", ds["codes.csv"].ID)
	r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
		"name": "Unpublished regions", "data": map[string]any{"datasources": []int{ds["regions.geojson"].ID}}}})
	expectStatus(t, r, http.StatusCreated)
	var l layerRecord
	r.JSON(t, &l)
	waitVersion(t, e, pub.Key, l.ThisVersion)
	return regions, points, table, l.ID
}

// TestCropLayers: site administrators make and delete crop layers of
// published polygon layers, with a clear 400 for every other layer;
// signed-in callers read them, their features and geometries (the
// source's coordinates, as MultiPolygons); anonymous callers and tokens
// without exports:read get 401, other users 403 on writes.
func TestCropLayers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "CropAdmin", servertest.SiteAdmin)
		pub := e.NewUser(t, "CropPublisher")
		reader := e.NewUser(t, "CropReader")
		regions, points, table, draftOnly := cropSources(t, e, pub)

		create := req{Method: "POST", Path: "/exports/croplayers/", Key: admin.Key, Body: map[string]any{
			"name": "NZ regions", "layer": fmt.Sprintf("%s/layers/%d/", e.API, regions), "name_field": "region"}}
		authMatrix(t, e, create, "exports:write", reader)

		bad := map[string]struct {
			body  map[string]any
			field string
			want  string
		}{
			"missing layer":   {map[string]any{"name": "x", "layer": 999999, "name_field": "region"}, "layer", "no layer 999999"},
			"no layer given":  {map[string]any{"name": "x", "name_field": "region"}, "layer", "required"},
			"bad layer":       {map[string]any{"name": "x", "layer": "roads", "name_field": "region"}, "layer", "layer id or a layer URL"},
			"table layer":     {map[string]any{"name": "x", "layer": table, "name_field": "code"}, "layer", "is a table"},
			"point layer":     {map[string]any{"name": "x", "layer": points, "name_field": "region"}, "layer", "point geometry"},
			"unpublished":     {map[string]any{"name": "x", "layer": draftOnly, "name_field": "region"}, "layer", "no published version"},
			"unknown field":   {map[string]any{"name": "x", "layer": regions, "name_field": "nope"}, "name_field", `no field "nope"`},
			"no name":         {map[string]any{"layer": regions, "name_field": "region"}, "name", "required"},
			"no naming field": {map[string]any{"name": "x", "layer": regions}, "name_field", "required"},
		}
		for name, c := range bad {
			r := e.Do(t, req{Method: "POST", Path: "/exports/croplayers/", Key: admin.Key, Body: c.body})
			expectStatus(t, r, http.StatusBadRequest)
			var fe map[string][]string
			r.JSON(t, &fe)
			if msgs := strings.Join(fe[c.field], " "); !strings.Contains(msgs, c.want) {
				t.Errorf("%s: %s says %q, want %q (%s)", name, c.field, msgs, c.want, r.Body)
			}
		}
		if n := e.Store.Client.CropLayer.Query().CountX(t.Context()); n != 0 {
			t.Fatalf("bad input wrote %d crop layers", n)
		}

		r := e.Do(t, create)
		expectStatus(t, r, http.StatusCreated)
		var created cropLayerRecord
		r.JSON(t, &created)
		if r.Header.Get("Location") != created.URL || r.Header.Get("Accepted-OAuth-Scopes") != "exports:write" {
			t.Fatalf("Location %q, scopes %q, url %q", r.Header.Get("Location"), r.Header.Get("Accepted-OAuth-Scopes"), created.URL)
		}

		list := req{Path: "/exports/croplayers/", Key: e.Token(t, reader.User, "exports:read")}
		authMatrix(t, e, list, "exports:read", nil)
		r = e.Do(t, list)
		expectStatus(t, r, http.StatusOK)
		if got := r.Header.Get("Accepted-OAuth-Scopes"); got != "exports:read" {
			t.Fatalf("Accepted-OAuth-Scopes %q", got)
		}
		var all []cropLayerRecord
		r.JSON(t, &all)
		if len(all) != 1 || !reflect.DeepEqual(all[0], created) {
			t.Fatalf("list %+v, created %+v", all, created)
		}
		c := all[0]
		if c.Name != "NZ regions" || c.URL != fmt.Sprintf("%s/exports/croplayers/%d/", e.API, c.ID) ||
			c.Features != c.URL+"cropfeatures/" || !strings.HasPrefix(c.SourceLayer, fmt.Sprintf("%s/layers/%d/versions/", e.API, regions)) {
			t.Fatalf("crop layer %+v", c)
		}
		wantBox := [][2]float64{{174.612345678901, -41.5}, {176.0, -41.5}, {176.0, -40.3}, {174.612345678901, -40.3}, {174.612345678901, -41.5}}
		if c.Extent.Type != "MultiPolygon" || len(c.Extent.Coordinates) != 1 || !sameRing(c.Extent.Coordinates[0][0], wantBox) {
			t.Fatalf("extent %+v", c.Extent)
		}
		expectStatus(t, e.Do(t, req{Path: "/exports/croplayers/999999/", Key: reader.Key}), http.StatusNotFound)
		one := doJSON[cropLayerRecord](t, e, req{Path: c.URL, Key: reader.Key}, http.StatusOK)
		if !reflect.DeepEqual(one, c) {
			t.Fatalf("detail %+v, list %+v", one, c)
		}

		// Features, paged by two.
		r = e.Do(t, req{Path: c.Features + "?page_size=2", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if got := r.Header.Get("X-Resource-Range"); got != "0-2/3" || !strings.Contains(r.Header.Get("Link"), `rel="page-next"`) {
			t.Fatalf("X-Resource-Range %q, Link %q", got, r.Header.Get("Link"))
		}
		feats := doJSON[[]cropFeatureRecord](t, e, req{Path: c.Features, Key: reader.Key}, http.StatusOK)
		byName := map[string]cropFeatureRecord{}
		for _, f := range feats {
			if f.URL != fmt.Sprintf("%s%d/", c.Features, f.ID) || f.Geometry != nil {
				t.Fatalf("feature %+v", f)
			}
			byName[f.Name] = f
		}
		if len(byName) != 3 || byName["Wellington"].URL == "" || byName["Islands"].URL == "" {
			t.Fatalf("features %+v", feats)
		}
		want := map[string][][][][2]float64{
			"Wellington": {{{{174.612345678901, -41.412345678901}, {174.987654321098, -41.412345678901}, {174.987654321098, -41.112345678901}, {174.612345678901, -41.412345678901}}}},
			"Islands": {{{{175.1, -41.0}, {175.3, -41.0}, {175.3, -40.8}, {175.1, -41.0}}},
				{{{175.5, -40.5}, {175.7, -40.5}, {175.7, -40.3}, {175.5, -40.5}}}},
		}
		for name, coords := range want {
			f := doJSON[cropFeatureRecord](t, e, req{Path: byName[name].URL, Key: reader.Key}, http.StatusOK)
			if f.Name != name || f.Geometry == nil || f.Geometry.Type != "MultiPolygon" || !sameMulti(f.Geometry.Coordinates, coords) {
				t.Fatalf("%s: %+v", name, f)
			}
			// The exports package resolves the same URL to the WKB.
			svc := croplayers.New(e.Store)
			b, ok, err := svc.FeatureByURL(t.Context(), f.URL)
			if err != nil || !ok {
				t.Fatalf("FeatureByURL(%s): %v %v", f.URL, ok, err)
			}
			g, err := wkb.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if n := numPolygons(g); n != len(coords) {
				t.Fatalf("%s: WKB holds %d polygons", name, n)
			}
		}
		expectStatus(t, e.Do(t, req{Path: c.Features + "424242/", Key: reader.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: byName["Wellington"].URL, Key: reader.Key}, "exports:read", nil)
		if _, _, ok := croplayers.ParseFeatureURL(c.URL); ok {
			t.Fatal("a crop layer's URL parsed as a feature's")
		}

		// GraphQL reads the same.
		g := e.GraphQL(t, reader.Key, `query($id: ID!, $fid: ID!) { cropLayers { id name nameField extent }
			cropLayer(id: $id) { features(pageSize: 2) { totalCount nodes { id name } } feature(id: $fid) { name geometry } } }`,
			map[string]any{"id": c.ID, "fid": byName["Islands"].ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"totalCount":3`) || !strings.Contains(string(g.Data), `[175.7,-40.3]`) {
			t.Fatalf("GraphQL: %s %+v", g.Data, g.Errors)
		}
		if g := e.GraphQL(t, "", `{ cropLayers { id } }`, nil); len(g.Errors) == 0 || g.Errors[0].Code() != "UNAUTHENTICATED" {
			t.Fatalf("anonymous GraphQL: %s %+v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, reader.Key, `mutation { createCropLayer(input: {name: "x", layer: "1", nameField: "region"}) { id } }`, nil)
		if len(g.Errors) == 0 || g.Errors[0].Code() != "FORBIDDEN" {
			t.Fatalf("non-admin createCropLayer: %s %+v", g.Data, g.Errors)
		}

		// Deleting: site administrators only.
		del := req{Method: "DELETE", Path: c.URL, Key: admin.Key}
		authMatrix(t, e, del, "exports:write", reader)
		expectStatus(t, e.Do(t, del), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: c.URL, Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, del), http.StatusNotFound)
	})
}

func numPolygons(g geom.T) int {
	switch t := g.(type) {
	case *geom.Polygon:
		return 1
	case *geom.MultiPolygon:
		return t.NumPolygons()
	}
	return 0
}

func sameMulti(a, b [][][][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !sameRing(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

// sameRing compares positions within 1e-9.
func sameRing(a, b [][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i][0]-b[i][0]) > 1e-9 || math.Abs(a[i][1]-b[i][1]) > 1e-9 {
			return false
		}
	}
	return true
}
