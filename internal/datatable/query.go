package datatable

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/cql2"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// SortKey is one field of a sort, descending or not.
type SortKey struct {
	Field string
	Desc  bool
}

// Query is a view of a table: which rows (filters), in which order, which
// columns, which page.
type Query struct {
	// Filter is the CQL2 filter, nil for none; FilterText is what the
	// caller sent (with its language and CRS), the view's identity.
	Filter     cql2.Expr
	FilterText string
	// Props are the simple filters field=value, by field name.
	Props map[string]string
	// Sort is the order, none for feature id order.
	Sort []SortKey
	// Fields are the columns shown, in order: all by default.
	Fields []string
	Limit  int
	// Offset is the first row of the page in a sorted or filtered view.
	Offset int
	// After is the keyset cursor of a view without sort or filter.
	After *of.Cursor
	// WKT adds each row's geometry as WKT (CRS84).
	WKT bool
}

// Ordered reports whether the view is matched and sorted whole before
// it is paged (a sort, a filter or an offset); otherwise pages are read
// by keyset in feature id order.
func (q Query) Ordered() bool {
	return len(q.Sort) > 0 || q.Filter != nil || len(q.Props) > 0 || q.Offset > 0
}

// Reserved are the query parameters the service reads itself; any other
// must name a field (a simple filter). A field with one of these names is
// filtered through CQL2.
var Reserved = []string{"filter", "filter-lang", "filter-crs", "sort", "fields", "limit", "offset", "cursor",
	"geometry", "format", "key", "token"}

// ParseQuery reads a view's query string for table t: the error is a
// *Problem.
func ParseQuery(v url.Values, t *Table) (Query, error) {
	q := Query{Limit: DefaultLimit}
	for k, vs := range v {
		if slices.Contains(Reserved, k) {
			if len(vs) > 1 {
				return q, invalid("%s is given %d times; give it once", k, len(vs))
			}
			continue
		}
		if _, ok := t.column(k); !ok {
			return q, invalid("%q is neither a parameter of the data table (%s) nor a field of this table", clip(k), strings.Join(Reserved[:10], ", "))
		}
		if len(vs) > 1 {
			return q, invalid("the filter %s is given %d times; give it once (CQL2 filter takes IN lists)", clip(k), len(vs))
		}
		if q.Props == nil {
			q.Props = map[string]string{}
		}
		q.Props[k] = vs[0]
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > MaxLimit {
			return q, invalid("limit must be a whole number from 1 to %d, not %q", MaxLimit, clip(s))
		}
		q.Limit = n
	}
	if s := v.Get("offset"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n >= MaxOrdered {
			return q, invalid("offset must be a whole number from 0 to %d, not %q", MaxOrdered-1, clip(s))
		}
		q.Offset = n
	}
	if s := v.Get("filter"); strings.TrimSpace(s) != "" {
		// ogcfeatures reads CQL2 as the Features door does: the same
		// languages, queryables and CRS rules.
		fq := url.Values{"filter": {s}}
		for _, k := range []string{"filter-lang", "filter-crs"} {
			if x, ok := v[k]; ok {
				fq[k] = x
			}
		}
		iq, err := of.ParseItems(fq, t.c)
		if err != nil {
			return q, invalid("%s", err.Error())
		}
		q.Filter = iq.Filter
		q.FilterText = v.Get("filter-lang") + "\x00" + v.Get("filter-crs") + "\x00" + s
	} else if v.Has("filter-lang") || v.Has("filter-crs") {
		return q, invalid("filter-lang and filter-crs need a filter")
	}
	if s := v.Get("sort"); s != "" {
		var err error
		if q.Sort, err = parseSort(s, t); err != nil {
			return q, err
		}
	}
	if s := v.Get("fields"); s != "" {
		for _, name := range strings.Split(s, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if _, ok := t.column(name); !ok {
				return q, invalid("fields: %q is not a field of this table", clip(name))
			}
			if slices.Contains(q.Fields, name) {
				return q, invalid("fields: %q is given twice", clip(name))
			}
			q.Fields = append(q.Fields, name)
		}
		if len(q.Fields) == 0 {
			return q, invalid("fields names no field")
		}
	} else {
		for _, c := range t.Columns {
			q.Fields = append(q.Fields, c.Name)
		}
	}
	switch g := v.Get("geometry"); g {
	case "", "none":
	case "wkt":
		if t.IsTable {
			return q, invalid("geometry=wkt: a table has no geometry")
		}
		q.WKT = true
	default:
		return q, invalid("geometry must be wkt or none, not %q", clip(g))
	}
	if s := v.Get("cursor"); s != "" {
		if q.Ordered() {
			return q, invalid("cursor pages views without sort, filter or offset: page this view by offset")
		}
		a, b, ok := strings.Cut(s, ".")
		fid, err1 := strconv.ParseInt(a, 10, 64)
		row, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return q, invalid("cursor %q is not one this service wrote: follow the next link as given", clip(s))
		}
		q.After = &of.Cursor{FID: fid, Row: row}
	}
	return q, nil
}

// parseSort reads "name,-rank" (+ or nothing ascending, - descending).
func parseSort(s string, t *Table) ([]SortKey, error) {
	var out []SortKey
	for _, part := range strings.Split(s, ",") {
		// A + in a query string arrives as a space.
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k := SortKey{Field: part}
		switch part[0] {
		case '-':
			k.Desc, k.Field = true, strings.TrimSpace(part[1:])
		case '+':
			k.Field = strings.TrimSpace(part[1:])
		}
		if _, ok := t.column(k.Field); !ok {
			return nil, invalid("sort: %q is not a field of this table", clip(k.Field))
		}
		if slices.ContainsFunc(out, func(o SortKey) bool { return o.Field == k.Field }) {
			return nil, invalid("sort: %q is given twice", clip(k.Field))
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, invalid("sort names no field")
	}
	if len(out) > 8 {
		return nil, invalid("sort takes at most 8 fields")
	}
	return out, nil
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
