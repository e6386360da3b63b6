package arcgis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/arcgis"
)

// A layer in Web Mercator (wkid 102100) as ArcGIS Server describes it:
// EPSG:3857, its extent in lon/lat, polygons copied in their own CRS, and
// a server that stops short of the page size asked for (exceededTransferLimit).
func TestArcGISWebMercator(t *testing.T) {
	const n = 7
	ring := func(i int) [][2]float64 {
		x, y := 19447000.0+float64(i)*1000.5, -5012000.0-float64(i)*700.25
		return [][2]float64{{x, y}, {x, y + 500}, {x + 500, y + 500}, {x + 500, y}, {x, y}}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case strings.HasSuffix(r.URL.Path, "/rest/services"):
			fmt.Fprint(w, `{"folders":[],"services":[{"name":"Parcels","type":"MapServer"}]}`)
		case strings.HasSuffix(r.URL.Path, "/MapServer"):
			fmt.Fprint(w, `{"layers":[{"id":3,"name":"Parcels"}],"tables":[]}`)
		case strings.HasSuffix(r.URL.Path, "/MapServer/3"):
			fmt.Fprint(w, `{"id":3,"name":"Parcels","type":"Feature Layer","geometryType":"esriGeometryPolygon","objectIdField":"OBJECTID",
"maxRecordCount":3,"capabilities":"Map,Query,Data","advancedQueryCapabilities":{"supportsPagination":true},
"editingInfo":{"lastEditDate":1700000000000},
"extent":{"xmin":19447000,"ymin":-5017000,"xmax":19454500,"ymax":-5011500,"spatialReference":{"wkid":102100,"latestWkid":3857}},
"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"Shape","type":"esriFieldTypeGeometry"},{"name":"area","type":"esriFieldTypeDouble"}]}`)
		case q.Get("returnCountOnly") == "true":
			fmt.Fprintf(w, `{"count":%d}`, n)
		default:
			off, _ := strconv.Atoi(q.Get("resultOffset"))
			size, _ := strconv.Atoi(q.Get("resultRecordCount"))
			size = min(size, 2) // the server sends fewer than asked
			var feats []string
			for i := off; i < min(off+size, n); i++ {
				rings, _ := json.Marshal([][][2]float64{ring(i)})
				feats = append(feats, fmt.Sprintf(`{"attributes":{"OBJECTID":%d,"area":%d.5},"geometry":{"rings":%s}}`, i+1, i, rings))
			}
			fmt.Fprintf(w, `{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPolygon","spatialReference":{"wkid":102100,"latestWkid":3857},
"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"area","type":"esriFieldTypeDouble"}],
"features":[%s],"exceededTransferLimit":%v}`, strings.Join(feats, ","), off+size < n)
		}
	}))
	defer srv.Close()
	gdal.Init()
	c := remote.Conn{URL: srv.URL + "/arcgis/rest/services", SSLVerify: true, Fetch: loopback()}
	ds, err := arcgis.Kind{}.Discover(context.Background(), c, func(string) {})
	if err != nil || len(ds) != 1 {
		t.Fatalf("Discover: %v %+v", err, ds)
	}
	d := ds[0]
	if d.Path != "Parcels/MapServer/3" || d.CRS != "EPSG:3857" || d.GeometryType != "multipolygon" || d.FeatureCount != n ||
		d.GeometryField != "Shape" || d.Extent == nil || math.Abs(d.Extent[0]-174.695) > 0.01 || math.Abs(d.Extent[1]+41.05) > 0.05 {
		t.Fatalf("datasource %+v extent %v", d, d.Extent)
	}
	dir := t.TempDir()
	file, layer, err := arcgis.Kind{}.Fetch(context.Background(), c, d.Path, dir, func(float64) {})
	if err != nil {
		t.Fatal(err)
	}
	got := readBack(t, filepath.Join(dir, file), layer)
	if len(got) != n {
		t.Fatalf("fetched %d features", len(got))
	}
	gds, _ := godal.Open(filepath.Join(dir, file), godal.VectorOnly())
	if code := gds.Layers()[0].SpatialRef().AuthorityCode(""); code != "3857" {
		t.Errorf("fetched CRS %q", code)
	}
	gds.Close()
	for i := 0; i < n; i++ {
		var want []float64
		for _, p := range ring(i) {
			want = append(want, p[0], p[1])
		}
		g := got[i+1]
		if g.fields["area"] != float64(i)+0.5 {
			t.Errorf("feature %d: %v", i+1, g.fields)
		}
		near(t, i+1, g.coords, want)
	}
}
