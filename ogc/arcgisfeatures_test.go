package ogc_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// arcgis fetches a GeoServices REST path (GET, or POST of a form when
// form is not nil) with an optional key, returning status and body.
func arcgis(t testing.TB, e *env, key, path string, form url.Values) (int, []byte) {
	t.Helper()
	u := e.HTTP.URL + "/services/arcgis/rest" + path
	var req *http.Request
	var err error
	if form != nil {
		req, err = http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		req, err = http.NewRequest(http.MethodGet, u, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "key "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func arcgisJSON(t testing.TB, e *env, key, path string, want int, v any) {
	t.Helper()
	st, b := arcgis(t, e, key, path, nil)
	if st != want {
		t.Fatalf("GET %s: %d, want %d: %s", path, st, want, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, b)
	}
}

func TestArcGISFeatureServerDocuments(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		var dir struct {
			Folders  []string
			Services []struct{ Name, Type string }
		}
		arcgisJSON(t, e, "", "/services?f=json", 200, &dir)
		got := map[string]bool{}
		for _, s := range dir.Services {
			got[s.Name+"/"+s.Type] = true
		}
		for _, id := range []int{f.points, f.polygons, f.events} {
			if !got[fmt.Sprintf("layer_%d/FeatureServer", id)] || !got[fmt.Sprintf("layer_%d/MapServer", id)] {
				t.Errorf("layer %d missing from %v", id, got)
			}
		}
		if !got[fmt.Sprintf("layer_%d/FeatureServer", f.table)] || got[fmt.Sprintf("layer_%d/MapServer", f.table)] {
			t.Errorf("table: %v", got)
		}
		if got[fmt.Sprintf("layer_%d/FeatureServer", f.private)] {
			t.Errorf("private layer listed to anonymous: %v", got)
		}
		var owned struct{ Services []struct{ Name, Type string } }
		arcgisJSON(t, e, f.owner.Key, "/services", 200, &owned)
		found := false
		for _, s := range owned.Services {
			found = found || s.Name == fmt.Sprintf("layer_%d", f.private)
		}
		if !found {
			t.Errorf("private layer not listed to its owner")
		}

		var svc struct {
			Layers []struct {
				ID           int
				Name         string
				GeometryType string
			}
			Tables           []struct{ ID int }
			MaxRecordCount   int
			Capabilities     string
			SpatialReference struct{ WKID int }
			FullExtent       struct{ XMin, YMin, XMax, YMax float64 }
		}
		arcgisJSON(t, e, "", fmt.Sprintf("/services/layer_%d/FeatureServer?f=pjson", f.points), 200, &svc)
		if len(svc.Layers) != 1 || svc.Layers[0].ID != 0 || svc.Layers[0].GeometryType != "esriGeometryPoint" ||
			svc.MaxRecordCount != 2000 || svc.Capabilities != "Query" || svc.SpatialReference.WKID != 4326 || svc.FullExtent.XMin < 174.69 {
			t.Errorf("service: %+v", svc)
		}
		var tbl struct {
			Layers []any
			Tables []struct{ ID int }
		}
		arcgisJSON(t, e, "", fmt.Sprintf("/services/layer_%d/FeatureServer", f.table), 200, &tbl)
		if len(tbl.Layers) != 0 || len(tbl.Tables) != 1 {
			t.Errorf("table service: %+v", tbl)
		}

		var lyr struct {
			ID            int
			Type          string
			GeometryType  string
			ObjectIDField string
			Fields        []struct{ Name, Type string }
			Extent        struct {
				SpatialReference struct{ WKID, LatestWKID int }
			}
			SupportsPagination        bool
			AdvancedQueryCapabilities struct{ SupportsPagination, SupportsOrderBy, SupportsStatistics bool }
		}
		for _, srv := range []string{"FeatureServer", "MapServer"} {
			arcgisJSON(t, e, "", fmt.Sprintf("/services/layer_%d/%s/0", f.events, srv), 200, &lyr)
			types := map[string]string{}
			for _, fd := range lyr.Fields {
				types[fd.Name] = fd.Type
			}
			if lyr.Type != "Feature Layer" || lyr.ObjectIDField != "OBJECTID" || types["OBJECTID"] != "esriFieldTypeOID" ||
				types["when"] != "esriFieldTypeDate" || types["name"] != "esriFieldTypeString" || lyr.Extent.SpatialReference.WKID != 4326 ||
				!lyr.SupportsPagination || !lyr.AdvancedQueryCapabilities.SupportsOrderBy {
				t.Errorf("%s layer: %+v", srv, lyr)
			}
		}
		// Missing, private, a bad name, a layer past the last: 404 Esri errors.
		for _, p := range []string{
			fmt.Sprintf("/services/layer_%d/FeatureServer", f.private),
			fmt.Sprintf("/services/layer_%d/FeatureServer/0/query", f.private),
			"/services/layer_999999/FeatureServer", "/services/layer_x/FeatureServer",
			fmt.Sprintf("/services/layer_%d/FeatureServer/1", f.points),
			fmt.Sprintf("/services/layer_%d/FeatureServer/01", f.points),
			fmt.Sprintf("/services/layer_%d/MapServer/0", f.table),
		} {
			var doc struct{ Error struct{ Code int } }
			arcgisJSON(t, e, "", p, 404, &doc)
			if doc.Error.Code != 404 {
				t.Errorf("%s: %+v", p, doc)
			}
		}
		// A set: its members in order.
		set := publishSet(t, e, f.owner.User, "A set", f.polygons, f.points, f.table)
		var ss struct {
			Layers []struct {
				ID   int
				Name string
			}
			Tables []struct {
				ID   int
				Name string
			}
		}
		arcgisJSON(t, e, "", fmt.Sprintf("/services/set_%d/FeatureServer", set), 200, &ss)
		if len(ss.Layers) != 2 || ss.Layers[0].Name != "Polygons" || ss.Layers[1].ID != 1 || len(ss.Tables) != 1 || ss.Tables[0].ID != 2 {
			t.Errorf("set service: %+v", ss)
		}
		var info struct {
			CurrentVersion float64
			AuthInfo       struct{ IsTokenBasedSecurity bool }
		}
		arcgisJSON(t, e, "", "/info?f=json", 200, &info)
		if info.CurrentVersion < 11 {
			t.Errorf("info: %+v", info)
		}
	})
}

// esriFeatures is an Esri JSON feature set.
type esriFeatures struct {
	GeometryType     string
	SpatialReference struct{ WKID int }
	Fields           []struct{ Name, Type string }
	Features         []struct {
		Attributes map[string]any
		Geometry   map[string]any
	}
	ExceededTransferLimit bool
	Count                 *int
	ObjectIDs             []int64
}

func (fs esriFeatures) ids() []int64 {
	var out []int64
	for _, f := range fs.Features {
		out = append(out, int64(f.Attributes["OBJECTID"].(float64)))
	}
	return out
}

func TestArcGISQuery(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		base := fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?", f.points)
		// What Esri Leaflet's FeatureLayer sends: a box, f=geojson.
		var gj struct {
			Type     string
			Features []struct {
				ID         int64
				Geometry   struct{ Coordinates []float64 }
				Properties map[string]any
			}
		}
		arcgisJSON(t, e, "", base+"returnGeometry=true&where=1%3D1&outSR=4326&outFields=*&inSR=4326&geometry=%7B%22xmin%22%3A174.69%2C%22ymin%22%3A-41.31%2C%22xmax%22%3A174.75%2C%22ymax%22%3A-41.25%2C%22spatialReference%22%3A%7B%22wkid%22%3A4326%7D%7D&geometryType=esriGeometryEnvelope&spatialRel=esriSpatialRelIntersects&geometryPrecision=6&f=geojson", 200, &gj)
		var want []int64
		for _, pf := range f.pointFeatures {
			if pf.g == nil {
				continue
			}
			x, y := pf.g.FlatCoords()[0], pf.g.FlatCoords()[1]
			if x >= 174.69 && x <= 174.75 && y >= -41.31 && y <= -41.25 {
				want = append(want, pf.fid)
			}
		}
		var got []int64
		for _, ft := range gj.Features {
			got = append(got, ft.ID)
			if len(ft.Geometry.Coordinates) != 2 || ft.Properties["name"] == nil {
				t.Errorf("geojson feature %+v", ft)
			}
		}
		if gj.Type != "FeatureCollection" || fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Fatalf("envelope geojson: %v, want %v", got, want)
		}

		// Paging: 26 features in pages of 10, Esri JSON.
		var all []int64
		for off := 0; ; off += 10 {
			var fs esriFeatures
			arcgisJSON(t, e, "", base+fmt.Sprintf("where=1%%3D1&outFields=*&f=json&resultOffset=%d&resultRecordCount=10", off), 200, &fs)
			all = append(all, fs.ids()...)
			if fs.ExceededTransferLimit != (off < 20) {
				t.Fatalf("offset %d: exceeded %v", off, fs.ExceededTransferLimit)
			}
			if !fs.ExceededTransferLimit {
				break
			}
		}
		if len(all) != len(f.pointFeatures) || !sort.SliceIsSorted(all, func(i, j int) bool { return all[i] < all[j] }) {
			t.Fatalf("paged ids %v", all)
		}
		// An offset never served (no remembered cursor), filtered and not.
		var fs esriFeatures
		arcgisJSON(t, e, "", base+"where=1%3D1&f=json&resultOffset=13&resultRecordCount=2", 200, &fs)
		if fmt.Sprint(fs.ids()) != fmt.Sprint(all[13:15]) {
			t.Errorf("offset 13: %v, want %v", fs.ids(), all[13:15])
		}
		// Points and the geometry in Web Mercator.
		fs = esriFeatures{}
		arcgisJSON(t, e, "", base+"objectIds=100,103&outFields=name&outSR=102100&f=json", 200, &fs)
		if len(fs.Features) != 2 || fs.SpatialReference.WKID != 102100 || fs.GeometryType != "esriGeometryPoint" {
			t.Fatalf("objectIds: %+v", fs)
		}
		if x := fs.Features[0].Geometry["x"].(float64); x < 19447000 || x > 19449000 {
			t.Errorf("x in 3857: %v", x)
		}
		if _, ok := fs.Features[0].Attributes["rank"]; ok || fs.Features[0].Attributes["name"] != "Point 0" {
			t.Errorf("outFields=name: %v", fs.Features[0].Attributes)
		}
		// Counts, ids, extent, order, statistics.
		fs = esriFeatures{}
		arcgisJSON(t, e, "", base+"where=1%3D1&returnCountOnly=true&f=json", 200, &fs)
		if fs.Count == nil || *fs.Count != 26 {
			t.Errorf("count: %+v", fs.Count)
		}
		fs = esriFeatures{}
		arcgisJSON(t, e, "", base+"geometry=174.69,-41.31,174.75,-41.25&returnIdsOnly=true&f=json", 200, &fs)
		if fmt.Sprint(fs.ObjectIDs) != fmt.Sprint(want) {
			t.Errorf("ids: %v, want %v", fs.ObjectIDs, want)
		}
		var ext struct {
			Extent struct{ XMin, YMin, XMax, YMax float64 }
		}
		arcgisJSON(t, e, "", base+"where=1%3D1&returnExtentOnly=true&f=json", 200, &ext)
		if ext.Extent.XMin != 174.70 || ext.Extent.YMax < -41.23 {
			t.Errorf("extent: %+v", ext)
		}
		fs = esriFeatures{}
		arcgisJSON(t, e, "", base+"where=1%3D1&orderByFields=rank+DESC,OBJECTID&outFields=rank&resultRecordCount=3&f=json", 200, &fs)
		if fmt.Sprint(fs.ids()) != "[112 500 106]" || !fs.ExceededTransferLimit {
			t.Errorf("ordered: %v %v", fs.ids(), fs.ExceededTransferLimit)
		}
		fs = esriFeatures{}
		arcgisJSON(t, e, "", base+"where=1%3D1&f=json&groupByFieldsForStatistics=rank&outStatistics="+url.QueryEscape(`[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"},{"statisticType":"max","onStatisticField":"OBJECTID","outStatisticFieldName":"top"}]`), 200, &fs)
		if len(fs.Features) != 5 || fs.Features[0].Attributes["n"].(float64) != 9 || fs.Features[4].Attributes["rank"] != nil {
			t.Errorf("statistics: %+v", fs.Features)
		}
		// Dates as epoch milliseconds; POST form with a token.
		st, b := arcgis(t, e, "", fmt.Sprintf("/services/layer_%d/FeatureServer/0/query", f.events),
			url.Values{"where": {"1=1"}, "outFields": {"*"}, "f": {"json"}, "token": {f.owner.Key}})
		var ev esriFeatures
		if err := json.Unmarshal(b, &ev); st != 200 || err != nil || len(ev.Features) != 6 {
			t.Fatalf("events: %d %s", st, b)
		}
		if w := ev.Features[0].Attributes["when"].(float64); w != 1592222400000 {
			t.Errorf("when: %v", w)
		}
		// Polygons: rings clockwise; the triangle misses the box.
		var pg esriFeatures
		arcgisJSON(t, e, "", fmt.Sprintf("/services/layer_%d/FeatureServer/0/query?geometry=174.80,-41.30,174.90,-41.20&geometryType=esriGeometryEnvelope&outFields=name&f=json", f.polygons), 200, &pg)
		names := map[string]bool{}
		for _, ft := range pg.Features {
			names[ft.Attributes["name"].(string)] = true
			rings := ft.Geometry["rings"].([]any)
			if area := ringArea(rings[0].([]any)); area >= 0 {
				t.Errorf("%v: outer ring counterclockwise", ft.Attributes["name"])
			}
			if len(rings) > 1 && ringArea(rings[1].([]any)) <= 0 {
				t.Errorf("%v: hole clockwise", ft.Attributes["name"])
			}
		}
		if !names["inside"] || !names["cover"] || !names["edge"] || names["triangle miss"] || names["far"] || names["holed"] {
			t.Errorf("polygons: %v", names)
		}
	})
}

// ringArea is the signed area of an Esri ring (negative clockwise).
func ringArea(r []any) float64 {
	a := 0.0
	for i := 0; i+1 < len(r); i++ {
		p, q := r[i].([]any), r[i+1].([]any)
		a += p[0].(float64)*q[1].(float64) - q[0].(float64)*p[1].(float64)
	}
	return a / 2
}
