package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	cr "github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/search"
)

// recordBatch is how many index hits one scan step turns into records:
// a filtered total reads every candidate, a constant number of
// statements per batch.
const recordBatch = 1000

// defaultRecordPage is a page of records when the caller names no size.
const defaultRecordPage = 10

// CatalogRecords answers q for the caller in ctx: the published layers,
// tables, sets, documents and catalog items the caller may view (the
// catalogue's index and its live permission rule, as /data/), sources
// and the data of groups that keep out of public feeds left out, q.Filter
// applied to every candidate. The records of the page get their links,
// services, export formats and uploaded ISO document; those only counted
// do not.
func (r *Resolver) CatalogRecords(ctx context.Context, q cr.Query) (*cr.Page, error) {
	if err := access.RequireScope(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	sq, err := r.recordSearch(q)
	if err != nil {
		return nil, err
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	sq.Viewer = v
	quiet, err := r.feedlessGroups(ctx)
	if err != nil {
		return nil, err
	}
	for g := range quiet {
		sq.ExcludeGroupIDs = append(sq.ExcludeGroupIDs, g)
	}
	keep := recordFilter(q)
	limit := q.Limit
	switch {
	case limit == 0:
		limit = defaultRecordPage
	case limit > cr.MaxLimit:
		limit = cr.MaxLimit
	case limit < 0:
		limit = 0
	}
	// Without a filter of our own, the index's total is the answer and the
	// scan stops with the page; with one, counting needs every candidate.
	exactTotal := keep == nil
	start := cr.Cursor{Sort: q.Sort}
	if q.Cursor != "" {
		if q.Offset > 0 {
			return nil, apperr.Field("cursor", "Give either a cursor or an offset, not both.")
		}
		if start, err = cr.DecodeCursor(q.Cursor, q.Sort); err != nil {
			return nil, apperr.Field("cursor", capitalize(strings.TrimPrefix(err.Error(), cr.ErrInvalid.Error()+": "))+".")
		}
	}
	page := &cr.Page{Matched: start.Seen}
	skip := max(q.Offset, 0)
	if exactTotal && q.Cursor == "" {
		// The index skips for us.
		sq.Offset, skip = skip, 0
	}
	seen := start.Seen + q.Offset - skip // matches before the next candidate
	batch, more := start.Batch, false
	size := recordBatch
	if exactTotal {
		// Every hit is a match: the page and one more tell all.
		size = min(limit+1, recordBatch)
	}
	for first := true; ; first = false {
		sq.Cursor, sq.Limit = batch, size
		if !first {
			sq.Offset = 0
		}
		res, err := search.New(r.Store).Search(ctx, sq)
		if err != nil {
			if errors.Is(err, search.ErrInvalid) {
				return nil, apperr.Field("cursor", "The cursor is not one this service made.")
			}
			return nil, err
		}
		if first && exactTotal {
			page.Matched = res.TotalCount
		}
		entries, err := r.loadCatalogEntries(ctx, res.Hits)
		if err != nil {
			return nil, err
		}
		recs, err := r.describeRecords(ctx, entries)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			rec := &recs[i].rec
			if keep != nil && !keep(rec) {
				continue
			}
			if !exactTotal {
				page.Matched++
			}
			switch {
			case skip > 0:
				skip--
				seen++
			case len(page.Records) < limit:
				page.Records = append(page.Records, *rec)
				seen++
				page.Next = cr.Cursor{Batch: recs[i].hit.Cursor, Seen: seen, Sort: q.Sort}.Encode()
			default:
				more = true
				if exactTotal {
					return r.finishRecords(ctx, q, page, more)
				}
			}
		}
		if res.NextCursor == "" {
			return r.finishRecords(ctx, q, page, more)
		}
		batch = res.NextCursor
	}
}

// finishRecords fills the page's records for rendering; more reports
// whether a match follows the page (else it has no Next).
func (r *Resolver) finishRecords(ctx context.Context, q cr.Query, page *cr.Page, more bool) (*cr.Page, error) {
	if !more {
		page.Next = ""
	}
	if err := r.completeRecords(ctx, page.Records, q.Origin); err != nil {
		return nil, err
	}
	return page, nil
}

// recordSearch is the index query under q.
func (r *Resolver) recordSearch(q cr.Query) (search.Query, error) {
	sq := search.Query{State: search.Published, Q: q.Text, GroupIDs: q.GroupIDs}
	types := q.Types
	if len(types) == 0 {
		types = cr.Types
	}
	for _, t := range types {
		switch t {
		case cr.Layer:
			sq.Types = append(sq.Types, search.TypeLayer)
		case cr.Table:
			sq.Types = append(sq.Types, search.TypeTable)
		case cr.Set:
			sq.Types = append(sq.Types, search.TypeSet)
		case cr.Document:
			sq.Types = append(sq.Types, search.TypeDocument)
		case cr.Item:
			sq.Types = append(sq.Types, search.TypeItem)
		default:
			return sq, apperr.Field("type", fmt.Sprintf("Unknown record type %q: use layer, table, set, document or item.", t))
		}
	}
	switch q.Sort {
	case cr.SortDefault:
	case cr.SortTitle:
		sq.Sort = search.SortName
	case cr.SortTitleDesc:
		sq.Sort = search.SortNameDesc
	case cr.SortModified:
		sq.Sort = search.SortUpdatedOld
	case cr.SortModifiedDesc:
		sq.Sort = search.SortUpdated
	default:
		return sq, apperr.Field("sort", fmt.Sprintf("Unknown sort %q: use title, -title, modified or -modified.", q.Sort))
	}
	return sq, nil
}

// recordFilter is what q asks beyond the index (identifiers, box, dates,
// its Filter); nil when nothing.
func recordFilter(q cr.Query) func(*cr.Record) bool {
	var ids map[string]bool
	if q.IDs != nil {
		ids = map[string]bool{}
		for _, id := range q.IDs {
			ids[id] = true
		}
	}
	if ids == nil && q.BBox == nil && q.ModifiedAfter == nil && q.ModifiedBefore == nil && q.Filter == nil {
		return nil
	}
	return func(rec *cr.Record) bool {
		switch {
		case ids != nil && !ids[rec.Identifier]:
			return false
		case q.BBox != nil && !rec.Intersects(q.BBox):
			return false
		case q.ModifiedAfter != nil && rec.Modified.Before(*q.ModifiedAfter):
			return false
		case q.ModifiedBefore != nil && rec.Modified.After(*q.ModifiedBefore):
			return false
		case q.Filter != nil && !q.Filter(rec):
			return false
		}
		return true
	}
}

// feedlessGroups are the groups whose data stays out of public feeds
// (catalog_feeds_enabled false).
func (r *Resolver) feedlessGroups(ctx context.Context) (map[int]bool, error) {
	ids, err := r.Client.Group.Query().Where(group.CatalogFeedsEnabled(false)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// CatalogRecord is one record by identifier, for the caller in ctx;
// unknown identifiers, unpublished datasets, those the caller may not
// view and those of feedless groups are all not found.
func (r *Resolver) CatalogRecord(ctx context.Context, identifier, origin string) (*cr.Record, error) {
	if err := access.RequireScope(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	notFound := apperr.New(apperr.NotFound, "No record %q in this catalogue.", identifier)
	t, id, ok := cr.ParseIdentifier(identifier)
	if !ok {
		return nil, notFound
	}
	entry, kind, group, err := r.recordEntry(ctx, t, id)
	if err != nil || entry == nil {
		return nil, orNotFound(err, notFound)
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	lv, err := v.Level(ctx, r.Client, kind, id, group)
	if err != nil {
		return nil, err
	}
	quiet, err := r.feedlessGroups(ctx)
	if err != nil {
		return nil, err
	}
	if lv < access.View || (group != nil && quiet[*group]) {
		return nil, notFound
	}
	recs, err := r.describeRecords(ctx, []CatalogEntry{*entry})
	if err != nil || len(recs) == 0 {
		return nil, orNotFound(err, notFound)
	}
	if recs[0].rec.Type != t {
		return nil, notFound
	}
	out := []cr.Record{recs[0].rec}
	if err := r.completeRecords(ctx, out, origin); err != nil {
		return nil, err
	}
	return &out[0], nil
}

func orNotFound(err, notFound error) error {
	if err != nil {
		return err
	}
	return notFound
}

// MaxRecordGroups bounds the groups CatalogRecordGroups lists.
const MaxRecordGroups = 10000

// CatalogRecordGroups are the groups owning at least one record the
// caller in ctx may see (the records' rule: published, sources and
// feedless groups left out), each with its name and how many: the
// catalogue's group facet over the records' query. A group other than 0
// restricts the answer to that one.
func (r *Resolver) CatalogRecordGroups(ctx context.Context, group int) ([]search.FacetEntry, error) {
	sq, err := r.recordSearch(cr.Query{})
	if err != nil {
		return nil, err
	}
	quiet, err := r.feedlessGroups(ctx)
	if err != nil {
		return nil, err
	}
	if quiet[group] {
		return nil, nil
	}
	for g := range quiet {
		sq.ExcludeGroupIDs = append(sq.ExcludeGroupIDs, g)
	}
	if group != 0 {
		sq.GroupIDs = []int{group}
	}
	sq.Limit, sq.Facets, sq.FacetLimit = 1, true, MaxRecordGroups
	page, err := r.CatalogSearch(ctx, sq)
	if err != nil || page.Result.Facets == nil {
		return nil, err
	}
	var out []search.FacetEntry
	for _, g := range page.Result.Facets.Group {
		if g.Total > 0 && (group == 0 || g.Key == strconv.Itoa(group)) {
			out = append(out, g)
		}
	}
	return out, nil
}
