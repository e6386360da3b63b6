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
// to GeoJSON, where a NULL is JSON null or, for formats that leave NULL
// fields unset (FlatGeobuf), absent.
func nullsOf(t *testing.T, path, layer string) map[string]map[int64]bool {
	t.Helper()
	args := []string{"-f", "GeoJSON", "/vsistdout/", path}
	if layer != "" {
		args = append(args, layer)
	}
	out, err := exec.Command("ogr2ogr", args...).Output()
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
		for _, sf := range sampleFields {
			if v, ok := f.Properties[sf.Name]; !ok || v == nil {
				if nulls[sf.Name] == nil {
					nulls[sf.Name] = map[int64]bool{}
				}
				nulls[sf.Name][int64(id)] = true
			}
		}
	}
	return nulls
}

// checkOpts say how strictly a format keeps what was written.
type checkOpts struct {
	epsg      int  // the CRS the file must declare (0: the format stores none)
	dataEPSG  int  // the CRS of the coordinates
	typed     bool // field types are preserved (integer, real, date, datetime)
	nulls     bool // NULLs come back unset (else empty values are allowed)
	noAttrs   bool // the format keeps no attributes (DXF): only counts and geometry
	clipped   bool
	looseText bool
	sameCRS   bool // the CRS is stored without its EPSG code (MapInfo): compare projections // the reader drops line breaks and tabs in text (GPX)
}

// openBack reads every feature of layer (the first when "") of the
// dataset at path (GDAL opens it), checking geometries against the crop
// area when o.clipped; their coordinates are in EPSG:o.dataEPSG.
func openBack(t *testing.T, path, layer string, o checkOpts) readBack {
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
	dataSRS, err := godal.NewSpatialRefFromEPSG(o.dataEPSG)
	if err != nil {
		t.Fatal(err)
	}
	defer dataSRS.Close()
	for li, l := range ds.Layers() {
		if layer == "" && li > 0 || layer != "" && l.Name() != layer {
			continue
		}
		if srs := l.SpatialRef(); srs != nil {
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
				if o.dataEPSG != 4326 {
					g.SetSpatialRef(dataSRS)
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

// checkSRS asserts the dataset declares EPSG:epsg, or with equivalent an
// identical projection without its EPSG identity.
func checkSRS(t *testing.T, rb readBack, epsg int, equivalent bool) {
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
	if got.IsSame(want) {
		return
	}
	if !equivalent {
		t.Errorf("CRS is not EPSG:%d: %.300s", epsg, rb.srsWKT)
		return
	}
	// MapInfo stores the projection without its EPSG identity: the same
	// points must land on the same coordinates.
	for _, lonlat := range [][2]float64{{174, -41}, {172.2, -39.1}, {175, -38.6}} {
		a, b := projectPoint(t, lonlat, want), projectPoint(t, lonlat, got)
		if math.Abs(a[0]-b[0]) > 0.01 || math.Abs(a[1]-b[1]) > 0.01 {
			t.Errorf("CRS %.200s puts %v at %v; EPSG:%d at %v", rb.srsWKT, lonlat, b, epsg, a)
		}
	}
}

func projectPoint(t *testing.T, lonlat [2]float64, to *godal.SpatialRef) [2]float64 {
	t.Helper()
	wgs, _ := godal.NewSpatialRefFromEPSG(4326)
	defer wgs.Close()
	g, err := godal.NewGeometryFromWKT("POINT ("+strconv.FormatFloat(lonlat[0], 'f', -1, 64)+" "+strconv.FormatFloat(lonlat[1], 'f', -1, 64)+")", wgs)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Reproject(to); err != nil {
		t.Fatal(err)
	}
	b, _ := g.Bounds()
	return [2]float64{b[0], b[1]}
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
		w := want.(string)
		if o.looseText {
			strip := strings.NewReplacer("\n", "", "\t", "", "\r", "")
			s, w = strip.Replace(s), strip.Replace(w)
		}
		if s != w {
			t.Errorf("id %d %s: %q, want %q", id, sf.Name, s, want)
		}
	}
}
