package rest_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
)

// exportData is the published data the export tests export: points and
// polygons around Wellington and a table, with the geometries as WKT for
// PostGIS.
type exportData struct {
	owner                *user
	points, polys, table string // item URLs
	pointIDs             [2]int // layer id, version id
	pointWKT, polyWKT    []string
}

// cropWKT is the crop area (EPSG:4326): a pentagon over part of the data.
const cropWKT = "POLYGON ((174.72 -41.33, 174.85 -41.34, 174.88 -41.27, 174.80 -41.22, 174.73 -41.25, 174.72 -41.33))"

// cropGeoJSON is cropWKT as the extent of a request.
var cropGeoJSON = map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{
	{174.72, -41.33}, {174.85, -41.34}, {174.88, -41.27}, {174.80, -41.22}, {174.73, -41.25}, {174.72, -41.33}}}}

// publishExportData uploads, imports and publishes two layers and a table.
func publishExportData(t *testing.T, e *env) *exportData {
	t.Helper()
	d := &exportData{owner: e.NewUser(t, "Exporter")}
	var pts, polys []string
	for i := range 300 {
		x, y := 174.70+float64(i%20)*0.0105, -41.36+float64(i/20)*0.0105
		d.pointWKT = append(d.pointWKT, fmt.Sprintf("POINT (%g %g)", x, y))
		pts = append(pts, fmt.Sprintf(`{"type":"Feature","properties":{"name":"site %d","n":%d,"height":%g},"geometry":{"type":"Point","coordinates":[%g,%g]}}`,
			i, i, float64(i)/4, x, y))
	}
	for i := range 120 {
		x, y := 174.705+float64(i%12)*0.017, -41.355+float64(i/12)*0.0145
		w := 0.006
		d.polyWKT = append(d.polyWKT, fmt.Sprintf("POLYGON ((%[1]g %[2]g, %[3]g %[2]g, %[3]g %[4]g, %[1]g %[4]g, %[1]g %[2]g))", x, y, x+w, y+w))
		polys = append(polys, fmt.Sprintf(`{"type":"Feature","properties":{"parcel":"P%d","area":%d},"geometry":{"type":"Polygon","coordinates":[[[%[3]g,%[4]g],[%[5]g,%[4]g],[%[5]g,%[6]g],[%[3]g,%[6]g],[%[3]g,%[4]g]]]}}`,
			i, i*10, x, y, x+w, y+w))
	}
	fc := func(fs []string) []byte {
		return []byte(`{"type":"FeatureCollection","features":[` + strings.Join(fs, ",") + `]}`)
	}
	src := upload(t, e, d.owner.Key, map[string][]byte{
		"sites.geojson":   fc(pts),
		"parcels.geojson": fc(polys),
		"codes.csv":       []byte("code,label,weight\nA,Alpha,1\nB,Beta,2\nC,Gamma,3\nD,Delta,4\nE,Epsilon,5\n"),
	})
	if sc := waitScan(t, e, d.owner.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, d.owner.Key, src.ID)
	urlOf := func(id int) string {
		l := e.Store.Client.Layer.GetX(t.Context(), id)
		kind := "layers"
		if l.Type == layer.TypeTable {
			kind = "tables"
		}
		return fmt.Sprintf("%s/%s/%d/", e.API, kind, id)
	}
	pid := publishLayerFrom(t, e, d.owner, "NZ Sites", ds["sites.geojson"].ID)
	d.points = urlOf(pid)
	d.pointIDs = [2]int{pid, *e.Store.Client.Layer.GetX(t.Context(), pid).PublishedVersionID}
	d.polys = urlOf(publishLayerFrom(t, e, d.owner, "NZ Parcels", ds["parcels.geojson"].ID))
	d.table = urlOf(publishLayerFrom(t, e, d.owner, "Codes", ds["codes.csv"].ID))
	if !strings.Contains(d.table, "/tables/") {
		t.Fatalf("the CSV became %s, want a table", d.table)
	}
	return d
}

// exportRecord is an export as REST renders it.
type exportRecord struct {
	ID                 int               `json:"id"`
	URL                string            `json:"url"`
	Name               string            `json:"name"`
	State              string            `json:"state"`
	CreatedVia         string            `json:"created_via"`
	DownloadURL        *string           `json:"download_url"`
	Progress           *float64          `json:"progress"`
	Formats            map[string]string `json:"formats"`
	Items              []map[string]any  `json:"items"`
	CRS                *string           `json:"crs"`
	Extent             any               `json:"extent"`
	SizeEstimateZipped int64             `json:"size_estimate_zipped"`
	Error              *string           `json:"error"`
	Delivery           map[string]string `json:"delivery"`
}

// validationRecord is a validation body.
type validationRecord struct {
	IsValid            bool     `json:"is_valid"`
	InvalidReasons     []string `json:"invalid_reasons"`
	SizeEstimateZipped int64    `json:"size_estimate_zipped"`
	Items              []struct {
		Item           string         `json:"item"`
		License        map[string]any `json:"license"`
		Price          string         `json:"price"`
		IsValid        bool           `json:"is_valid"`
		InvalidReasons []string       `json:"invalid_reasons"`
		Detail         []string       `json:"invalid_reasons_detail"`
		FeatureCount   int64          `json:"feature_count"`
	} `json:"items"`
}

// reasonsOf returns the reasons of the item with url, failing when absent:
// each code with its detail, "code: detail".
func (v validationRecord) reasonsOf(t *testing.T, url string) []string {
	t.Helper()
	for _, it := range v.Items {
		if it.Item == url {
			if len(it.Detail) != len(it.InvalidReasons) {
				t.Fatalf("item %s: codes %q, details %q", url, it.InvalidReasons, it.Detail)
			}
			out := []string{}
			for i, c := range it.InvalidReasons {
				out = append(out, c+": "+it.Detail[i])
			}
			return out
		}
	}
	t.Fatalf("no item %s in %+v", url, v)
	return nil
}

// hasReason reports whether one of reasons starts with word.
func hasReason(reasons []string, word string) bool {
	for _, r := range reasons {
		if strings.HasPrefix(r, word) {
			return true
		}
	}
	return false
}

// createExport posts a request and returns the export's URL.
func createExport(t *testing.T, e *env, key string, body map[string]any) string {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/exports/", Key: key, Body: body})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if len(bytes.TrimSpace(r.Body)) != 0 {
		t.Fatalf("create answered a body: %s", r.Body)
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, "http") || !strings.Contains(loc, "/exports/") {
		t.Fatalf("Location %q", loc)
	}
	return loc
}

// waitExport polls an export until it leaves processing.
func waitExport(t *testing.T, e *env, key, url string) exportRecord {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		x := doJSON[exportRecord](t, e, req{Path: url, Key: key}, http.StatusOK)
		if x.State != "processing" {
			return x
		}
		if time.Now().After(deadline) {
			t.Fatalf("export did not finish: %+v", x)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// download fetches a complete export's zip and unpacks it into a folder.
func download(t *testing.T, e *env, key string, x exportRecord) (dir string, body []byte) {
	t.Helper()
	r := e.Do(t, req{Path: *x.DownloadURL, Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("download: %d %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd, want := r.Header.Get("Content-Disposition"), "attachment; filename="+x.Name+".zip"; cd != want {
		t.Errorf("Content-Disposition %q, want %q", cd, want)
	}
	if cl := r.Header.Get("Content-Length"); cl != fmt.Sprint(len(r.Body)) {
		t.Errorf("Content-Length %q for %d bytes", cl, len(r.Body))
	}
	zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		t.Fatalf("the download is not a zip: %v", err)
	}
	dir = t.TempDir()
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(p, dir) {
			t.Fatalf("zip entry %q escapes", f.Name)
		}
		if f.FileInfo().IsDir() {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, r.Body
}
