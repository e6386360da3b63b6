package wfs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/testtier"
)

// mapserv is MapServer's CGI program (scripts/ensure-deps.sh installs
// cgi-mapserver).
const mapserv = "/usr/lib/cgi-bin/mapserv"

func needMapServer(t *testing.T) {
	t.Helper()
	testtier.FullOnly(t, "starts MapServer")
	if _, err := exec.LookPath(mapserv); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatalf("MapServer is missing (%v): run bash scripts/ensure-deps.sh test", err)
		}
		t.Skip("MapServer is missing: run bash scripts/ensure-deps.sh test")
	}
}

// town and parcel are the features the test server serves.
type town struct {
	ID   int
	Name string
	Pop  float64
	X, Y float64
}

type parcel struct {
	ID   int
	Code string
	Ring [][2]float64
}

const (
	townCount   = 25
	parcelCount = 13
	pageCap     = 10 // the server's wfs_maxfeatures
)

// Coordinates have six decimals: MapServer writes GML with six.
func towns() []town {
	var out []town
	for i := 0; i < townCount; i++ {
		out = append(out, town{ID: i + 1, Name: fmt.Sprintf("Town %d ō", i), Pop: float64(i*1000) + 0.25,
			X: 170 + float64(i)*0.123457, Y: -40 - float64(i)*0.076543})
	}
	return out
}

func parcels() []parcel {
	var out []parcel
	for i := 0; i < parcelCount; i++ {
		x, y := 172.5+float64(i)*0.010203, -43.5+float64(i)*0.004321
		out = append(out, parcel{ID: 100 + i, Code: fmt.Sprintf("P-%03d", i),
			Ring: [][2]float64{{x, y}, {x + 0.005, y}, {x + 0.005, y + 0.002}, {x, y + 0.002}, {x, y}}})
	}
	return out
}

func writeGeoJSON(t *testing.T, path string, feats []map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": "FeatureCollection", "features": feats})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// mapfileTemplate names the layers' projection by a PROJ string, not
// "init=epsg:4326": each CGI call starts MapServer afresh, and the init
// form makes each read PROJ's database, which doubles the time of a call;
// wfs_srs still announces EPSG codes.
const mapfileTemplate = `MAP
  NAME "geopubtest"
  EXTENT 160 -50 180 -30
  PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
  %s
  WEB
    METADATA
      "ows_title" "Geopub test"
      "wfs_onlineresource" "http://127.0.0.1/"
      "wfs_srs" "%s"
      "wfs_enable_request" "*"
      "wfs_maxfeatures" "%d"
      "wfs_compute_number_matched" "true"
      %s
    END
  END
  LAYER
    NAME "towns"
    TYPE POINT
    CONNECTIONTYPE OGR
    CONNECTION "%s"
    PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
    METADATA
      "wfs_title" "Towns"
      "gml_include_items" "all"
      "gml_types" "auto"
      "gml_featureid" "id"
    END
  END
  LAYER
    NAME "parcels"
    TYPE POLYGON
    CONNECTIONTYPE OGR
    CONNECTION "%s"
    PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
    METADATA
      "wfs_title" "Parcels"
      "gml_include_items" "all"
      "gml_types" "auto"
      "gml_featureid" "id"
      "gml_geometries" "shape"
      "gml_shape_type" "polygon"
    END
  END
END
`

const geojsonFormat = `OUTPUTFORMAT
    NAME "geojson"
    DRIVER "OGR/GEOJSON"
    MIMETYPE "application/json; subtype=geojson"
    FORMATOPTION "STORAGE=stream"
    FORMATOPTION "FORM=SIMPLE"
  END`

// startMapServer serves the towns and parcels layers through MapServer's
// CGI program on 127.0.0.1: /json offers GeoJSON output, /gml only GML,
// /gml2193 only GML in EPSG:2193 by default.
// wrap, when not nil, wraps each handler (to ask for credentials).
func startMapServer(t *testing.T, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	needMapServer(t)
	dir := t.TempDir()
	var tf, pf []map[string]any
	for _, tw := range towns() {
		tf = append(tf, map[string]any{"type": "Feature", "properties": map[string]any{"id": tw.ID, "name": tw.Name, "pop": tw.Pop},
			"geometry": map[string]any{"type": "Point", "coordinates": []float64{tw.X, tw.Y}}})
	}
	for _, p := range parcels() {
		pf = append(pf, map[string]any{"type": "Feature", "properties": map[string]any{"id": p.ID, "code": p.Code},
			"geometry": map[string]any{"type": "Polygon", "coordinates": [][][2]float64{p.Ring}}})
	}
	townsPath, parcelsPath := filepath.Join(dir, "towns.geojson"), filepath.Join(dir, "parcels.geojson")
	writeGeoJSON(t, townsPath, tf)
	writeGeoJSON(t, parcelsPath, pf)
	conf := filepath.Join(dir, "mapserver.conf")
	if err := os.WriteFile(conf, []byte("CONFIG\nEND\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, v := range []struct{ name, format, srs, formats string }{
		{"json", geojsonFormat, "EPSG:4326 EPSG:3857", `"wfs_getfeature_formatlist" "gml3,geojson"`},
		{"gml", "", "EPSG:4326 EPSG:3857", ""},
		{"gml2193", "", "EPSG:2193 EPSG:4326", ""}, // NZTM: northing first in EPSG's axis order
	} {
		mapfile := filepath.Join(dir, v.name+".map")
		text := fmt.Sprintf(mapfileTemplate, v.format, v.srs, pageCap, v.formats, townsPath, parcelsPath)
		if err := os.WriteFile(mapfile, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var h http.Handler = &cgi.Handler{Path: mapserv, Root: "/" + v.name,
			Env: []string{"MAPSERVER_CONFIG_FILE=" + conf, "MS_MAPFILE=" + mapfile}}
		if wrap != nil {
			h = wrap(h)
		}
		mux.Handle("/"+v.name, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// loopback is a fetch client allowed to reach 127.0.0.1.
func loopback() *fetch.Client {
	return &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
}
