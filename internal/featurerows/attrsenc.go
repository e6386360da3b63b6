package featurerows

import (
	"slices"
	"strconv"
	"time"
	"unsafe"
)

// AttrsEncoder writes rows' attributes as the JSON object the store keeps
// from values given field by field, without a map per row: the bytes
// Writer makes of Row.Attrs holding the same values after StoreDates.
// Its result goes in Row.Encoded. Not safe for concurrent use.
type AttrsEncoder struct {
	order []int    // field indexes in the order of their names
	keys  [][]byte // each field's `"name":`
	date  []bool   // a date field: a time is stored as its date
	tod   []bool   // a time field: stored as a time of day
	w     ValueWriter
}

// NewAttrsEncoder encodes values of the fields names, in that order, of
// which dates and times name the date and time fields (DateFields,
// TimeFields). Of fields named alike, the last counts, as in a map.
func NewAttrsEncoder(names []string, dates, times map[string]bool) *AttrsEncoder {
	e := &AttrsEncoder{keys: make([][]byte, len(names)), date: make([]bool, len(names)), tod: make([]bool, len(names))}
	last := map[string]int{}
	for i, n := range names {
		last[n] = i
		e.keys[i] = append(appendString(nil, n), ':')
		e.date[i], e.tod[i] = dates[n], times[n]
	}
	for _, i := range last {
		e.order = append(e.order, i)
	}
	slices.SortFunc(e.order, func(a, b int) int {
		if names[a] < names[b] {
			return -1
		}
		return 1
	})
	return e
}

// Encode appends the object to b. value is called once per field, with
// its index among the names, and writes its value with w (a field it
// writes nothing for is null).
func (e *AttrsEncoder) Encode(b []byte, value func(i int, w *ValueWriter)) []byte {
	b = append(b, '{')
	for n, i := range e.order {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, e.keys[i]...)
		e.w = ValueWriter{b: b, date: e.date[i], tod: e.tod[i]}
		value(i, &e.w)
		if !e.w.wrote {
			e.w.b = append(e.w.b, "null"...)
		}
		b = e.w.b
	}
	return append(b, '}')
}

// ValueWriter writes one attribute value for an AttrsEncoder; the first
// call counts.
type ValueWriter struct {
	b         []byte
	date, tod bool
	wrote     bool
}

func (w *ValueWriter) start() bool {
	if w.wrote {
		return false
	}
	w.wrote = true
	return true
}

// Null writes null.
func (w *ValueWriter) Null() {
	if w.start() {
		w.b = append(w.b, "null"...)
	}
}

// Bool writes a boolean.
func (w *ValueWriter) Bool(v bool) {
	if w.start() {
		w.b = strconv.AppendBool(w.b, v)
	}
}

// Int writes an integer.
func (w *ValueWriter) Int(v int64) {
	if w.start() {
		w.b = strconv.AppendInt(w.b, v, 10)
	}
}

// Float writes a number (null for NaN and infinities).
func (w *ValueWriter) Float(v float64) {
	if w.start() {
		w.b = appendFloat(w.b, v)
	}
}

// Text writes a string; a time field's text that is a time of day is
// stored as one (TimeOfDay).
func (w *ValueWriter) Text(v []byte) {
	if !w.start() {
		return
	}
	s := unsafe.String(unsafe.SliceData(v), len(v)) // read here only
	if w.tod {
		if t, ok := TimeOfDay(s); ok {
			w.b = appendString(w.b, t)
			return
		}
	}
	w.b = appendString(w.b, s)
}

// Time writes a time: a date field's as its date, a time field's as its
// time of day, any other as an RFC 3339 date-time.
func (w *ValueWriter) Time(t time.Time) {
	if !w.start() {
		return
	}
	w.b = append(w.b, '"')
	switch {
	case w.date:
		w.b = t.AppendFormat(w.b, time.DateOnly)
	case w.tod:
		w.b = t.AppendFormat(w.b, timeOfDay)
	default:
		w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	}
	w.b = append(w.b, '"')
}
