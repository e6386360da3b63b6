package search

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// totals is the one-pass aggregate over the filtered result: its size and
// the spans of the range facets.
type totals struct {
	count                  int
	minC, maxC, minU, maxU sql.NullInt64
	minRes, maxRes         sql.NullFloat64
}

func (ix *sqlIndex) totals(ctx context.Context, tx *sql.Tx, base sqlPart, withRanges bool) (totals, error) {
	var t totals
	if !withRanges {
		err := tx.QueryRowContext(ctx, ix.rebind("SELECT count(*) FROM "+base.text), base.args...).Scan(&t.count)
		if err != nil {
			return t, fmt.Errorf("search: counting: %w", err)
		}
		return t, nil
	}
	err := tx.QueryRowContext(ctx, ix.rebind("SELECT count(*), min(d.created_at), max(d.created_at), min(d.updated_at), max(d.updated_at), "+
		"min(d.raster_resolution), max(d.raster_resolution) FROM "+base.text), base.args...).
		Scan(&t.count, &t.minC, &t.maxC, &t.minU, &t.maxU, &t.minRes, &t.maxRes)
	if err != nil {
		return t, fmt.Errorf("search: counting: %w", err)
	}
	return t, nil
}

// fill sets the range facets.
func (t totals) fill(f *Facets) {
	if t.minC.Valid {
		f.CreatedAt = &TimeRange{Min: time.UnixMicro(t.minC.Int64).UTC(), Max: time.UnixMicro(t.maxC.Int64).UTC()}
		f.UpdatedAt = &TimeRange{Min: time.UnixMicro(t.minU.Int64).UTC(), Max: time.UnixMicro(t.maxU.Int64).UTC()}
	}
	if t.minRes.Valid {
		f.RasterResolutionRange = &FloatRange{Min: t.minRes.Float64, Max: t.maxRes.Float64}
	}
}

// facetSQL lists the list facets: the key and name expressions and the
// FROM/WHERE that reaches them from the filtered doc set `ids` (a
// subquery of doc index ids) or, for single-valued facets, from the
// filtered rows themselves.
type facetSpec struct {
	target *[]FacetEntry
	// child facets: table and key/name columns; single-valued: the doc
	// row's columns.
	table, key, name string
}

func (ix *sqlIndex) facets(ctx context.Context, tx *sql.Tx, base sqlPart, limit int) (*Facets, error) {
	f := &Facets{}
	specs := []facetSpec{
		{target: &f.Tag, table: "search_doc_tags", key: "c.tag", name: "''"},
		{target: &f.Category, table: "search_doc_categories", key: "c.key", name: "max(c.name)"},
		{target: &f.Geotag, table: "search_doc_geotags", key: "c.key", name: "max(c.name)"},
		{target: &f.RasterBand, table: "search_doc_bands", key: "c.band", name: "''"},
		{target: &f.Kind, key: "d.kind", name: "''"},
		{target: &f.Group, key: "d.group_id", name: "max(d.group_name)"},
		{target: &f.License, key: "d.license_type", name: "''"},
		{target: &f.RasterResolution, key: "d.raster_resolution", name: "''"},
	}
	for _, s := range specs {
		var stmt string
		args := append([]any{}, base.args...)
		if s.table != "" {
			stmt = "SELECT " + s.key + ", " + s.name + ", count(*) FROM " + s.table + " c WHERE c.doc IN (SELECT d.id FROM " +
				base.text + ") GROUP BY " + s.key
		} else {
			stmt = "SELECT " + s.key + ", " + s.name + ", count(*) FROM " + base.text + " AND " + s.key + " IS NOT NULL"
			if s.key == "d.license_type" {
				stmt += " AND d.license_type <> ''"
			}
			stmt += " GROUP BY " + s.key
		}
		stmt += " ORDER BY 3 DESC, 1 ASC LIMIT ?"
		args = append(args, limit)
		entries, err := ix.facetRows(ctx, tx, stmt, args)
		if err != nil {
			return nil, err
		}
		*s.target = entries
	}
	return f, nil
}

func (ix *sqlIndex) facetRows(ctx context.Context, tx *sql.Tx, stmt string, args []any) ([]FacetEntry, error) {
	rows, err := tx.QueryContext(ctx, ix.rebind(stmt), args...)
	if err != nil {
		return nil, fmt.Errorf("search: facets: %w", err)
	}
	defer rows.Close()
	out := []FacetEntry{}
	for rows.Next() {
		var key any
		var e FacetEntry
		if err := rows.Scan(&key, &e.Name, &e.Total); err != nil {
			return nil, fmt.Errorf("search: facets: %w", err)
		}
		e.Key = keyText(key)
		out = append(out, e)
	}
	return out, rows.Err()
}

// keyText formats a facet key as the value to filter by.
func keyText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
