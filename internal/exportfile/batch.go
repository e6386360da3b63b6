package exportfile

import (
	"encoding/binary"
	"math"

	"github.com/geopub/geopub/internal/featurerows"
)

// A batch is rows encoded for gdal.VectorWriter, one record after
// another, in the layout its documentation gives; these are the kind
// bytes that start each field's value.
const (
	valNull     = 0
	valInt      = 1
	valReal     = 2
	valStr      = 3
	valDateTime = 4
)

// fieldKind is how a field is created and how its values are encoded.
type fieldKind struct {
	// ogr is the field type code gdal.VectorLayer takes: 1 integer, 2 real,
	// 3 string, 4 date, 5 datetime, 6 time (of day; its values are
	// written as their text, "12:34:56", which OGR reads as a time).
	ogr     int
	boolean bool
	// dateText, for a string field standing for a date (1) or date-time
	// (2), writes the value as ISO 8601 text.
	dateText int
}

// kindsFor are the field kinds of fields as format out writes them:
// date-times (and dates, and times of day) as text where the format has
// no such type, 64-bit integers as reals where it has only 32-bit
// integers.
func kindsFor(fields []Field, out vectorOut) []fieldKind {
	ks := make([]fieldKind, len(fields))
	for i, f := range fields {
		k := fieldKindOf(f.Type)
		switch {
		case k.ogr == 5 && (out.dateTimeAsText || out.dateAsText):
			k = fieldKind{ogr: 3, dateText: 2}
		case k.ogr == 4 && out.dateAsText:
			k = fieldKind{ogr: 3, dateText: 1}
		case k.ogr == 6 && out.timeAsText:
			k = fieldKind{ogr: 3}
		case k.ogr == 1 && !k.boolean && out.int64AsReal:
			k = fieldKind{ogr: 2}
		}
		ks[i] = k
	}
	return ks
}

func fieldKindOf(t string) fieldKind {
	switch t {
	case "integer":
		return fieldKind{ogr: 1}
	case "boolean":
		return fieldKind{ogr: 1, boolean: true}
	case "double":
		return fieldKind{ogr: 2}
	case "date":
		return fieldKind{ogr: 4}
	case "datetime":
		return fieldKind{ogr: 5}
	case "time":
		return fieldKind{ogr: 6}
	}
	return fieldKind{ogr: 3}
}

// encoder turns raw rows into batch records.
type encoder struct {
	kinds []fieldKind
	index map[string]int // field name → position
	vals  []jsonValue    // per field, the row's value
}

func newEncoder(fields []Field, kinds []fieldKind) *encoder {
	e := &encoder{kinds: kinds, index: make(map[string]int, len(fields)), vals: make([]jsonValue, len(fields))}
	for i, f := range fields {
		if _, dup := e.index[f.Name]; !dup {
			e.index[f.Name] = i
		}
	}
	return e
}

// appendRow appends r's record to b. Attributes that are not valid JSON
// are written as nulls rather than failing the export.
func (e *encoder) appendRow(b []byte, r *featurerows.RawRow) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Geom)))
	for _, v := range r.Box {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = append(b, r.Geom...)
	for i := range e.vals {
		e.vals[i] = jsonValue{}
	}
	if len(e.kinds) > 0 {
		scanObject(r.Attrs, e.index, e.vals)
	}
	for i, k := range e.kinds {
		b = appendValue(b, k, e.vals[i])
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start))
	return b
}

// appendValue encodes v for a field of kind k, converting between JSON
// types where the meaning is plain (a number for a string field is its
// text, "12" for an integer field is 12); a value that does not convert
// is null.
func appendValue(b []byte, k fieldKind, v jsonValue) []byte {
	if v.kind == jNull {
		return append(b, valNull)
	}
	switch k.ogr {
	case 1:
		if i, ok := v.int(); ok {
			return binary.LittleEndian.AppendUint64(append(b, valInt), uint64(i))
		}
	case 2:
		if f, ok := v.float(); ok {
			return binary.LittleEndian.AppendUint64(append(b, valReal), math.Float64bits(f))
		}
	case 4, 5:
		if t, ok := v.dateTime(k.ogr == 4); ok {
			b = append(b, valDateTime)
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(t.year)))
			b = append(b, t.month, t.day, t.hour, t.minute, t.tz)
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(t.second))
		}
	default:
		s := v.text()
		if k.dateText == 1 && v.kind == jString && len(s) > 10 && s[10] == 'T' {
			s = s[:10]
		}
		b = append(b, valStr)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
		return append(b, 0)
	}
	return append(b, valNull)
}
