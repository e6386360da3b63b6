package ogcrecords

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cql2"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Limits of an items page: the default and the largest (a larger limit
// is clamped).
const (
	DefaultLimit = 10
	MaxLimit     = catalogrecords.MaxLimit
)

// Bounds on what a request may hold, so a hostile one costs little.
const (
	maxFilterBytes = 64 << 10
	maxIDs         = 1000
	maxTextBytes   = 1000
)

// Problem is a refused request: the door answers it as an OGC exception.
type Problem = of.Problem

// invalid is the 400 for a parameter with a bad value.
func invalid(format string, args ...any) *Problem {
	return &Problem{Status: 400, Code: "InvalidParameterValue", Description: fmt.Sprintf(format, args...)}
}

// known are the parameters an items request may carry.
var known = map[string]bool{
	"f": true, "key": true, "limit": true, "cursor": true, "bbox": true, "bbox-crs": true,
	"datetime": true, "q": true, "type": true, "ids": true, "externalIds": true,
	"filter": true, "filter-lang": true, "filter-crs": true, "sortby": true,
}

// Items is what an items request asks for.
type Items struct {
	// Query holds everything but Origin and the collection's own
	// restriction; Query.Filter is set when Match must run.
	Query catalogrecords.Query
	// Empty is set when the request can match nothing (a type or an id
	// that is not one of ours): no need to ask.
	Empty bool
	// Expr is the CQL2 filter, nil for none.
	Expr cql2.Expr
	// Boxes are the halves of a bbox that crosses the antimeridian (then
	// Query.BBox is nil and Match tests them).
	Boxes [][]float64
}

// Match reports whether r passes what the index cannot answer itself:
// the CQL2 filter and an antimeridian-crossing bbox.
func (it *Items) Match(r *catalogrecords.Record) bool {
	if len(it.Boxes) > 0 && !r.Intersects(it.Boxes[0]) && !r.Intersects(it.Boxes[1]) {
		return false
	}
	return it.Expr == nil || cql2.Match(it.Expr, r.Feature())
}

// ParseItems reads an items request's query string.
func ParseItems(q url.Values) (*Items, error) {
	for k, vs := range q {
		if !known[k] {
			return nil, invalid("%q is not a parameter of this API (its parameters: bbox, datetime, q, type, ids, externalIds, filter, filter-lang, filter-crs, sortby, limit, cursor, f)", clip(k))
		}
		if len(vs) > 1 {
			return nil, invalid("%s is given %d times; give it once", k, len(vs))
		}
	}
	it := &Items{Query: catalogrecords.Query{Limit: DefaultLimit}}
	steps := []func(url.Values, *Items) error{parseLimit, parseText, parseBBox, parseDatetime, parseTypes, parseIDs, parseFilter, parseSort}
	for _, step := range steps {
		if err := step(q, it); err != nil {
			return nil, err
		}
	}
	it.Query.Cursor = q.Get("cursor")
	if len(it.Query.Cursor) > maxTextBytes {
		return nil, invalid("cursor is not one this service wrote: follow the next link as given")
	}
	if it.Expr != nil || len(it.Boxes) > 0 {
		it.Query.Filter = it.Match
	}
	return it, nil
}

func parseLimit(q url.Values, it *Items) error {
	s, ok := single(q, "limit")
	if !ok {
		return nil
	}
	digits := strings.TrimSpace(s)
	n, err := strconv.Atoi(digits)
	if err != nil && digits != "" && strings.Trim(digits, "0123456789") == "" {
		n, err = MaxLimit, nil // a number too long for an int: clamped too
	}
	if err != nil || n < 1 {
		return invalid("limit must be a whole number from 1 to %d, not %q", MaxLimit, clip(s))
	}
	it.Query.Limit = min(n, MaxLimit)
	return nil
}

// parseText reads q: comma-separated terms, any of which may match (the
// catalogue's text search matches any word already).
func parseText(q url.Values, it *Items) error {
	s, ok := single(q, "q")
	if !ok {
		return nil
	}
	if len(s) > maxTextBytes {
		return invalid("q is longer than %d bytes", maxTextBytes)
	}
	it.Query.Text = strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), " ")
	return nil
}

// parseBBox reads 4 or 6 CRS84 numbers (heights dropped). A box whose
// west is east of its east crosses the antimeridian.
func parseBBox(q url.Values, it *Items) error {
	if s, ok := single(q, "bbox-crs"); ok {
		if !isCRS84(s) {
			return invalid("bbox-crs must be %s: records' extents are in CRS84", of.CRS84URI)
		}
		if _, has := q["bbox"]; !has {
			return invalid("bbox-crs is given without bbox")
		}
	}
	s, ok := single(q, "bbox")
	if !ok {
		return nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 4 && len(parts) != 6 {
		return invalid("bbox must be 4 or 6 comma-separated numbers, not %d", len(parts))
	}
	n := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return invalid("bbox value %q is not a number", clip(p))
		}
		n[i] = f
	}
	if len(n) == 6 {
		n = []float64{n[0], n[1], n[3], n[4]}
	}
	for _, i := range []int{0, 2} {
		if n[i] < -180 || n[i] > 180 {
			return invalid("bbox: longitude %v is outside -180 to 180", n[i])
		}
	}
	for _, i := range []int{1, 3} {
		if n[i] < -90 || n[i] > 90 {
			return invalid("bbox: latitude %v is outside -90 to 90", n[i])
		}
	}
	if n[1] > n[3] {
		return invalid("bbox: the lower latitude %v is above the upper latitude %v", n[1], n[3])
	}
	if n[0] > n[2] {
		it.Boxes = [][]float64{{n[0], n[1], 180, n[3]}, {-180, n[1], n[2], n[3]}}
		return nil
	}
	it.Query.BBox = n
	return nil
}

// parseDatetime reads datetime as OGC API - Features does, on the
// record's updated time.
func parseDatetime(q url.Values, it *Items) error {
	s, ok := single(q, "datetime")
	if !ok {
		return nil
	}
	iv, err := of.ParseDatetime(s)
	if err != nil {
		return err
	}
	it.Query.ModifiedAfter, it.Query.ModifiedBefore = iv.Start, iv.End
	return nil
}

// parseTypes reads type: "dataset" (every record is one) or the
// catalogue's types. Other values match nothing.
func parseTypes(q url.Values, it *Items) error {
	s, ok := single(q, "type")
	if !ok {
		return nil
	}
	var types []catalogrecords.Type
	for _, v := range strings.Split(s, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "dataset" {
			return nil
		}
		for _, t := range catalogrecords.Types {
			if string(t) == v {
				types = append(types, t)
			}
		}
	}
	if len(types) == 0 {
		it.Empty = true
	}
	it.Query.Types = types
	return nil
}

// parseIDs reads ids and externalIds; both restrict to the records
// named, together.
func parseIDs(q url.Values, it *Items) error {
	var ids []string
	given := false
	for _, name := range []string{"ids", "externalIds"} {
		s, ok := single(q, name)
		if !ok {
			continue
		}
		given = true
		parts := strings.Split(s, ",")
		if len(parts) > maxIDs {
			return invalid("%s names %d records; at most %d", name, len(parts), maxIDs)
		}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if name == "externalIds" {
				p = identifierOf(p)
			}
			if _, _, ok := catalogrecords.ParseIdentifier(p); ok {
				ids = append(ids, p)
			}
		}
	}
	if given && len(ids) == 0 {
		it.Empty = true
	}
	it.Query.IDs = ids
	return nil
}

// plurals are the URL path segments of the record types.
var plurals = map[string]catalogrecords.Type{"layers": catalogrecords.Layer, "tables": catalogrecords.Table,
	"sets": catalogrecords.Set, "documents": catalogrecords.Document, "items": catalogrecords.Item}

// identifierOf reads an external id: an identifier as it is, or the URL
// of a dataset's REST resource or web page (.../layers/12/,
// .../items/c7/) as the record's identifier; "" when it is neither.
func identifierOf(s string) string {
	if _, _, ok := catalogrecords.ParseIdentifier(s); ok {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Path == "" {
		return ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		t, ok := plurals[segs[i]]
		if !ok {
			continue
		}
		num := segs[i+1]
		if t == catalogrecords.Item {
			num = strings.TrimPrefix(num, "c")
		}
		if n, err := strconv.Atoi(num); err == nil && n > 0 {
			return catalogrecords.Identifier(t, n)
		}
		return ""
	}
	return ""
}

// parseFilter reads filter in filter-lang over the Queryables.
func parseFilter(q url.Values, it *Items) error {
	s, ok := single(q, "filter")
	if !ok {
		for _, p := range []string{"filter-lang", "filter-crs"} {
			if _, ok := q[p]; ok {
				return invalid("%s is given without filter", p)
			}
		}
		return nil
	}
	if len(s) > maxFilterBytes {
		return invalid("filter is longer than %d bytes", maxFilterBytes)
	}
	if c, ok := single(q, "filter-crs"); ok && !isCRS84(c) {
		return invalid("filter-crs must be %s", of.CRS84URI)
	}
	lang, _ := single(q, "filter-lang")
	var (
		e   cql2.Expr
		err error
	)
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "", "cql2-text":
		e, err = cql2.ParseText(s)
	case "cql2-json":
		e, err = cql2.ParseJSON([]byte(s))
	default:
		return invalid("filter-lang must be cql2-text or cql2-json, not %q", clip(lang))
	}
	if err != nil {
		return invalid("filter: %v", err)
	}
	for _, name := range cql2.Properties(e) {
		if _, ok := catalogrecords.Queryables[name]; !ok {
			return invalid("filter: %q is not a queryable (see the collection's queryables)", clip(name))
		}
	}
	it.Expr = e
	return nil
}

// sorts are the sortby values.
var sorts = map[string]catalogrecords.Sort{
	"title": catalogrecords.SortTitle, "+title": catalogrecords.SortTitle, "-title": catalogrecords.SortTitleDesc,
	"updated": catalogrecords.SortModified, "+updated": catalogrecords.SortModified, "-updated": catalogrecords.SortModifiedDesc,
}

func parseSort(q url.Values, it *Items) error {
	s, ok := single(q, "sortby")
	if !ok || strings.TrimSpace(s) == "" {
		return nil
	}
	sort, ok := sorts[strings.TrimSpace(s)]
	if !ok {
		return invalid("sortby must be one of title, -title, updated or -updated, not %q", clip(s))
	}
	it.Query.Sort = sort
	return nil
}

// isCRS84 reports whether s names CRS84, the only CRS of records'
// extents.
func isCRS84(s string) bool {
	s = strings.TrimSpace(s)
	return s == of.CRS84URI || strings.EqualFold(s, "CRS84") || s == "urn:ogc:def:crs:OGC:1.3:CRS84"
}

func single(q url.Values, name string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
