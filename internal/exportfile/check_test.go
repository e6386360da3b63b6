package exportfile

import (
	"encoding/json"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airbusgeo/godal"
)

// readBack is what a written dataset holds, read with GDAL.
type readBack struct {
	srsWKT   string // of the first layer, "" without one
	features map[int64]map[string]godal.Field
	count    int
	types    map[string]godal.FieldType
	// nullIDs are the ids of features whose fields are NULL, as GDAL
	// tells them apart (godal's Field does not): field name → ids.
	nullIDs map[string]map[int64]bool
}

// nullsOf reads which fields are NULL with ogr2ogr (GDAL's own converter)
// to GeoJSON, where a NULL is JSON null.
func nullsOf(t *testing.T, path string) map[string]map[int64]bool {
	t.Helper()
	out, err := exec.Command("ogr2ogr", "-f", "GeoJSON", "/vsistdout/", path).Output()
	if err != nil {
		t.Fatalf("ogr2ogr reading %s: %v", path, err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(out, &fc); err != nil {
		t.Fatalf("ogr2ogr's GeoJSON: %v", err)
	}
	nulls := map[string]map[int64]bool{}
	for _, f := range fc.Features {
		id, _ := f.Properties["id"].(float64)
		for k, v := range f.Properties {
			if v == nil {
				if nulls[k] == nil {
					nulls[k] = map[int64]bool{}
				}
				nulls[k][int64(id)] = true
			}
		}
	}
	return nulls
}

// checkOpts say how strictly a format keeps what was written.
type checkOpts struct {
	epsg      int  // the CRS the file must declare (0: the format stores none)
	typed     bool // field types are preserved (integer, real, date, datetime)
	nulls     bool // NULLs come back unset (else empty values are allowed)
	noAttrs   bool // the format keeps no attributes (DXF): only counts and geometry
	clipped   bool
	pointsOut bool // geometries are checked against the crop area
}

// openBack reads every feature of the dataset at path (GDAL opens it),
// checking geometries against the crop area when o.clipped.
func openBack(t *testing.T, path string, o checkOpts) readBack {
	t.Helper()
	ds, err := godal.Open(path, godal.VectorOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open %s: %v", path, err)
	}
	defer ds.Close()
	var clip *godal.Geometry
	wgs, _ := godal.NewSpatialRefFromEPSG(4326)
	defer wgs.Close()
	if o.clipped {
		c, err := godal.NewGeometryFromWKT(clipWKT, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A slightly buffered crop area absorbs the round trip through the
		// target CRS and the formats' coordinate precision.
		if clip, err = c.Buffer(1e-6, 8); err != nil {
			t.Fatal(err)
		}
		c.Close()
		defer clip.Close()
	}
	rb := readBack{features: map[int64]map[string]godal.Field{}, types: map[string]godal.FieldType{}}
	var srs *godal.SpatialRef
	for li, l := range ds.Layers() {
		if li == 0 && l.SpatialRef() != nil {
			srs = l.SpatialRef()
			rb.srsWKT, _ = srs.WKT()
		}
		for {
			f := l.NextFeature()
			if f == nil {
				break
			}
			rb.count++
			fields := f.Fields()
			for name, fl := range fields {
				rb.types[name] = fl.Type()
			}
			if g := f.Geometry(); g != nil && !g.Empty() && clip != nil {
				if srs != nil && !isWGS84(srs) {
					g.SetSpatialRef(srs)
					if err := g.Reproject(wgs); err != nil {
						t.Fatalf("reprojecting back: %v", err)
					}
				}
				if !clip.Contains(g) {
					wkt, _ := g.WKT()
					t.Errorf("%s: a geometry lies outside the crop area: %.200s", path, wkt)
				}
			}
			if !o.noAttrs {
				idf, ok := lookup(fields, "id")
				if !ok {
					t.Fatalf("%s: no id field among %v", path, keys(fields))
				}
				rb.features[idf.Int()] = fields
			}
			f.Close()
		}
	}
	return rb
}

func isWGS84(sr *godal.SpatialRef) bool {
	w, _ := godal.NewSpatialRefFromEPSG(4326)
	defer w.Close()
	return sr.IsSame(w)
}

func keys(m map[string]godal.Field) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// lookup finds a field by name as formats store it: exact, truncated
// (Shapefile's ten characters), case-folded or prefixed (GPX extensions).
func lookup(fields map[string]godal.Field, name string) (godal.Field, bool) {
	if f, ok := fields[name]; ok {
		return f, true
	}
	for k, f := range fields {
		if strings.EqualFold(k, name) || strings.HasSuffix(strings.ToLower(k), "_"+name) {
			return f, true
		}
	}
	return godal.Field{}, false
}

// checkSRS asserts the dataset declares EPSG:epsg.
func checkSRS(t *testing.T, rb readBack, epsg int) {
	t.Helper()
	want, err := godal.NewSpatialRefFromEPSG(epsg)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if rb.srsWKT == "" {
		t.Fatalf("no CRS; want EPSG:%d", epsg)
	}
	got, err := godal.NewSpatialRefFromWKT(rb.srsWKT)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if !got.IsSame(want) {
		t.Errorf("CRS is not EPSG:%d: %.300s", epsg, rb.srsWKT)
	}
}

// checkAttrs compares the attributes read back with the sample's.
func checkAttrs(t *testing.T, rb readBack, rows []sampleRow, o checkOpts) {
	t.Helper()
	byID := map[int64]map[string]any{}
	for _, r := range rows {
		byID[r.attrs["id"].(int64)] = r.attrs
	}
	checked := 0
	for id, fields := range rb.features {
		want, ok := byID[id]
		if !ok {
			t.Fatalf("feature id %d was not in the input", id)
		}
		for _, sf := range sampleFields {
			got, ok := lookup(fields, sf.Name)
			if !ok {
				t.Fatalf("no field %s among %v", sf.Name, keys(fields))
			}
			isNull := rb.nullIDs[sf.Name][id]
			checkValue(t, id, sf, want[sf.Name], got, isNull, o)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no feature to check")
	}
	if o.typed {
		for name, ft := range map[string][]godal.FieldType{
			"id": {godal.FTInt64, godal.FTInt}, "amount": {godal.FTReal}, "label": {godal.FTString},
			"day": {godal.FTDate, godal.FTDateTime}, "stamp": {godal.FTDateTime}, "ok": {godal.FTInt},
		} {
			var got godal.FieldType
			for k, v := range rb.types {
				if strings.EqualFold(k, name) {
					got = v
				}
			}
			if !typeIn(got, ft) {
				t.Errorf("field %s has type %v, want one of %v", name, got, ft)
			}
		}
	}
}

func typeIn(t godal.FieldType, ts []godal.FieldType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func checkValue(t *testing.T, id int64, sf Field, want any, got godal.Field, isNull bool, o checkOpts) {
	t.Helper()
	s := got.String()
	if dt := got.DateTime(); dt != nil && (got.Type() == godal.FTDate || got.Type() == godal.FTDateTime) {
		s = dt.Format("2006-01-02 15:04:05")
	}
	if want == nil {
		if o.nulls && !isNull {
			t.Errorf("id %d %s: want NULL, got %q", id, sf.Name, s)
		}
		if !o.nulls && !isNull && s != "" && s != "0" && s != "0.000000" {
			t.Errorf("id %d %s: want NULL or empty, got %q", id, sf.Name, s)
		}
		return
	}
	if isNull {
		t.Errorf("id %d %s: NULL, want %v", id, sf.Name, want)
		return
	}
	switch sf.Type {
	case "integer":
		if got.Int() != want.(int64) {
			t.Errorf("id %d %s: %q, want %d", id, sf.Name, s, want)
		}
	case "double":
		if math.Abs(got.Float()-want.(float64)) > 1e-9 {
			t.Errorf("id %d %s: %q, want %v", id, sf.Name, s, want)
		}
	case "boolean":
		w := want.(bool)
		if b, err := strconv.ParseBool(strings.ToLower(s)); err != nil || b != w {
			t.Errorf("id %d %s: %q, want %v", id, sf.Name, s, w)
		}
	case "date", "datetime":
		wt, _ := time.Parse(time.RFC3339Nano, want.(string))
		layout := "2006-01-02"
		if sf.Type == "datetime" {
			layout = "2006-01-02 15:04:05"
		}
		norm := strings.NewReplacer("/", "-", "T", " ").Replace(s)
		if !strings.HasPrefix(norm, wt.Format(layout)) {
			t.Errorf("id %d %s: %q, want %s", id, sf.Name, s, wt.Format(layout))
		}
	default:
		if s != want.(string) {
			t.Errorf("id %d %s: %q, want %q", id, sf.Name, s, want)
		}
	}
}
