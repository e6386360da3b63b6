package changefeed

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/changeevent"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
)

// Query selects a page of the feed.
type Query struct {
	// After is the cursor of the last event seen (0: the start).
	After int64
	// Dataset, when set, keeps that dataset's events only.
	Dataset *Ref
	// Types, when set, keeps those types only.
	Types []string
	// Limit is the most events returned.
	Limit int
	// Latest reads the newest Limit events, newest first, instead of
	// those after After (what a feed reader shows); Next is then the
	// newest event's cursor.
	Latest bool
}

// Page is a page of the feed. Next is the cursor to read on from, even
// when the page is empty: events the caller may not see are skipped, and
// a page that found none says where the next read starts.
type Page struct {
	Events []Event
	Next   int64
	// Total counts the events the query selects that the caller may see
	// after the cursor (of Latest: in the whole feed), this page included.
	Total int
}

// datasetTables are the tables of each dataset kind, for visibility.
var datasetTables = []struct {
	kind  access.Kind
	table string
}{
	{access.KindLayer, layer.Table},
	{access.KindSet, set.Table},
	{access.KindDocument, document.Table},
	{access.KindCatalogItem, catalogitem.Table},
}

// List reads a page of the events v may see (see the package doc), in
// feed order, through c.
func List(ctx context.Context, c *ent.Client, v *access.Viewer, q Query) (Page, error) {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	// The newest event first: every event up to it has committed (see
	// Order in the package doc), so a short page may move the cursor
	// there, past events the caller may not see, without skipping any
	// committed after this read began.
	newest, err := newestID(ctx, c)
	if err != nil {
		return Page{}, err
	}
	p := Page{Next: q.After}
	if newest <= q.After {
		return p, nil
	}
	qb := c.ChangeEvent.Query().Where(changeevent.IDGT(int(q.After)), changeevent.IDLTE(int(newest)))
	if q.Dataset != nil {
		qb.Where(changeevent.DatasetKind(string(q.Dataset.Kind)), changeevent.DatasetID(q.Dataset.ID))
	}
	if len(q.Types) > 0 {
		qb.Where(changeevent.TypeIn(q.Types...))
	}
	if !v.SiteAdmin {
		qb.Where(func(s *sql.Selector) { s.Where(visible(s, v)) })
	}
	total, err := qb.Clone().Count(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("changefeed: counting the feed: %w", err)
	}
	p.Total = total
	qb.Limit(q.Limit)
	if q.Latest {
		qb.Order(ent.Desc(changeevent.FieldID))
	} else {
		qb.Order(ent.Asc(changeevent.FieldID))
	}
	rows, err := qb.All(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("changefeed: reading the feed: %w", err)
	}
	p.Events = make([]Event, len(rows))
	for i, r := range rows {
		p.Events[i] = FromEnt(r)
		p.Next = int64(r.ID)
	}
	if len(rows) < q.Limit || q.Latest {
		p.Next = newest
	}
	return p, nil
}

// visible is the predicate on change_events (selected by s) of the events
// v may see: those of datasets v may see now, and those of datasets
// deleted while everyone could view them.
func visible(s *sql.Selector, v *access.Viewer) *sql.Predicate {
	var ps []*sql.Predicate
	for _, k := range datasetTables {
		t := sql.Table(k.table)
		ids := sql.Select(t.C("id")).From(t)
		v.Visible(k.kind)(ids)
		ps = append(ps, sql.And(sql.EQ(s.C(changeevent.FieldDatasetKind), string(k.kind)), sql.In(s.C(changeevent.FieldDatasetID), ids)))
	}
	d := sql.Table(changeevent.Table).As("gone")
	gone := sql.Select(d.C(changeevent.FieldDatasetID)).From(d).Where(sql.And(
		sql.EQ(d.C(changeevent.FieldType), Deleted),
		sql.ColumnsEQ(d.C(changeevent.FieldDatasetKind), s.C(changeevent.FieldDatasetKind)),
		sql.EQ(d.C(changeevent.FieldPublic), true),
	))
	ps = append(ps, sql.In(s.C(changeevent.FieldDatasetID), gone))
	return sql.Or(ps...)
}

// newestID is the id of the newest event, 0 when the feed is empty.
func newestID(ctx context.Context, c *ent.Client) (int64, error) {
	ids, err := c.ChangeEvent.Query().Order(ent.Desc(changeevent.FieldID)).Limit(1).IDs(ctx)
	if err != nil {
		return 0, fmt.Errorf("changefeed: reading the feed: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return int64(ids[0]), nil
}

// MaySee reports whether v may see e now, as List decides: through c,
// which may be a transaction's client.
func MaySee(ctx context.Context, c *ent.Client, v *access.Viewer, e Event) (bool, error) {
	p, err := List(ctx, c, v, Query{After: e.ID - 1, Limit: 1, Dataset: &e.Dataset})
	if err != nil {
		return false, err
	}
	return len(p.Events) == 1 && p.Events[0].ID == e.ID, nil
}
