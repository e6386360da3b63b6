package ogc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// TestTimesServedAsTimes covers issue 24's point 10 for times of day on
// both stores: a time field is declared a time in every door (WFS
// xsd:time, OGC API queryables format time), served as "12:34:56",
// filtered as text, and typed Time by GDAL and 'time' by OWSLib, not
// String.
func TestTimesServedAsTimes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		auth := map[string]string{"Authorization": "key " + owner.Key}
		id := publish(t, e, owner.User, layer.TypeLayer, "Opening times", "point",
			[]schematype.Field{{Name: "name", Type: "string"}, {Name: "opens", Type: "time"}},
			[]feature{
				{1, pt(174.7, -41.3), map[string]any{"name": "one", "opens": "12:34:56"}},
				{2, pt(174.8, -41.2), map[string]any{"name": "two", "opens": "01:02:03.25"}},
				{3, pt(174.9, -41.1), map[string]any{"name": "three"}},
			})
		typ := wfsName("layer", id)
		items := "/services/ogc/features/collections/" + layerID(id) + "/items"
		getFeature := "/services/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=" + typ

		// Values: "12:34:56" strings in OGC API Features and WFS GeoJSON,
		// the same text in GML.
		fids := func(t *testing.T, u string) []int64 {
			t.Helper()
			resp, b := fetch(t, e, u, auth)
			var fc struct {
				Features []struct {
					ID         any
					Properties map[string]any
				}
			}
			if err := json.Unmarshal(b, &fc); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %s", u, resp.StatusCode, b)
			}
			var out []int64
			for _, f := range fc.Features {
				if f.Properties["name"] == "one" && f.Properties["opens"] != "12:34:56" {
					t.Errorf("%s: opens %v", u, f.Properties["opens"])
				}
				out = append(out, map[any]int64{"one": 1, "two": 2, "three": 3}[f.Properties["name"]])
			}
			return out
		}
		for _, u := range []string{items, getFeature + "&OUTPUTFORMAT=application/json"} {
			if got := fids(t, u); len(got) != 3 {
				t.Errorf("%s: %v", u, got)
			}
		}
		if resp, b := fetch(t, e, getFeature, auth); resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(">12:34:56<")) ||
			!bytes.Contains(b, []byte(">01:02:03.25<")) {
			t.Errorf("GML: %d %s", resp.StatusCode, b)
		}

		// Declared types: xsd:time, and the queryables' format time.
		if resp, b := fetch(t, e, "/services/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES="+typ, auth); resp.StatusCode != http.StatusOK ||
			!bytes.Contains(b, []byte(`name="opens"`)) || !bytes.Contains(b, []byte(`type="xsd:time"`)) {
			t.Errorf("DescribeFeatureType: %d %s", resp.StatusCode, b)
		}
		resp, b := fetch(t, e, "/services/ogc/features/collections/"+layerID(id)+"/queryables", auth)
		var q struct {
			Properties map[string]map[string]any
		}
		if err := json.Unmarshal(b, &q); err != nil || q.Properties["opens"]["type"] != "string" || q.Properties["opens"]["format"] != "time" {
			t.Errorf("queryables: %d %s", resp.StatusCode, b)
		}

		// Filters: a time field compared with a time as text, in CQL2
		// (text and JSON) and FES; a FES literal that is no time is a 400.
		for filter, want := range map[string][]int64{
			"opens >= '12:00:00'":                     {1},
			"opens < '12:00:00'":                      {2},
			"opens = '12:34:56'":                      {1},
			"opens BETWEEN '01:00:00' AND '13:00:00'": {1, 2},
		} {
			if got := fids(t, items+"?filter-lang=cql2-text&filter="+url.QueryEscape(filter)); !slices.Equal(got, want) {
				t.Errorf("CQL2 %s: %v, want %v", filter, got, want)
			}
		}
		if got := fids(t, items+"?filter-lang=cql2-json&filter="+url.QueryEscape(`{"op":"<","args":[{"property":"opens"},"12:00:00"]}`)); !slices.Equal(got, []int64{2}) {
			t.Errorf("CQL2 JSON opens < 12:00:00: %v", got)
		}
		fes := func(lit string) string {
			return getFeature + "&OUTPUTFORMAT=application/json&FILTER=" + url.QueryEscape(fesFilter(
				`<fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>opens</fes:ValueReference><fes:Literal>`+lit+`</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>`))
		}
		for lit, want := range map[string][]int64{"12:00:00": {1}, "01:02:03.250": {1, 2}, "1:02:03.26": {1}} {
			if got := fids(t, fes(lit)); !slices.Equal(got, want) {
				t.Errorf("FES opens >= %s: %v, want %v", lit, got, want)
			}
		}
		if resp, b := fetch(t, e, fes("25:00:00"), auth); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("FES opens >= 25:00:00: %d %s", resp.StatusCode, b)
		}

		// MVT: the time as a string property.
		if resp, tile := fetch(t, e, tilePath("layer", id, 0, 0, 0), auth); resp.StatusCode != http.StatusOK || !bytes.Contains(tile, []byte("12:34:56")) {
			t.Errorf("tile: %d %q", resp.StatusCode, tile)
		}

		// GDAL types the field Time through both doors.
		ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
		for _, src := range []string{
			"OAPIF:" + e.HTTP.URL + "/services/ogc/features?key=" + owner.Key,
			"WFS:" + e.HTTP.URL + "/services/wfs/?VERSION=2.0.0&key=" + owner.Key,
		} {
			name := layerID(id)
			if strings.HasPrefix(src, "WFS") {
				name = typ
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, ogrinfo, "-ro", src, name)
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30")
			b, err := cmd.CombinedOutput()
			cancel()
			out := string(b)
			if err != nil || !strings.Contains(out, "opens: Time") || !strings.Contains(out, "opens (Time) = 12:34:56") {
				t.Errorf("ogrinfo %s: %v\n%s", src, err, out)
			}
		}

		// OWSLib reads the WFS schema's type as time.
		python := requireTool(t, "/usr/bin/python3", "python3-owslib")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b, err := exec.CommandContext(ctx, python, "-W", "ignore", "-c", `
import json, sys
from owslib.feature.schema import get_schema
print(json.dumps(get_schema(sys.argv[1], sys.argv[2], version="2.0.0")["properties"]))
`, e.HTTP.URL+"/services/wfs/?key="+owner.Key, typ).CombinedOutput()
		var props map[string]string
		if err != nil || json.Unmarshal(b, &props) != nil || props["opens"] != "time" || props["name"] != "string" {
			t.Errorf("OWSLib schema: %v %s", err, b)
		}
	})
}
