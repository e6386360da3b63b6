package featurerows

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// DateFields are the names of fs's fields of type date, nil when none.
func DateFields(fs []schematype.Field) map[string]bool { return fieldsOfType(fs, "date") }

// TimeFields are the names of fs's fields of type time (a time of day),
// nil when none.
func TimeFields(fs []schematype.Field) map[string]bool { return fieldsOfType(fs, "time") }

func fieldsOfType(fs []schematype.Field, typ string) map[string]bool {
	var m map[string]bool
	for _, f := range fs {
		if f.Type == typ {
			if m == nil {
				m = map[string]bool{}
			}
			m[f.Name] = true
		}
	}
	return m
}

// DateOnly is a stored value of a date field as the date it is:
// "2024-01-01" from "2024-01-01T00:00:00Z" (imports stored dates as
// midnight UTC). Any other value comes back unchanged.
func DateOnly(s string) string {
	if len(s) > 10 && s[10] == 'T' && isDate(s[:10]) {
		return s[:10]
	}
	return s
}

func isDate(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) == 10
}

// ServeDates is a stored attributes object with the values of the date
// fields dates given as dates (DateOnly), its keys in their order; attrs
// itself when there are no date fields or nothing to change.
func ServeDates(attrs []byte, dates map[string]bool) []byte {
	if len(dates) == 0 || len(attrs) == 0 {
		return attrs
	}
	dec := json.NewDecoder(bytes.NewReader(attrs))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return attrs
	}
	var b bytes.Buffer
	b.WriteByte('{')
	changed := false
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return attrs
		}
		if dates[k] && len(v) > 12 && v[0] == '"' {
			var s string
			if json.Unmarshal(v, &s) == nil {
				if d := DateOnly(s); d != s {
					v, changed = json.RawMessage(`"`+d+`"`), true
				}
			}
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(appendString(nil, k))
		b.WriteByte(':')
		b.Write(v)
	}
	if !changed {
		return attrs
	}
	b.WriteByte('}')
	return b.Bytes()
}

// StoreDates replaces in attrs the time.Time values of the date fields
// dates with their date, "2024-01-01", which is how a date is stored (a
// time.Time is written as an RFC 3339 date-time), and the values of the
// time fields times with their time of day (TimeOfDay).
func StoreDates(attrs map[string]any, dates, times map[string]bool) {
	for k := range dates {
		if t, ok := attrs[k].(time.Time); ok {
			attrs[k] = t.Format(time.DateOnly)
		}
	}
	for k := range times {
		switch v := attrs[k].(type) {
		case time.Time:
			attrs[k] = v.Format(timeOfDay)
		case string:
			if t, ok := TimeOfDay(v); ok {
				attrs[k] = t
			}
		}
	}
}

// timeOfDay is how a time field's value is stored and served: an
// xsd:time without a zone, its fraction of a second (up to microseconds,
// PostgreSQL's precision) only when it has one. Times in this form order
// as their text does.
const timeOfDay = "15:04:05.999999"

// TimeOfDay is s, a time of day ("9:05:00", "12:34:56.250",
// "12:34:56.789123", an xsd:time whose zone, if any, is left aside), as
// a time field's value is stored: "09:05:00", "12:34:56.25". ok is false
// when s is no time of day.
func TimeOfDay(s string) (string, bool) {
	t, err := time.Parse("15:04:05.999999999", s)
	if err != nil {
		if t, err = time.Parse("15:04:05.999999999Z07:00", s); err != nil {
			return "", false
		}
	}
	return t.Round(time.Microsecond).Format(timeOfDay), true
}
