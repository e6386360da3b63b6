package ogcfeatures

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"
)

// TRS names the Gregorian calendar, the temporal reference system of
// temporal extents.
const TRS = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"

// Interval is a datetime filter: an instant (Start == End) or a closed
// interval, nil ends open.
type Interval struct {
	Start, End *time.Time
}

// contains reports whether t falls in the interval, ends included.
func (iv Interval) contains(t time.Time) bool {
	return (iv.Start == nil || !t.Before(*iv.Start)) && (iv.End == nil || !t.After(*iv.End))
}

// parseTime reads an RFC 3339 date-time or a full date (its first
// instant, UTC); dayEnd gives a date's last instant instead.
func parseTime(s string, dayEnd bool) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if dayEnd {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		return t, true
	}
	return time.Time{}, false
}

// ParseDatetime reads the datetime parameter: an instant, or start/end
// where either end may be ".." or empty (open).
func ParseDatetime(s string) (Interval, error) {
	bad := invalid("datetime %q is not an RFC 3339 date-time, a date, or an interval start/end (.. for an open end)", clip(s))
	a, b, isInterval := strings.Cut(s, "/")
	if !isInterval {
		start, ok1 := parseTime(a, false)
		end, ok2 := parseTime(a, true)
		if !ok1 || !ok2 {
			return Interval{}, bad
		}
		return Interval{Start: &start, End: &end}, nil
	}
	var iv Interval
	if a != "" && a != ".." {
		t, ok := parseTime(a, false)
		if !ok {
			return iv, bad
		}
		iv.Start = &t
	}
	if b != "" && b != ".." {
		t, ok := parseTime(b, true)
		if !ok {
			return iv, bad
		}
		iv.End = &t
	}
	if iv.Start == nil && iv.End == nil {
		return iv, bad
	}
	if iv.Start != nil && iv.End != nil && iv.End.Before(*iv.Start) {
		return iv, invalid("datetime: the interval ends before it starts")
	}
	return iv, nil
}

// TimeField is the collection's first date or datetime field, the one
// datetime filters and the temporal extent use; "" when none.
func (c *Collection) TimeField() string {
	for _, f := range c.Fields {
		if f.Type == "date" || f.Type == "datetime" {
			return f.Name
		}
	}
	return ""
}

// timeOf reads a feature's time from its attributes.
func timeOf(attrs []byte, field string) (time.Time, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(attrs, &m) != nil {
		return time.Time{}, false
	}
	var s string
	if json.Unmarshal(m[field], &s) != nil {
		return time.Time{}, false
	}
	return parseTime(s, false)
}

// temporalExtent returns the first and last times of a version's time
// field, read once per version (a published version never changes).
func (s *Service) temporalExtent(ctx context.Context, versionID int, field string) ([2]string, bool, error) {
	type key struct {
		version int
		field   string
	}
	k := key{versionID, field}
	if v, ok := s.temporal.Load(k); ok {
		ext := v.([2]string)
		return ext, ext[0] != "", nil
	}
	var expr string
	if s.store.Dialect == dialect.Postgres {
		expr = "attrs->>?"
	} else {
		expr = "json_extract(attrs, ?)"
		field = `$."` + strings.ReplaceAll(field, `"`, `\"`) + `"`
	}
	var lo, hi sql.NullString
	query := s.ph("SELECT min(" + expr + "), max(" + expr + ") FROM features WHERE version_id = ?")
	if err := s.store.DB.QueryRowContext(ctx, query, field, field, versionID).Scan(&lo, &hi); err != nil {
		return [2]string{}, false, fmt.Errorf("ogc features: temporal extent of version %d: %w", versionID, err)
	}
	var ext [2]string
	if a, ok := parseTime(lo.String, false); ok {
		if b, ok := parseTime(hi.String, false); ok {
			ext = [2]string{a.UTC().Format(time.RFC3339), b.UTC().Format(time.RFC3339)}
		}
	}
	s.temporal.Store(k, ext)
	return ext, ext[0] != "", nil
}
