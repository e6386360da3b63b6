package ogcfeatures

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/featurerows"
)

// Item is one stored feature of a page: its own copies of the WKB (CRS84)
// and attributes JSON.
type Item struct {
	FID, Row int64
	Geom     []byte
	Attrs    []byte
}

// Page is one page of items.
type Page struct {
	Items []Item
	// Next is the cursor of the following page, nil on the last.
	Next *Cursor
	// Matched is the number of features the request matches, -1 when not
	// counted (filters the database cannot count alone).
	Matched int64
}

// Filter selects items: bbox boxes in CRS84 (two when the bbox crosses
// the antimeridian; none for no bbox) and property filters.
type Filter struct {
	Boxes []Box
	// Outlines, when set, are the exact area of a bbox given in another
	// CRS (InverseBox): Boxes, its envelope, only pick candidates, and a
	// feature must meet one of these.
	Outlines []*geom.Polygon
	Props    map[string]string
	// Time keeps features whose TimeField falls in it.
	Time      *Interval
	TimeField string
	// Expr is a CQL2 filter over Collection's features.
	Expr       cql2.Expr
	Collection *Collection
	// Within narrows the candidates in SQL only: features whose stored
	// box overlaps each of these (the bounds CQL2 S_INTERSECTS imply).
	Within []Box
	// FIDs, when not nil, keeps only features with these ids (WFS
	// resource ids); an empty non-nil list keeps none.
	FIDs []int64
	// FIDProperty, when set, names a property Expr sees holding each
	// feature's id (as a float64): GeoServices' OBJECTID.
	FIDProperty string
}

// empty reports whether f selects everything.
func (f Filter) empty() bool {
	return len(f.Boxes) == 0 && len(f.Props) == 0 && f.Time == nil && f.Expr == nil && f.FIDs == nil
}

// BoxesOf turns a CRS84 bbox [minlon, minlat, maxlon, maxlat] into boxes,
// splitting one that crosses the antimeridian.
func BoxesOf(b [4]float64) []Box {
	if b[0] <= b[2] {
		return []Box{Box(b)}
	}
	return []Box{{b[0], b[1], 180, b[3]}, {-180, b[1], b[2], b[3]}}
}

// Items reads one page of a collection's features in feature-id order,
// after the cursor: keyset paging, never an offset. Rows are read in
// batches with a LIMIT (so the database plans for a few rows, by the
// (version_id, fid) index); filters tested here may need several.
func (s *Service) Items(ctx context.Context, c *Collection, f Filter, after *Cursor, limit int) (Page, error) {
	page := Page{Matched: -1}
	batch := limit + 1
	if !f.empty() {
		// Rows the tests in Go reject make room for more.
		batch = min(max(4*batch, 256), MaxLimit)
	}
	indexed, _ := indexedBoxes(f)
	useIndex, err := featurerows.BoxSelective(ctx, s.store, c.VersionID, indexed...)
	if err != nil {
		return page, fmt.Errorf("ogc features: %w", err)
	}
	for {
		read, last, err := s.itemsBatch(ctx, c, f, useIndex, after, batch, limit, &page)
		if err != nil {
			return page, err
		}
		// A full batch may be followed by more rows: read on until the
		// page and its next match are found or the rows run out.
		if page.Next != nil || read < batch {
			break
		}
		after = &last
	}
	if f.empty() {
		page.Matched = c.FeatureCount
	}
	return page, nil
}

// itemsBatch reads up to batch rows after the cursor into page, stopping
// once the page is full (Next set). It returns the rows read and the last
// one's position.
func (s *Service) itemsBatch(ctx context.Context, c *Collection, f Filter, useIndex bool, after *Cursor, batch, limit int, page *Page) (int, Cursor, error) {
	query, args := s.itemsSQL(c.VersionID, f, useIndex, after, batch)
	release, err := s.store.HeavyRead(ctx)
	if err != nil {
		return 0, Cursor{}, err
	}
	defer release()
	rows, err := s.store.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, Cursor{}, fmt.Errorf("ogc features: reading version %d: %w", c.VersionID, err)
	}
	defer rows.Close()
	dates := featurerows.DateFields(c.Fields)
	var (
		it         Item
		raw, attrs sql.RawBytes
		box        [4]sql.NullFloat64
		read       int
		last       Cursor
	)
	for rows.Next() {
		if err := rows.Scan(&it.FID, &it.Row, &raw, &attrs, &box[0], &box[1], &box[2], &box[3]); err != nil {
			return read, last, fmt.Errorf("ogc features: reading version %d: %w", c.VersionID, err)
		}
		read++
		last = Cursor{FID: it.FID, Row: it.Row}
		hasBox := box[0].Valid && box[1].Valid && box[2].Valid && box[3].Valid
		b := [4]float64{box[0].Float64, box[1].Float64, box[2].Float64, box[3].Float64}
		if !f.matches(it.FID, raw, attrs, b, hasBox) {
			continue
		}
		if len(page.Items) == limit {
			l := page.Items[limit-1]
			page.Next = &Cursor{FID: l.FID, Row: l.Row}
			break
		}
		page.Items = append(page.Items, Item{FID: it.FID, Row: it.Row,
			Geom: bytes.Clone(raw), Attrs: servedAttrs(attrs, dates)})
	}
	if err := rows.Err(); err != nil {
		return read, last, fmt.Errorf("ogc features: reading version %d: %w", c.VersionID, err)
	}
	return read, last, nil
}

// Item returns the first stored feature with fid, nil when none.
func (s *Service) Item(ctx context.Context, c *Collection, fid int64) (*Item, error) {
	it := Item{}
	err := s.store.DB.QueryRowContext(ctx, s.ph("SELECT fid, id, geom, attrs FROM features WHERE version_id = ? AND fid = ? ORDER BY id LIMIT 1"),
		c.VersionID, fid).Scan(&it.FID, &it.Row, &it.Geom, &it.Attrs)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ogc features: reading feature %d of version %d: %w", fid, c.VersionID, err)
	}
	it.Attrs = featurerows.ServeDates(it.Attrs, featurerows.DateFields(c.Fields))
	return &it, nil
}

// servedAttrs is a copy of stored attributes as served: the values of
// date fields as dates, whatever older imports stored (midnight UTC).
func servedAttrs(attrs []byte, dates map[string]bool) []byte {
	return featurerows.ServeDates(bytes.Clone(attrs), dates)
}

// itemsSQL selects the candidates of a page: the version's rows after the
// cursor whose stored box overlaps a bbox box, in (fid, id) order. With
// useIndex the spatial index finds the boxes' rows, sorted after (a
// MATERIALIZED expression, so neither planner walks the fid index
// instead); without, the (version_id, fid) index is walked and each box
// tested.
func (s *Service) itemsSQL(versionID int, f Filter, useIndex bool, after *Cursor, limit int) (string, []any) {
	var b strings.Builder
	indexed, within := indexedBoxes(f)
	where, args := featurerows.BoxScanWhere(versionID, indexed...)
	if useIndex {
		where, args = featurerows.BoxWhere(s.store.Dialect, versionID, indexed...)
	}
	if useIndex {
		b.WriteString("WITH c AS MATERIALIZED (")
	}
	b.WriteString("SELECT fid, id, geom, attrs, minx, miny, maxx, maxy FROM features WHERE ")
	b.WriteString(where)
	if after != nil {
		// fid >= ? lets the (version_id, fid) index bound the scan.
		b.WriteString(" AND fid >= ? AND (fid > ? OR id > ?)")
		args = append(args, after.FID, after.FID, after.Row)
	}
	if f.FIDs != nil {
		b.WriteString(" AND fid IN (")
		for i, fid := range f.FIDs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?")
			args = append(args, fid)
		}
		if len(f.FIDs) == 0 {
			b.WriteString("NULL")
		}
		b.WriteString(")")
	}
	for _, w := range within {
		b.WriteString(" AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?")
		args = append(args, w[2], w[0], w[3], w[1])
	}
	if useIndex {
		b.WriteString(") SELECT * FROM c")
	}
	b.WriteString(" ORDER BY fid, id LIMIT ?")
	args = append(args, limit)
	return s.ph(b.String()), args
}

// indexedBoxes splits a filter's boxes into those the spatial index
// answers (the bbox boxes, any of which a row must meet; else the first
// Within box) and the Within boxes tested beside them.
func indexedBoxes(f Filter) (indexed []featurerows.Box, within []Box) {
	for _, b := range f.Boxes {
		indexed = append(indexed, featurerows.Box(b))
	}
	within = f.Within
	if len(indexed) == 0 && len(within) > 0 {
		indexed, within = []featurerows.Box{featurerows.Box(within[0])}, within[1:]
	}
	return indexed, within
}

// ph rewrites ? placeholders to $n on PostgreSQL.
func (s *Service) ph(query string) string {
	if s.store.Dialect != dialect.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matches applies the exact tests to a candidate row.
func (f Filter) matches(fid int64, g, attrs []byte, box [4]float64, hasBox bool) bool {
	if len(f.Boxes) > 0 {
		if !hasBox || len(g) == 0 {
			return false
		}
		if !f.geometryHits(g, box) {
			return false
		}
	}
	if len(f.Props) > 0 && !propsMatch(f.Props, attrs) {
		return false
	}
	if f.Time != nil {
		t, ok := timeOf(attrs, f.TimeField)
		if !ok || !f.Time.contains(t) {
			return false
		}
	}
	if f.Expr != nil {
		ft := filterFeature(f.Collection, g, attrs)
		if f.FIDProperty != "" {
			if ft.Props == nil {
				ft.Props = map[string]any{}
			}
			ft.Props[f.FIDProperty] = float64(fid)
		}
		if !cql2.Match(f.Expr, ft) {
			return false
		}
	}
	return true
}

// geometryHits: a box wholly inside a bbox box needs no decoding (unless
// the bbox has an outline); others are tested on their geometry.
func (f Filter) geometryHits(wkbBytes []byte, box [4]float64) bool {
	for _, b := range f.Boxes {
		if b.covers(box) && f.Outlines == nil {
			return true
		}
		if !b.overlaps(box) {
			continue
		}
		g, err := wkb.Unmarshal(wkbBytes)
		if err != nil {
			return false
		}
		return f.BoxHits(g)
	}
	return false
}

// BoxHits is the exact bbox test of a geometry: it meets one of the
// outlines, else one of the boxes.
func (f Filter) BoxHits(g geom.T) bool {
	if f.Outlines != nil {
		for _, o := range f.Outlines {
			if cql2.Intersects(o, g) {
				return true
			}
		}
		return false
	}
	for _, b := range f.Boxes {
		if b.Intersects(g) {
			return true
		}
	}
	return false
}

// propsMatch compares each filtered attribute's value, as text, with the
// value asked for: strings as they are, numbers and booleans as JSON
// writes them (1.5, true); null matches nothing.
func propsMatch(props map[string]string, attrs []byte) bool {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(attrs, &m); err != nil {
		return false
	}
	for name, want := range props {
		raw, ok := m[name]
		if !ok || string(raw) == "null" {
			return false
		}
		var got string
		if len(raw) > 0 && raw[0] == '"' {
			if json.Unmarshal(raw, &got) != nil {
				return false
			}
			if got != want {
				return false
			}
			continue
		}
		if string(raw) == want {
			continue
		}
		a, err1 := strconv.ParseFloat(string(raw), 64)
		w, err2 := strconv.ParseFloat(want, 64)
		if err1 != nil || err2 != nil || a != w {
			return false
		}
	}
	return true
}
