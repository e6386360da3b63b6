package search

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// count counts the filtered result.
func (ix *sqlIndex) count(ctx context.Context, tx *sql.Tx, base sqlPart) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx, ix.rebind("SELECT count(*) FROM "+base.text), base.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("search: counting: %w", err)
	}
	return n, nil
}

// facetSpec is one list facet: a child table and its key and name
// columns (multi-valued), or columns of the filtered doc rows.
type facetSpec struct {
	name   string
	target func(*Facets) *[]FacetEntry
	from   string
	key    string
	label  string
	where  string
}

var facetSpecs = []facetSpec{
	{"tag", func(f *Facets) *[]FacetEntry { return &f.Tag }, "search_doc_tags c JOIN f ON f.id = c.doc", "c.tag", "''", ""},
	{"category", func(f *Facets) *[]FacetEntry { return &f.Category }, "search_doc_categories c JOIN f ON f.id = c.doc", "c.key", "max(c.name)", ""},
	{"geotag", func(f *Facets) *[]FacetEntry { return &f.Geotag }, "search_doc_geotags c JOIN f ON f.id = c.doc", "c.key", "max(c.name)", ""},
	{"raster_band", func(f *Facets) *[]FacetEntry { return &f.RasterBand }, "search_doc_bands c JOIN f ON f.id = c.doc", "c.band", "''", ""},
	{"kind", func(f *Facets) *[]FacetEntry { return &f.Kind }, "f", "f.kind", "''", ""},
	{"group", func(f *Facets) *[]FacetEntry { return &f.Group }, "f", "f.group_id", "max(f.group_name)", "f.group_id IS NOT NULL"},
	{"license", func(f *Facets) *[]FacetEntry { return &f.License }, "f", "f.license_type", "''", "f.license_type <> ''"},
	{"raster_resolution", func(f *Facets) *[]FacetEntry { return &f.RasterResolution }, "f", "f.raster_resolution", "''", "f.raster_resolution IS NOT NULL"},
}

// facets computes every facet, the total and the ranges in one statement:
// the filtered set is materialized once (WITH f AS MATERIALIZED) and each
// facet is a GROUP BY over it, UNION ALL-ed. Keys travel as text.
func (ix *sqlIndex) facets(ctx context.Context, tx *sql.Tx, base sqlPart, limit int) (*Facets, int, error) {
	text := func(expr string) string { return "CAST(" + expr + " AS TEXT)" }
	var b strings.Builder
	args := append([]any{}, base.args...)
	b.WriteString("WITH f AS MATERIALIZED (SELECT d.id AS id, d.kind AS kind, d.group_id AS group_id, d.group_name AS group_name, " +
		"d.license_type AS license_type, d.raster_resolution AS raster_resolution, d.created_at AS created_at, d.updated_at AS updated_at FROM " +
		base.text + ") ")
	b.WriteString("SELECT 'total', " + text("count(*)") + ", " + text("min(created_at)") + ", " + text("max(created_at)") + ", " +
		text("min(updated_at)") + ", " + text("max(updated_at)") + ", " + text("min(raster_resolution)") + ", " + text("max(raster_resolution)") + " FROM f")
	for _, s := range facetSpecs {
		where := ""
		if s.where != "" {
			where = " WHERE " + s.where
		}
		b.WriteString(" UNION ALL SELECT * FROM (SELECT '" + s.name + "', " + text(s.key) + ", " + text(s.label) + ", " + text("count(*)") +
			", NULL, NULL, NULL, NULL FROM " + s.from + where + " GROUP BY " + s.key + " ORDER BY count(*) DESC, " + s.key + " LIMIT ?) " + s.name + "_facet")
		args = append(args, limit)
	}
	rows, err := tx.QueryContext(ctx, ix.rebind(b.String()), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("search: facets: %w", err)
	}
	defer rows.Close()
	f := &Facets{}
	targets := map[string]*[]FacetEntry{}
	for _, s := range facetSpecs {
		t := s.target(f)
		*t = []FacetEntry{}
		targets[s.name] = t
	}
	total := 0
	for rows.Next() {
		var facet string
		var c [7]sql.NullString
		if err := rows.Scan(&facet, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6]); err != nil {
			return nil, 0, fmt.Errorf("search: facets: %w", err)
		}
		if facet == "total" {
			total, _ = strconv.Atoi(c[0].String)
			fillRanges(f, c[1:])
			continue
		}
		e := FacetEntry{Key: c[0].String, Name: c[1].String}
		e.Total, _ = strconv.Atoi(c[2].String)
		if facet == "raster_resolution" {
			if v, err := strconv.ParseFloat(e.Key, 64); err == nil {
				e.Key = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		*targets[facet] = append(*targets[facet], e)
	}
	return f, total, rows.Err()
}

// fillRanges sets the range facets from min/max texts.
func fillRanges(f *Facets, c []sql.NullString) {
	i64 := func(s sql.NullString) int64 { v, _ := strconv.ParseInt(s.String, 10, 64); return v }
	f64 := func(s sql.NullString) float64 { v, _ := strconv.ParseFloat(s.String, 64); return v }
	if c[0].Valid {
		f.CreatedAt = &TimeRange{Min: time.UnixMicro(i64(c[0])).UTC(), Max: time.UnixMicro(i64(c[1])).UTC()}
		f.UpdatedAt = &TimeRange{Min: time.UnixMicro(i64(c[2])).UTC(), Max: time.UnixMicro(i64(c[3])).UTC()}
	}
	if c[4].Valid {
		f.RasterResolutionRange = &FloatRange{Min: f64(c[4]), Max: f64(c[5])}
	}
}
