package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// TestProjectedBBoxAndDates covers boxes in a projected CRS (every door)
// and WFS date literals as GDAL writes them.
func TestProjectedBBoxAndDates(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		t.Run("wfs dates without zone", func(t *testing.T) { testWFSDatesWithoutZone(t, f) })
		t.Run("projected bbox", func(t *testing.T) { testProjectedBBox(t, f) })
	})
}

// xsd:dateTime has an optional zone; a literal without one is read as
// UTC. GDAL sends "d >= '2024-06-01'" on a dateTime field as
// 2024-06-01T00:00:00.
func testWFSDatesWithoutZone(t *testing.T, f *fixture) {
	dated := publish(t, f.e, f.owner.User, layer.TypeLayer, "Dated", "point",
		[]schematype.Field{{Name: "name", Type: "string"}, {Name: "d", Type: "datetime"}},
		[]feature{
			{1, pt(174.7, -41.3), map[string]any{"name": "May", "d": time.Date(2024, 5, 31, 23, 0, 0, 0, time.UTC)}},
			{2, pt(174.7, -41.3), map[string]any{"name": "June", "d": time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}},
			{3, pt(174.7, -41.3), map[string]any{"name": "July", "d": time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)}},
		})
	typ := wfsName("layer", dated)
	for lit, want := range map[string][]int64{
		"2024-06-01T00:00:00":     {2, 3},
		"2024-06-01T00:00:00.000": {2, 3},
		"2024-06-01T00:00:00Z":    {2, 3},
		"2024-06-01T12:00:00":     {3},
		"2024-06-01":              {2, 3},
	} {
		got := f.fids(t, typ, "FILTER", fesFilter(`<fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>d</fes:ValueReference><fes:Literal>`+lit+`</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>`))
		if !slices.Equal(got, want) {
			t.Errorf("d >= %s: %v, want %v", lit, got, want)
		}
	}
	// Not a date at all is still a 400.
	f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "FILTER",
		fesFilter(`<fes:PropertyIsEqualTo><fes:ValueReference>d</fes:ValueReference><fes:Literal>2024-06-01T25:00:00</fes:Literal></fes:PropertyIsEqualTo>`)).
		exception(t, 400, "InvalidParameterValue")

	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	for _, version := range []string{"2.0.0", "1.1.0"} {
		out := filepath.Join(t.TempDir(), "out.geojson")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, ogr2ogr, "-f", "GeoJSON", "-where", "d >= '2024-06-01'", out,
			"WFS:"+f.e.HTTP.URL+"/services/wfs/?VERSION="+version+"&key="+f.reader.Key, typ)
		cmd.Env = append(os.Environ(), "CPL_DEBUG=ON", "GDAL_HTTP_TIMEOUT=30")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("ogr2ogr %s: %v\n%s", version, err, b)
		}
		// The literal as GDAL writes it, zone-less.
		if dec, _ := url.QueryUnescape(string(b)); !strings.Contains(string(b), "FILTER=") || !strings.Contains(dec, ">2024-06-01T00:00:00<") {
			t.Errorf("%s: GDAL did not send the filter with 2024-06-01T00:00:00:\n%s", version, b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var fc struct {
			Features []struct{ Properties struct{ Name string } }
		}
		if err := json.Unmarshal(raw, &fc); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ft := range fc.Features {
			names = append(names, ft.Properties.Name)
		}
		if fmt.Sprint(names) != "[June July]" {
			t.Errorf("%s: GDAL read %v, want [June July]", version, names)
		}
	}
}

// A box in NZTM (EPSG:2193) is turned about 1.2° from the meridians:
// the corners of the CRS84 envelope of its corners are outside it, and
// so outside the filter, in every door; its middle is inside.
func testProjectedBBox(t *testing.T, f *fixture) {
	const minE, minN, maxE, maxN = 1740000, 5420000, 1750000, 5430000
	c := gdalTransform(t, 2193, 4326, []float64{minE, minN, maxE, minN, maxE, maxN, minE, maxN, (minE + maxE) / 2, (minN + maxN) / 2})
	env := [4]float64{c[0], c[1], c[0], c[1]}
	for i := 2; i < 8; i += 2 {
		env = [4]float64{min(env[0], c[i]), min(env[1], c[i+1]), max(env[2], c[i]), max(env[3], c[i+1])}
	}
	const d = 1e-5 // about a metre
	probes := []feature{{1, pt(c[8], c[9]), map[string]any{"name": "middle"}}}
	for i, p := range [][2]float64{{env[0] + d, env[1] + d}, {env[2] - d, env[1] + d}, {env[2] - d, env[3] - d}, {env[0] + d, env[3] - d}} {
		// The premise: outside the box in NZTM.
		xy := gdalReproject(t, 2193, []float64{p[0], p[1]})
		if xy[0] >= minE && xy[0] <= maxE && xy[1] >= minN && xy[1] <= maxN {
			t.Fatalf("corner %v is inside the NZTM box: %v", p, xy)
		}
		probes = append(probes, feature{int64(i + 2), pt(p[0], p[1]), map[string]any{"name": fmt.Sprintf("corner %d", i)}})
	}
	id := publish(t, f.e, f.owner.User, layer.TypeLayer, "NZTM probes", "point", []schematype.Field{{Name: "name", Type: "string"}}, probes)
	want := []int64{1}

	nztm := url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/2193")
	got := f.ids(t, "/collections/"+layerID(id)+"/items?bbox=5420000,1740000,5430000,1750000&bbox-crs="+nztm)
	if !slices.Equal(got, want) {
		t.Errorf("OGC API bbox-crs EPSG:2193: %v, want %v", got, want)
	}
	typ := wfsName("layer", id)
	for _, p := range [][]string{
		{"BBOX", "5420000,1740000,5430000,1750000,urn:ogc:def:crs:EPSG::2193"},
		{"BBOX", "1740000,5420000,1750000,5430000,EPSG:2193"},
		{"FILTER", fesFilter(`<fes:BBOX><fes:ValueReference>GEOMETRY</fes:ValueReference><gml:Envelope srsName="urn:ogc:def:crs:EPSG::2193"><gml:lowerCorner>5420000 1740000</gml:lowerCorner><gml:upperCorner>5430000 1750000</gml:upperCorner></gml:Envelope></fes:BBOX>`)},
	} {
		if got := f.fids(t, typ, p...); !slices.Equal(got, want) {
			t.Errorf("WFS 2.0 %s: %v, want %v", p[1], got, want)
		}
	}
	var fc wfsJSON
	f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "1.1.0", "TYPENAME", typ, "OUTPUTFORMAT", "application/json",
		"BBOX", "1740000,5420000,1750000,5430000,EPSG:2193").json(t, 200, "application/json", &fc)
	if len(fc.Features) != 1 || !strings.HasSuffix(fc.Features[0].ID, ".1") {
		t.Errorf("WFS 1.1 BBOX: %d features", len(fc.Features))
	}
}
