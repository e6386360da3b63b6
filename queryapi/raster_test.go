package queryapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// The raster fixture: 40×40 cells of 100 m in NZTM (EPSG:2193) around
// Wellington's Beehive, three Float32 bands: "height" with nodata -9999
// cells on a scattered pattern, "slope", and "flag" with NaN cells. (A
// GeoTIFF keeps one nodata value for all its bands.)
const (
	gridW, gridH = 40, 40
	gridNoData   = -9999.0
)

var gridGT = [6]float64{1747000, 100, 0, 5430000, 0, -100}

func heightAt(col, row int) float64 {
	if (col*7+row*3)%11 == 0 {
		return gridNoData
	}
	return float64(col)*1.5 + float64(row)*0.25 + 0.1
}

func writeFixtureGrid(t *testing.T) string {
	tif := filepath.Join(t.TempDir(), "wellington.tif")
	nd := gridNoData
	ingesttest.Grid(t, tif, 2193, gridW, gridH, gridGT, []ingesttest.GridBand{
		{Name: "height", Type: godal.Float32, NoData: &nd, Value: heightAt},
		{Name: "slope", Value: func(col, row int) float64 { return float64(row) - float64(col)/3 }},
		{Name: "flag", Value: func(col, row int) float64 {
			if col == row {
				return math.NaN()
			}
			return float64(col % 4)
		}},
	})
	return tif
}

type rasterBand struct {
	Band   int      `json:"band"`
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	NoData *float64 `json:"nodata"`
	Value  *float64 `json:"value"`
}

type rasterLayer struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Type  string `json:"type"`
	Error string `json:"error"`
	CRS   struct {
		Properties struct{ Name string }
	} `json:"crs"`
	Inside bool `json:"inside"`
	Cell   *struct {
		Column int `json:"column"`
		Row    int `json:"row"`
	} `json:"cell"`
	Bands []rasterBand `json:"bands"`
}

type rasterResult struct {
	RasterQuery struct {
		Layers map[string]rasterLayer `json:"layers"`
	} `json:"rasterQuery"`
}

func rasterQuery(t *testing.T, e *env, key string, lon, lat float64, layers ...int) (*http.Response, rasterResult, []byte) {
	t.Helper()
	p := url.Values{"key": {key}, "x": {fmt.Sprint(lon)}, "y": {fmt.Sprint(lat)}}
	for _, l := range layers {
		p.Add("layer", fmt.Sprint(l))
	}
	resp, body := get(t, e, "/services/query/v1/raster.json", p, nil)
	var r rasterResult
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	return resp, r, body
}

// gdalValues reads every band at lon/lat with GDAL's own
// gdallocationinfo: the reference. ok is false off the grid.
func gdalValues(t *testing.T, file string, lon, lat float64) ([]float64, bool) {
	t.Helper()
	out, err := exec.Command("gdallocationinfo", "-valonly", "-wgs84", file, strconv.FormatFloat(lon, 'f', -1, 64), strconv.FormatFloat(lat, 'f', -1, 64)).CombinedOutput()
	if err != nil || strings.Contains(string(out), "off this file") {
		return nil, false
	}
	var vals []float64
	for _, line := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatalf("gdallocationinfo printed %q", out)
		}
		vals = append(vals, v)
	}
	return vals, len(vals) > 0
}

// Issue acceptance: the value of every band of a grid layer at a point,
// with nodata handled, checked against GDAL's gdallocationinfo at random
// points on and around a grid in another CRS than the query's.
func TestRasterQueryMatchesGDAL(t *testing.T) {
	if _, err := exec.LookPath("gdallocationinfo"); err != nil {
		t.Fatal("gdallocationinfo (gdal-bin) is required: make deps")
	}
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		reader := e.NewUser(t, "Reader")
		g := publishGrid(t, e, owner.User, "Wellington heights", writeFixtureGrid(t))
		id, cog, ext := g.id, g.file, g.extent
		rng := rand.New(rand.NewPCG(6, 7))
		inside, nodata, nan := 0, 0, 0
		for i := 0; i < 60; i++ {
			// Around the grid: a tenth of its size beyond each edge.
			w, h := ext[2]-ext[0], ext[3]-ext[1]
			lon := ext[0] - w/10 + rng.Float64()*w*1.2
			lat := ext[1] - h/10 + rng.Float64()*h*1.2
			resp, r, body := rasterQuery(t, e, reader.Key, lon, lat, id)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.geopub.rasterQuery+json") {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			got := r.RasterQuery.Layers[fmt.Sprint(id)]
			if got.ID != id || got.Title != "Wellington heights" || got.Type != "grid" || got.CRS.Properties.Name != "EPSG:2193" || len(got.Bands) != 3 {
				t.Fatalf("layer %s", body)
			}
			if got.Bands[0].Name != "height" || got.Bands[0].Type != "Float32" || got.Bands[0].NoData == nil || *got.Bands[0].NoData != gridNoData {
				t.Fatalf("bands %s", body)
			}
			want, on := gdalValues(t, cog, lon, lat)
			if on != got.Inside {
				t.Fatalf("(%f, %f): inside %v, GDAL %v: %s", lon, lat, got.Inside, want, body)
			}
			if !on {
				for _, b := range got.Bands {
					if b.Value != nil {
						t.Fatalf("off the grid, band %d has %v", b.Band, *b.Value)
					}
				}
				continue
			}
			inside++
			if got.Cell == nil || got.Cell.Column < 0 || got.Cell.Column >= gridW {
				t.Fatalf("cell %s", body)
			}
			for b, w := range want {
				v := got.Bands[b].Value
				switch {
				case b == 0 && w == gridNoData:
					nodata++
					if v != nil {
						t.Fatalf("nodata cell answered %v", *v)
					}
				case math.IsNaN(w):
					nan++
					if v != nil {
						t.Fatalf("NaN cell answered %v", *v)
					}
				case v == nil || math.Abs(*v-w) > 1e-4*math.Max(1, math.Abs(w)):
					t.Fatalf("(%f, %f) band %d: %v, GDAL %v", lon, lat, b+1, v, w)
				}
			}
		}
		if inside < 30 || nodata == 0 {
			t.Fatalf("the random points covered too little: %d inside, %d nodata, %d NaN", inside, nodata, nan)
		}
	})
}

func TestRasterQueryFormatsAndAccess(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		reader := e.NewUser(t, "Reader")
		id := publishGrid(t, e, owner.User, "Heights", writeFixtureGrid(t)).id
		vector := publishLayer(t, e, owner.User, "Points", "point", []string{"name"}, []feature{{1, pt(cLon, cLat), map[string]any{"name": "here"}}})
		p := url.Values{"key": {reader.Key}, "layer": {fmt.Sprint(id)}, "x": {fmt.Sprint(cLon)}, "y": {fmt.Sprint(cLat)}}

		// Float32 values come back at float32 precision (12.35, not
		// 12.350000381469727); the suffix-less path negotiates by Accept.
		resp, body := get(t, e, "/services/query/v1/raster", p, map[string]string{"Accept": "application/vnd.geopub.rasterQuery.1+json"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.geopub.rasterQuery+json; version=1.0" {
			t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if strings.Contains(string(body), "0000") {
			t.Fatalf("float32 values printed at float64 precision: %s", body)
		}
		for _, c := range []struct {
			path   string
			accept string
			v      string
			status int
		}{
			{"/services/query/v1/raster.json", "", "1", http.StatusOK},
			{"/services/query/v1/raster.json", "", "2", http.StatusBadRequest},
			{"/services/query/v1/raster", "application/vnd.geopub.rasterQuery+xml", "", http.StatusNotAcceptable},
			{"/services/query/v1/raster.xml", "", "", http.StatusNotFound},
		} {
			q := url.Values{}
			for k, v := range p {
				q[k] = v
			}
			if c.v != "" {
				q.Set("v", c.v)
			}
			if resp, body := get(t, e, c.path, q, map[string]string{"Accept": c.accept}); resp.StatusCode != c.status {
				t.Fatalf("%s Accept %q v=%s: %d %s", c.path, c.accept, c.v, resp.StatusCode, body)
			}
		}

		// gzip when asked for.
		resp, zipped := get(t, e, "/services/query/v1/raster.json", p, map[string]string{"Accept-Encoding": "gzip"})
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(zipped))
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := io.ReadAll(zr)
			if !json.Valid(plain) {
				t.Fatalf("gzipped body %q", plain)
			}
		} else if !json.Valid(zipped) {
			t.Fatalf("body %q", zipped)
		}

		// JSONP: the body wrapped, and errors as 200 strings.
		q := url.Values{"callback": {"show"}}
		for k, v := range p {
			q[k] = v
		}
		resp, body = get(t, e, "/services/query/v1/raster.json", q, nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "/**/show({\"rasterQuery\"") {
			t.Fatalf("jsonp %d %s", resp.StatusCode, body)
		}
		q.Set("x", "500")
		resp, body = get(t, e, "/services/query/v1/raster.json", q, nil)
		if resp.StatusCode != http.StatusOK || string(body) != `/**/show("x must be a number from -180 to 180, not \"500\"");` {
			t.Fatalf("jsonp error %d %s", resp.StatusCode, body)
		}

		// Bad input: 400 with a message.
		for name, bad := range map[string]url.Values{
			"no layer": {"key": {reader.Key}, "x": {"174"}, "y": {"-41"}},
			"no y":     {"key": {reader.Key}, "layer": {fmt.Sprint(id)}, "x": {"174"}},
			"bad lat":  {"key": {reader.Key}, "layer": {fmt.Sprint(id)}, "x": {"174"}, "y": {"-91"}},
			"bad id":   {"key": {reader.Key}, "layer": {"abc"}, "x": {"174"}, "y": {"-41"}},
		} {
			resp, body := get(t, e, "/services/query/v1/raster.json", bad, nil)
			var msg struct{ Error string }
			if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &msg) != nil || msg.Error == "" {
				t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
			}
		}

		// Auth: no key 401, a key without the query scope 401.
		noKey := url.Values{"layer": {fmt.Sprint(id)}, "x": {"174"}, "y": {"-41"}}
		if resp, _ := get(t, e, "/services/query/v1/raster.json", noKey, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("no key: %d", resp.StatusCode)
		}
		noKey.Set("key", e.Token(t, reader.User, "tiles"))
		if resp, body := get(t, e, "/services/query/v1/raster.json", noKey, nil); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Accepted-OAuth-Scopes") != "query" {
			t.Fatalf("wrong scope: %d %s", resp.StatusCode, body)
		}

		// A vector layer, an unknown layer and a private grid answer alike;
		// with one good layer beside them the status stays 200.
		_, _, unknown := rasterQuery(t, e, reader.Key, cLon, cLat, 99999)
		resp, _, notGrid := rasterQuery(t, e, reader.Key, cLon, cLat, vector)
		if resp.StatusCode != http.StatusNotFound || string(notGrid) != strings.Replace(string(unknown), "99999", fmt.Sprint(vector), 1) {
			t.Fatalf("vector layer %d %s vs unknown %s", resp.StatusCode, notGrid, unknown)
		}
		resp, r, body := rasterQuery(t, e, reader.Key, cLon, cLat, id, 99999)
		if resp.StatusCode != http.StatusOK || r.RasterQuery.Layers["99999"].Error == "" || r.RasterQuery.Layers[fmt.Sprint(id)].Error != "" {
			t.Fatalf("mixed %d %s", resp.StatusCode, body)
		}
		apiCall(t, e, owner.Key, "PUT", fmt.Sprintf("/layers/%d/permissions/", id), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, owner.ID), http.StatusOK)
		waitFresh()
		resp, _, private := rasterQuery(t, e, reader.Key, cLon, cLat, id)
		if resp.StatusCode != http.StatusNotFound || string(private) != strings.Replace(string(unknown), "99999", fmt.Sprint(id), 1) {
			t.Fatalf("private %d %s", resp.StatusCode, private)
		}
		// The owner queries it until spatial-query-grid is turned off.
		if resp, _, body := rasterQuery(t, e, owner.Key, cLon, cLat, id); resp.StatusCode != http.StatusOK {
			t.Fatalf("owner %d %s", resp.StatusCode, body)
		}
		apiCall(t, e, owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/spatial-query-grid/", id), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		if resp, _, body := rasterQuery(t, e, owner.Key, cLon, cLat, id); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("disabled %d %s", resp.StatusCode, body)
		}
	})
}
