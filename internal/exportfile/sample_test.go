package exportfile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/featurerows"
)

// The sample data of these tests lie in New Zealand (lon 171..176, lat
// -42..-38) with every field type, NULLs and unicode text. Rows are built
// from WKT through GDAL and stored as features stores them (ISO WKB in
// EPSG:4326, attributes as JSON).

// sampleFields are the attribute columns of every sample item.
var sampleFields = []Field{
	{"id", "integer"}, {"amount", "double"}, {"label", "string"},
	{"day", "date"}, {"stamp", "datetime"}, {"ok", "boolean"},
}

// sampleRow is one feature of a sample item.
type sampleRow struct {
	wkt   string // "" for no geometry
	attrs map[string]any
}

// clipWKT is the crop area: a pentagon, so that boxes inside its envelope
// are not all inside it.
const clipWKT = "POLYGON ((172 -41,175 -41,175 -39,173.5 -38.5,172 -39,172 -41))"

var labels = []string{"Māori ōrite", "snow ☃ \"quoted\"", "漢字, commas; and\nnewline", "plain", "tab\there", "back\\slash"}

func sampleAttrs(i int) map[string]any {
	m := map[string]any{
		"id":     int64(i),
		"amount": float64(i)*1.25 + 0.5,
		"label":  fmt.Sprintf("%s #%d", labels[i%len(labels)], i),
		"day":    time.Date(2020, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano),
		"stamp":  time.Date(2021, 3, 1+i%28, i%24, i%60, i%60, 0, time.UTC).Format(time.RFC3339Nano),
		"ok":     i%2 == 0,
	}
	if i%7 == 3 { // NULLs
		m["amount"], m["label"], m["day"], m["stamp"], m["ok"] = nil, nil, nil, nil, nil
	}
	return m
}

// samplePoints is a grid of points, some inside the crop area.
func samplePoints() []sampleRow {
	var rows []sampleRow
	i := 0
	for x := 171.05; x < 176; x += 0.4 {
		for y := -41.95; y < -38; y += 0.3 {
			rows = append(rows, sampleRow{fmt.Sprintf("POINT (%.4f %.4f)", x, y), sampleAttrs(i)})
			i++
		}
	}
	return rows
}

// sampleLines are lines across the area, crossing the crop edge, one
// touching its corner only (dropped: the cut is a point).
func sampleLines() []sampleRow {
	var rows []sampleRow
	i := 0
	for y := -41.9; y < -38; y += 0.25 {
		rows = append(rows, sampleRow{fmt.Sprintf("LINESTRING (171.2 %.3f,173.1 %.3f,176 %.3f)", y, y+0.1, y-0.05), sampleAttrs(i)})
		i++
	}
	rows = append(rows, sampleRow{"LINESTRING (171 -42,172 -41)", sampleAttrs(i)})
	rows = append(rows, sampleRow{"MULTILINESTRING ((172.5 -40.5,172.8 -40.2),(171.1 -41.5,171.4 -41.2))", sampleAttrs(i + 1)})
	return rows
}

// samplePolygons are squares with holes, multi-part polygons across the
// edge and one polygon sharing an edge with the crop area only (dropped:
// the cut is a line).
func samplePolygons() []sampleRow {
	var rows []sampleRow
	i := 0
	for x := 171.1; x < 176; x += 0.7 {
		for y := -41.9; y < -38; y += 0.6 {
			rows = append(rows, sampleRow{fmt.Sprintf(
				"POLYGON ((%[1]f %[2]f,%[3]f %[2]f,%[3]f %[4]f,%[1]f %[4]f,%[1]f %[2]f),(%[5]f %[6]f,%[5]f %[7]f,%[8]f %[7]f,%[8]f %[6]f,%[5]f %[6]f))",
				x, y, x+0.5, y+0.4, x+0.1, y+0.1, y+0.3, x+0.4), sampleAttrs(i)})
			i++
		}
	}
	rows = append(rows,
		sampleRow{"MULTIPOLYGON (((172.5 -40.5,173 -40.5,173 -40,172.5 -40,172.5 -40.5)),((170 -40,170.5 -40,170.5 -39.5,170 -39.5,170 -40)))", sampleAttrs(i)},
		sampleRow{"POLYGON ((171 -42,172 -42,172 -41,171 -41,171 -42))", sampleAttrs(i + 1)},     // touches a corner: a point
		sampleRow{"POLYGON ((175 -40,176 -40,176 -39.5,175 -39.5,175 -40))", sampleAttrs(i + 2)}, // shares an edge: a line
	)
	return rows
}

// sampleTable is rows without geometry.
func sampleTable() []sampleRow {
	var rows []sampleRow
	for i := range 25 {
		rows = append(rows, sampleRow{"", sampleAttrs(i)})
	}
	return rows
}

// sampleItem builds the item streaming rows.
func sampleItem(t testing.TB, name, geomType string, rows []sampleRow) VectorItem {
	t.Helper()
	type stored struct {
		wkb, attrs []byte
		box        [4]float64
		hasBox     bool
	}
	var st []stored
	for _, r := range rows {
		var s stored
		if r.wkt != "" {
			g, err := godal.NewGeometryFromWKT(r.wkt, nil)
			if err != nil {
				t.Fatalf("%s: %v", r.wkt, err)
			}
			if s.wkb, err = g.WKB(); err != nil {
				t.Fatal(err)
			}
			if s.box, err = g.Bounds(); err != nil {
				t.Fatal(err)
			}
			s.hasBox = true
			g.Close()
		}
		var err error
		if s.attrs, err = json.Marshal(r.attrs); err != nil {
			t.Fatal(err)
		}
		st = append(st, s)
	}
	return VectorItem{
		Name: name, Title: strings.ToUpper(name), Fields: sampleFields, GeometryType: geomType,
		Count: int64(len(st)),
		Rows: func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
			var r featurerows.RawRow
			for i, s := range st {
				if err := ctx.Err(); err != nil {
					return err
				}
				r = featurerows.RawRow{FID: int64(i + 1), Geom: s.wkb, Attrs: s.attrs, Box: s.box, HasBox: s.hasBox}
				if err := fn(&r); err != nil {
					return err
				}
			}
			return nil
		},
		MetadataXML: []byte("<metadata><title>" + name + "</title></metadata>"),
		LicenseText: "CC BY 4.0 — " + name,
	}
}

// clipWKB is the crop area as WKB.
func clipWKB(t testing.TB) []byte {
	t.Helper()
	g, err := godal.NewGeometryFromWKT(clipWKT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	b, err := g.WKB()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expectedIDs are the ids of rows whose cut by the crop area keeps their
// dimension (all rows without a crop area).
func expectedIDs(t testing.TB, rows []sampleRow, clipped bool) map[int64]bool {
	t.Helper()
	clip, err := godal.NewGeometryFromWKT(clipWKT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer clip.Close()
	out := map[int64]bool{}
	for _, r := range rows {
		id := r.attrs["id"].(int64)
		if !clipped {
			out[id] = true
			continue
		}
		if r.wkt == "" {
			continue
		}
		g, err := godal.NewGeometryFromWKT(r.wkt, nil)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := g.Intersection(clip)
		if err != nil {
			t.Fatal(err)
		}
		wkt, _ := cut.WKT()
		if !cut.Empty() && sameFamily(r.wkt, wkt) {
			out[id] = true
		}
		cut.Close()
		g.Close()
	}
	return out
}

// sameFamily says a cut keeps the input's dimension (a collection counts
// when it holds a part of that dimension).
func sameFamily(in, cut string) bool {
	fam := func(w string) string {
		switch {
		case strings.Contains(w, "POLYGON"):
			return "POLYGON"
		case strings.Contains(w, "LINESTRING"):
			return "LINESTRING"
		}
		return "POINT"
	}
	return fam(in) == fam(cut) || strings.HasPrefix(cut, "GEOMETRYCOLLECTION") && strings.Contains(cut, fam(in))
}
