package ogcfeatures

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/cql2"
)

// Limits of an items page: the default and the largest page; a larger
// limit is clamped to MaxLimit, as the standard allows.
const (
	DefaultLimit = 10
	MaxLimit     = 10000
)

// Problem is a request the service refuses with an OGC exception: Status
// and the body {code, description}.
type Problem struct {
	Status      int
	Code        string
	Description string
}

func (p *Problem) Error() string { return p.Description }

// invalid is the 400 for a parameter with a bad value.
func invalid(format string, args ...any) *Problem {
	return &Problem{Status: 400, Code: "InvalidParameterValue", Description: fmt.Sprintf(format, args...)}
}

// ItemsQuery is what an items request asks for.
type ItemsQuery struct {
	Limit int
	// BBox is [minx, miny, maxx, maxy] in BBoxCRS's axis order; nil for
	// none. A six-number bbox is reduced to its horizontal corners.
	BBox    []float64
	BBoxCRS CRS
	CRS     CRS
	// After is the keyset cursor: features after (fid, row id).
	After *Cursor
	// Time is the datetime filter, nil for none.
	Time *Interval
	// Filter is the CQL2 filter (its geometry literals in CRS84), nil for
	// none.
	Filter cql2.Expr
	// Props are the property filters ?<field>=<value>, by field name.
	Props map[string]string
}

// Cursor is the position after the last feature of a page.
type Cursor struct {
	FID, Row int64
}

// String is the cursor as the next link carries it.
func (c Cursor) String() string {
	return strconv.FormatInt(c.FID, 10) + "." + strconv.FormatInt(c.Row, 10)
}

// reserved are the query parameters the service reads itself; others that
// name a field are property filters, the rest are ignored.
var reserved = map[string]bool{"f": true, "limit": true, "bbox": true, "bbox-crs": true, "crs": true,
	"cursor": true, "key": true, "datetime": true, "filter": true, "filter-lang": true, "filter-crs": true}

// ParseItems reads an items request's query string for collection c.
func ParseItems(q url.Values, c *Collection) (ItemsQuery, error) {
	fields := c.FieldNames()
	out := ItemsQuery{Limit: DefaultLimit}
	if s, ok := single(q, "limit"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return out, invalid("limit must be a whole number from 1 to %d, not %q", MaxLimit, clip(s))
		}
		out.Limit = min(n, MaxLimit)
	}
	var err error
	if s, ok := single(q, "crs"); ok {
		if out.CRS, err = ParseCRS(s); err != nil {
			return out, CRSProblem("crs", s, err)
		}
	}
	if s, ok := single(q, "bbox-crs"); ok {
		if out.BBoxCRS, err = ParseCRS(s); err != nil {
			return out, CRSProblem("bbox-crs", s, err)
		}
		if _, has := q["bbox"]; !has {
			return out, invalid("bbox-crs is given without bbox")
		}
	}
	if s, ok := single(q, "bbox"); ok {
		if out.BBox, err = parseBBox(s, out.BBoxCRS); err != nil {
			return out, err
		}
	}
	if s, ok := single(q, "datetime"); ok {
		iv, err := ParseDatetime(s)
		if err != nil {
			return out, err
		}
		out.Time = &iv
	}
	if s, ok := single(q, "filter"); ok {
		if out.Filter, err = parseFilter(q, s, c); err != nil {
			return out, err
		}
	} else if _, ok := q["filter-lang"]; ok {
		return out, invalid("filter-lang is given without filter")
	}
	if s, ok := single(q, "cursor"); ok {
		c, ok := parseCursor(s)
		if !ok {
			return out, invalid("cursor %q is not one this service wrote: follow the next link as given", clip(s))
		}
		out.After = &c
	}
	for _, name := range fields {
		if reserved[name] {
			continue
		}
		if vs, ok := q[name]; ok && len(vs) > 0 {
			if out.Props == nil {
				out.Props = map[string]string{}
			}
			out.Props[name] = vs[0]
		}
	}
	for k, vs := range q {
		if reserved[k] && len(vs) > 1 {
			return out, invalid("%s is given %d times; give it once", k, len(vs))
		}
	}
	return out, nil
}

// CRSProblem is the 400 for parameter param naming CRS value, which
// ParseCRS refused with err.
func CRSProblem(param, value string, err error) *Problem {
	if errors.Is(err, ErrNotHorizontal) {
		return invalid("%s %q is not a horizontal CRS (it has no easting and northing, or longitude and latitude, axes): give a geographic or projected CRS", param, clip(value))
	}
	return invalid("%s %q is not a supported CRS: give %s or http://www.opengis.net/def/crs/EPSG/0/{code}", param, clip(value), CRS84URI)
}

// single returns a parameter's value when present.
func single(q url.Values, name string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// parseBBox reads 4 or 6 numbers: lower corner, upper corner (with
// heights in the six-number form, dropped here).
func parseBBox(s string, c CRS) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 && len(parts) != 6 {
		return nil, invalid("bbox must be 4 or 6 comma-separated numbers, not %d", len(parts))
	}
	nums := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalid("bbox value %q is not a number", clip(p))
		}
		nums[i] = f
	}
	if len(nums) == 6 {
		if nums[2] > nums[5] {
			return nil, invalid("bbox: the lower height is above the upper height")
		}
		nums = []float64{nums[0], nums[1], nums[3], nums[4]}
	}
	// CRS84: longitude, latitude. Longitudes may wrap (minx > maxx crosses
	// the antimeridian); latitudes may not.
	if c.IsCRS84() {
		if nums[1] > nums[3] {
			return nil, invalid("bbox: the lower latitude %v is above the upper latitude %v", nums[1], nums[3])
		}
		for _, i := range []int{0, 2} {
			if nums[i] < -180 || nums[i] > 180 {
				return nil, invalid("bbox: longitude %v is outside -180 to 180", nums[i])
			}
		}
		for _, i := range []int{1, 3} {
			if nums[i] < -90 || nums[i] > 90 {
				return nil, invalid("bbox: latitude %v is outside -90 to 90", nums[i])
			}
		}
		return nums, nil
	}
	if nums[0] > nums[2] || nums[1] > nums[3] {
		return nil, invalid("bbox: a lower corner value is above the upper corner's")
	}
	return nums, nil
}

func parseCursor(s string) (Cursor, bool) {
	a, b, ok := strings.Cut(s, ".")
	if !ok {
		return Cursor{}, false
	}
	fid, err1 := strconv.ParseInt(a, 10, 64)
	row, err2 := strconv.ParseInt(b, 10, 64)
	return Cursor{FID: fid, Row: row}, err1 == nil && err2 == nil
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
