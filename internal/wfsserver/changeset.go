package wfsserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/featurerows"
	of "github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/versiondiff"
)

// Changesets: the feature type layer-{id}-changeset holds the features
// that changed between the versions published at two times (viewparams
// from:{time};to:{time}), each with a __change__ of INSERT, UPDATE or
// DELETE, matched by the layer's primary key and collapsed over the
// range (LINZ/Koordinates semantics): the diff of the two versions, as
// internal/versiondiff computes it, in its order (by primary key). Only
// for layers with a primary key, through the wfs-changesets service rule.
const (
	ChangesetKey    = "wfs-changesets"
	changesetSuffix = "-changeset"
	ChangeColumn    = "__change__"
)

// Change kinds.
const (
	ChangeInsert = "INSERT"
	ChangeUpdate = "UPDATE"
	ChangeDelete = "DELETE"
)

// changesetType returns the changeset type v may read by name, or a
// not-found exception.
func (s *Service) changesetType(ctx context.Context, v *access.Viewer, name, param string) (*featureType, error) {
	c, err := s.f.CollectionFor(ctx, v, strings.TrimSuffix(name, changesetSuffix), ChangesetKey)
	if err != nil {
		return nil, err
	}
	if c == nil || len(c.PrimaryKey) == 0 {
		return nil, notFound(param, name)
	}
	return newChangesetType(c), nil
}

// newChangesetType is c's type with the __change__ column first.
func newChangesetType(c *of.Collection) *featureType {
	t := newFeatureType(c)
	t.name, t.changeset = c.ID+changesetSuffix, true
	f := typeField{Field: schematype.Field{Name: ChangeColumn, Type: "string"}, Element: ChangeColumn}
	t.fields = append([]typeField{f}, t.fields...)
	t.byElement[ChangeColumn] = f.Field
	return t
}

// changesetTypes lists the changeset types v may read.
func (s *Service) changesetTypes(ctx context.Context, v *access.Viewer) ([]*featureType, error) {
	cs, err := s.f.CollectionsFor(ctx, v, ChangesetKey)
	if err != nil {
		return nil, err
	}
	var out []*featureType
	for _, c := range cs {
		if len(c.PrimaryKey) > 0 && !c.Table {
			out = append(out, newChangesetType(c))
		}
	}
	return out, nil
}

// parseViewParams reads from:{time};to:{time} (to defaults to now).
func parseViewParams(s string, now time.Time) (from, to time.Time, err error) {
	to = now
	var haveFrom bool
	for _, part := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(part, ":")
		var t time.Time
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "from", "to":
			var ok bool
			if t, ok = parseTime(strings.TrimSpace(v)); !ok {
				return from, to, invalid("viewparams", "viewparams: %q is not a time (RFC 3339)", clip(v))
			}
		case "":
			continue
		default:
			return from, to, invalid("viewparams", "viewparams takes from:{time};to:{time}, not %q", clip(k))
		}
		if strings.EqualFold(strings.TrimSpace(k), "from") {
			from, haveFrom = t, true
		} else {
			to = t
		}
	}
	if !haveFrom {
		return from, to, &Exception{Status: http.StatusBadRequest, Code: CodeMissingParameter, Locator: "viewparams",
			Text: "a changeset type needs viewparams=from:{time};to:{time}"}
	}
	if to.Before(from) {
		return from, to, invalid("viewparams", "viewparams: to is before from")
	}
	return from, to, nil
}

func parseTime(s string) (time.Time, bool) {
	// An unencoded + of a zone offset arrives as a space.
	s = strings.ReplaceAll(s, " ", "+")
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// versionAt is the version of layer that was published at t (published
// at or before it), nil for none.
func (s *Service) versionAt(ctx context.Context, layer int, t time.Time) (*ent.LayerVersion, error) {
	v, err := s.f.Client().LayerVersion.Query().Where(layerversion.LayerID(layer), layerversion.PublishedAtNotNil(),
		layerversion.PublishedAtLTE(t), layerversion.StateIn(layerversion.StatePublished, layerversion.StateSuperseded)).
		Order(ent.Desc(layerversion.FieldPublishedAt), ent.Desc(layerversion.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// changesetVersions are the versions of c published at from and at to:
// their diff is the changeset from (exclusive) to to, collapsed over the
// range. none is set when nothing can have changed.
func (s *Service) changesetVersions(ctx context.Context, c *of.Collection, from, to time.Time) (a, b versiondiff.Version, none bool, err error) {
	va, err := s.versionAt(ctx, c.LayerID, from)
	if err != nil {
		return a, b, false, err
	}
	vb, err := s.versionAt(ctx, c.LayerID, to)
	if err != nil {
		return a, b, false, err
	}
	a, b = versiondiff.VersionOf(va), versiondiff.VersionOf(vb)
	return a, b, b.ID == 0 || a.ID == b.ID, nil
}

// changeItem is a change as a feature of the changeset type: the new row
// of an insert or update, the old row of a delete, its attributes with
// __change__ first and its date fields (dates) served as dates, as the
// layer's own features are.
func changeItem(ch versiondiff.Change, dates map[string]bool) (of.Item, error) {
	r, kind := ch.New, ChangeUpdate
	switch ch.Op {
	case versiondiff.Insert:
		kind = ChangeInsert
	case versiondiff.Delete:
		r, kind = ch.Old, ChangeDelete
	}
	attrs, err := featurerows.EncodeAttrs(r.Attrs)
	if err != nil {
		return of.Item{}, fmt.Errorf("wfs: changeset feature %d: %w", r.FID, err)
	}
	return withChange(of.Item{FID: r.FID, Geom: r.Geom, Attrs: featurerows.ServeDates(attrs, dates)}, kind), nil
}

// withChange adds __change__ to an item's attributes.
func withChange(it of.Item, kind string) of.Item {
	a := bytes.TrimSpace(it.Attrs)
	var b bytes.Buffer
	b.WriteString(`{"` + ChangeColumn + `":"` + kind + `"`)
	if len(a) > 2 && a[0] == '{' {
		b.WriteByte(',')
		b.Write(a[1:])
	} else {
		b.WriteByte('}')
	}
	it.Attrs = b.Bytes()
	return it
}

// changesetPage answers a GetFeature of a changeset type: the changes
// the filters keep, in the diff's order (by primary key), paged by start
// index, with the number matched. Only the page is held: the diff is
// streamed (internal/versiondiff), and read on past the page only to
// count the matches once per version pair and query; a hits request
// reads no page.
func (s *Service) changesetPage(ctx context.Context, q *query, viewParams string, hits bool, now time.Time) ([]of.Item, int64, bool, error) {
	from, to, err := parseViewParams(viewParams, now)
	if err != nil {
		return nil, 0, false, err
	}
	c := q.t.c
	a, b, none, err := s.changesetVersions(ctx, c, from, to)
	if err != nil || none {
		return nil, 0, false, err
	}
	k := changesetKey{a: a.ID, b: b.ID, served: c.VersionID, query: q.key}
	total, known := s.changesets.total(k)
	limit := q.count
	if hits {
		limit = 0
	}
	if known && (limit == 0 || q.start >= int(total)) {
		return nil, total, false, nil
	}
	filtered := q.filter.FIDs != nil || len(q.filter.Boxes) > 0 || q.filter.Expr != nil
	if !filtered && limit == 0 {
		// Counting needs no rows but those of updates.
		d, err := versiondiff.Compare(ctx, s.f.Store(), a, b, versiondiff.Options{CountOnly: true}, nil)
		if err != nil {
			return nil, 0, false, err
		}
		s.changesets.putTotal(k, d.Counts.Total())
		return nil, d.Counts.Total(), false, nil
	}
	fids := map[int64]bool{}
	for _, id := range q.filter.FIDs {
		fids[id] = true
	}
	dates := featurerows.DateFields(c.Fields)
	var (
		opt  versiondiff.Options
		n    int // the changes kept before this one
		page []of.Item
		last versiondiff.Cursor
	)
	if q.start > 0 {
		if cur, ok := s.changesets.cursor(k, q.start); ok {
			opt.After, n = &cur, q.start
		}
	}
	d, err := versiondiff.Compare(ctx, s.f.Store(), a, b, opt, func(ch versiondiff.Change) error {
		inPage := n >= q.start && len(page) < limit
		if !filtered && !inPage {
			n++
		} else {
			it, err := changeItem(ch, dates)
			if err != nil {
				return err
			}
			if q.filter.FIDs != nil && !fids[it.FID] || !changeMatches(q, it) {
				return nil
			}
			if inPage {
				page, last = append(page, it), ch.Cursor
			}
			n++
		}
		if known && n >= q.start+limit {
			return versiondiff.ErrStop
		}
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	if d.Complete {
		total = int64(n)
		s.changesets.putTotal(k, total)
	}
	if len(page) > 0 {
		s.changesets.putCursor(k, q.start+len(page), last)
	}
	return page, total, int64(q.start+len(page)) < total, nil
}

// changesetKey names a changeset query: the version pair, the version
// served (whose fields say which are dates) and the request's filters.
type changesetKey struct {
	a, b, served int
	query        string
}

// changesetCache remembers of changeset queries what never changes (the
// versions are published): how many changes they match, and where pages
// ended, so that a client paging with STARTINDEX resumes the diff after
// the page before instead of reading it again from the start.
type changesetCache struct {
	mu      sync.Mutex
	totals  map[changesetKey]int64
	cursors map[changesetPos]versiondiff.Cursor
}

type changesetPos struct {
	k     changesetKey
	start int
}

func (c *changesetCache) total(k changesetKey) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.totals[k]
	return n, ok
}

func (c *changesetCache) putTotal(k changesetKey, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.totals == nil || len(c.totals) >= maxCursors {
		c.totals = map[changesetKey]int64{}
	}
	c.totals[k] = n
}

func (c *changesetCache) cursor(k changesetKey, start int) (versiondiff.Cursor, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.cursors[changesetPos{k, start}]
	return cur, ok
}

func (c *changesetCache) putCursor(k changesetKey, start int, cur versiondiff.Cursor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cursors == nil || len(c.cursors) >= maxCursors {
		c.cursors = map[changesetPos]versiondiff.Cursor{}
	}
	c.cursors[changesetPos{k, start}] = cur
}

func changeMatches(q *query, it of.Item) bool {
	var (
		g       geom.T
		decoded bool
	)
	geomOf := func() geom.T {
		if !decoded {
			decoded = true
			g, _ = of.Geometry(it.Geom, nil)
		}
		return g
	}
	if len(q.filter.Boxes) > 0 {
		if geomOf() == nil {
			return false
		}
		if !q.filter.BoxHits(g) {
			return false
		}
	}
	if q.filter.Expr == nil {
		return true
	}
	var props map[string]any
	_ = json.Unmarshal(it.Attrs, &props)
	return cql2.Match(q.filter.Expr, &cql2.Feature{Props: props, IsGeometry: q.t.c.IsGeometry, Geometry: geomOf})
}
