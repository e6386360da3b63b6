package ingest

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// ValueKind is what a Value holds.
type ValueKind uint8

// Kinds of Value, by the field's type: null (unset or null), boolean
// (Int 0 or 1), integer (Int), double (Float), string and time of day
// (Text, a time as "12:34:56.789"), date and datetime (Time).
const (
	Null ValueKind = iota
	Bool
	Int
	Float
	Text
	Time
)

// Value is one field of a Record, unboxed.
type Value struct {
	Kind  ValueKind
	Int   int64
	Float float64
	// Text is valid until the next Records.Next.
	Text []byte
	Time time.Time
}

// Record is one feature as Records reads it; its slices are valid until
// the next Records.Next.
type Record struct {
	FID int64
	// Geometry is little-endian ISO WKB in the datasource's CRS; nil when
	// the feature has no geometry or an empty one.
	Geometry []byte
	// Values are the fields, in the order Records.Fields names them.
	Values []Value
}

// Records reads the features of one vector or table datasource found by
// Scan, in file order, with their values in field order and without a
// map per feature: the import's path (ReadFeatures gives Features).
type Records struct {
	ctx      context.Context
	ds       Datasource
	gds      *godal.Dataset
	unwatch  func()
	r        *gdal.RecordReader
	fields   []ogrField
	names    []string
	declared []string
	rec      Record
	texts    [][]byte // per field, the text of a time of day
	n        int64
}

// OpenRecords opens ds under dir for reading. Close the Records.
func OpenRecords(ctx context.Context, dir string, ds Datasource) (*Records, error) {
	if ds.DataType != TypeVector && ds.DataType != TypeTable {
		return nil, fmt.Errorf("ingest: %s is a %s, not a vector layer or table", ds.Path, ds.DataType)
	}
	k, ok := kinds[lowerExt(ds.Path)]
	if !ok {
		return nil, fmt.Errorf("ingest: %s: unknown format", ds.Path)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := candidate{rel: ds.Path, kind: k, files: ds.Files}
	if len(c.files) == 0 {
		c.files = []string{ds.Path}
	}
	abs := filepath.Join(root, filepath.FromSlash(ds.Path))
	var openOpts []string
	if k.format == "text/csv" {
		if openOpts, err = csvOpenOptions(abs); err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", ds.Path, err)
		}
	}
	gds, err := openLocal(abs, true, k.drivers, c.siblings(), openOpts)
	if err != nil {
		return nil, fmt.Errorf("ingest: open %s: %w", ds.Path, err)
	}
	layers := gds.Layers()
	if len(layers) == 0 {
		gds.Close()
		return nil, fmt.Errorf("ingest: %s has no layers", ds.Path)
	}
	l := layers[0]
	if ds.Layer != "" {
		found := gds.LayerByName(ds.Layer)
		if found == nil {
			gds.Close()
			return nil, fmt.Errorf("ingest: %s has no layer %q", ds.Path, ds.Layer)
		}
		l = *found
	}
	r := &Records{ctx: ctx, ds: ds, gds: gds, unwatch: gdal.WatchSQLite(ctx, gds)}
	fields, _ := layerSchema(l)
	fields, key := withDeclaredKey(l, gds.Driver().ShortName(), fields)
	if key != "" {
		r.declared = []string{key}
	}
	r.fields = fields
	for _, fd := range fields {
		r.names = append(r.names, fd.name)
	}
	r.rec.Values = make([]Value, len(fields))
	r.texts = make([][]byte, len(fields))
	l.ResetReading()
	r.r = gdal.NewRecordReader(l, packFields(fields))
	return r, nil
}

// Fields are the names of the records' values, in order.
func (r *Records) Fields() []string { return r.names }

// Declared is the key the datasource declares (see ReadKeyedFeatures),
// nil when it declares none.
func (r *Records) Declared() []string { return r.declared }

// Next returns the next record, nil after the last. It fails on ctx's
// end, or when GDAL fails to read a feature (the error names it).
func (r *Records) Next() (*Record, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	g, err := r.r.Next()
	r.n++
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: reading feature #%d: %w", where(r.ds), r.n, err)
	}
	if g == nil {
		return nil, nil
	}
	r.rec.FID, r.rec.Geometry = g.FID, g.WKB
	for i, fd := range r.fields {
		r.rec.Values[i] = r.value(i, g.Values[i], fd.typ)
	}
	return &r.rec, nil
}

// Close ends the reading and closes the datasource.
func (r *Records) Close() {
	if r.gds == nil {
		return
	}
	r.r.Close()
	r.unwatch()
	r.gds.Close()
	r.gds = nil
}

// packFields says how a RecordReader reads each of fields.
func packFields(fields []ogrField) []gdal.PackField {
	out := make([]gdal.PackField, len(fields))
	for i, fd := range fields {
		as := gdal.PackText
		switch {
		case fd.fid:
			as = gdal.PackFID
		case fd.typ == "boolean" || fd.typ == "integer":
			as = gdal.PackInt
		case fd.typ == "double":
			as = gdal.PackReal
		case fd.typ == "date" || fd.typ == "datetime" || fd.typ == "time":
			as = gdal.PackDateTime
		}
		out[i] = gdal.PackField{Index: fd.idx, As: as}
	}
	return out
}

// value is field i, of type typ (ogrField.typ), read by packFields.
func (r *Records) value(i int, v gdal.RecordValue, typ string) Value {
	switch v.Kind {
	case gdal.ValueNull:
		return Value{}
	case gdal.ValueInt:
		if typ == "boolean" {
			b := int64(0)
			if v.Int != 0 {
				b = 1
			}
			return Value{Kind: Bool, Int: b}
		}
		return Value{Kind: Int, Int: v.Int}
	case gdal.ValueReal:
		return Value{Kind: Float, Float: v.Float}
	case gdal.ValueText:
		return Value{Kind: Text, Text: v.Text}
	}
	if typ == "time" {
		// A time of day as text, "12:34:56" (any zone left aside), so
		// that a datasource scanned before times had their own type,
		// which lists it as a string, still stores that text; OGR keeps
		// seconds as a float to the millisecond, so the fraction is
		// rounded there (56.789, not 56.789001464).
		ms := int(math.Round(float64(v.Second) * 1000))
		t := time.Date(0, 1, 1, v.Hour, v.Minute, 0, ms*int(time.Millisecond), time.UTC)
		r.texts[i] = t.AppendFormat(r.texts[i][:0], "15:04:05.999")
		return Value{Kind: Text, Text: r.texts[i]}
	}
	sec := float64(v.Second)
	loc := time.UTC
	// TZ: 0 unknown, 1 local, 100 UTC, 100±n offset in 15-minute steps.
	if v.TZ > 1 && v.TZ != 100 {
		loc = time.FixedZone("", (v.TZ-100)*15*60)
	}
	ns := int((sec - float64(int(sec))) * 1e9)
	return Value{Kind: Time, Time: time.Date(v.Year, time.Month(v.Month), v.Day, v.Hour, v.Minute, int(sec), ns, loc)}
}

// feature is rec as a Feature of its own (nothing in it points into the
// reader's buffers).
func (r *Records) feature(rec *Record) Feature {
	f := Feature{FID: rec.FID, Attributes: make(map[string]any, len(rec.Values))}
	if rec.Geometry != nil {
		f.Geometry = append([]byte(nil), rec.Geometry...)
	}
	for i, v := range rec.Values {
		f.Attributes[r.names[i]] = v.Any()
	}
	return f
}

// Any is v as a Feature's attribute: nil, bool, int64, float64, string
// or time.Time.
func (v Value) Any() any {
	switch v.Kind {
	case Bool:
		return v.Int != 0
	case Int:
		return v.Int
	case Float:
		return v.Float
	case Text:
		return string(v.Text)
	case Time:
		return v.Time
	}
	return nil
}
