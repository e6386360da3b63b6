package wfsserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/cql2"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Changesets: the feature type layer-{id}-changeset holds the features
// that changed between the versions published at two times (viewparams
// from:{time};to:{time}), each with a __change__ of INSERT, UPDATE or
// DELETE, matched by the layer's primary key and collapsed over the
// range (LINZ/Koordinates semantics). Only for layers with a primary key,
// through the wfs-changesets service rule.
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

// versionAt is the id of the version of layer that was published at t
// (published at or before it), 0 for none.
func (s *Service) versionAt(ctx context.Context, layer int, t time.Time) (int, error) {
	v, err := s.f.Client().LayerVersion.Query().Where(layerversion.LayerID(layer), layerversion.PublishedAtNotNil(),
		layerversion.PublishedAtLTE(t), layerversion.StateIn(layerversion.StatePublished, layerversion.StateSuperseded)).
		Order(ent.Desc(layerversion.FieldPublishedAt), ent.Desc(layerversion.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return v.ID, nil
}

// change is one changed feature: the new one for inserts and updates,
// the old one for deletes, its attributes with __change__.
type change = of.Item

// diffs remembers computed changesets by version pair: versions never
// change once published.
type diffs struct {
	mu sync.Mutex
	m  map[[2]int][]change
}

const maxDiffs = 16

func (d *diffs) get(k [2]int) ([]change, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.m[k]
	return c, ok
}

func (d *diffs) put(k [2]int, c []change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m) >= maxDiffs {
		d.m = map[[2]int][]change{}
	}
	d.m[k] = c
}

// changes returns the changes of c between the versions published at
// from (exclusive) and to, in feature-id order.
func (s *Service) changes(ctx context.Context, c *of.Collection, from, to time.Time) ([]change, error) {
	a, err := s.versionAt(ctx, c.LayerID, from)
	if err != nil {
		return nil, err
	}
	b, err := s.versionAt(ctx, c.LayerID, to)
	if err != nil {
		return nil, err
	}
	if a == b || b == 0 {
		return nil, nil
	}
	k := [2]int{a, b}
	if out, ok := s.diffs.get(k); ok {
		return out, nil
	}
	out, err := s.diff(ctx, c, a, b)
	if err != nil {
		return nil, err
	}
	s.diffs.put(k, out)
	return out, nil
}

type baseEntry struct {
	sum [32]byte
	fid int64
}

// diff compares versions a (0 for none) and b by primary key.
func (s *Service) diff(ctx context.Context, c *of.Collection, a, b int) ([]change, error) {
	base := map[string]baseEntry{}
	if a != 0 {
		err := s.scan(ctx, c, a, of.Filter{}, func(it of.Item) {
			base[pkOf(c.PrimaryKey, it.Attrs)] = baseEntry{sum: sumOf(it), fid: it.FID}
		})
		if err != nil {
			return nil, err
		}
	}
	var out []change
	err := s.scan(ctx, c, b, of.Filter{}, func(it of.Item) {
		k := pkOf(c.PrimaryKey, it.Attrs)
		e, ok := base[k]
		switch {
		case !ok:
			out = append(out, withChange(it, ChangeInsert))
		case e.sum != sumOf(it):
			out = append(out, withChange(it, ChangeUpdate))
		}
		delete(base, k)
	})
	if err != nil {
		return nil, err
	}
	if len(base) > 0 {
		fids := make([]int64, 0, len(base))
		for _, e := range base {
			fids = append(fids, e.fid)
		}
		sort.Slice(fids, func(i, j int) bool { return fids[i] < fids[j] })
		for len(fids) > 0 {
			n := min(len(fids), 500)
			err := s.scan(ctx, c, a, of.Filter{FIDs: fids[:n]}, func(it of.Item) {
				out = append(out, withChange(it, ChangeDelete))
			})
			if err != nil {
				return nil, err
			}
			fids = fids[n:]
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FID < out[j].FID })
	return out, nil
}

// scan reads every feature of version vid of c (that f keeps).
func (s *Service) scan(ctx context.Context, c *of.Collection, vid int, f of.Filter, fn func(of.Item)) error {
	cv := *c
	cv.VersionID = vid
	var after *of.Cursor
	for {
		p, err := s.f.Items(ctx, &cv, f, after, of.MaxLimit)
		if err != nil {
			return err
		}
		for _, it := range p.Items {
			fn(it)
		}
		if p.Next == nil {
			return nil
		}
		after = p.Next
	}
}

func pkOf(fields []string, attrs []byte) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(attrs, &m)
	var b strings.Builder
	for _, f := range fields {
		b.Write(m[f])
		b.WriteByte(0)
	}
	return b.String()
}

func sumOf(it of.Item) [32]byte {
	h := sha256.New()
	h.Write(it.Geom)
	h.Write([]byte{0})
	h.Write(it.Attrs)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// withChange adds __change__ to an item's attributes.
func withChange(it of.Item, kind string) change {
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
// the filters keep, paged by start index.
func (s *Service) changesetPage(ctx context.Context, q *query, viewParams string, now time.Time) ([]of.Item, int64, bool, error) {
	from, to, err := parseViewParams(viewParams, now)
	if err != nil {
		return nil, 0, false, err
	}
	all, err := s.changes(ctx, q.t.c, from, to)
	if err != nil {
		return nil, 0, false, err
	}
	var kept []of.Item
	fids := map[int64]bool{}
	for _, id := range q.filter.FIDs {
		fids[id] = true
	}
	for _, it := range all {
		if q.filter.FIDs != nil && !fids[it.FID] {
			continue
		}
		if !changeMatches(q, it) {
			continue
		}
		kept = append(kept, it)
	}
	start := min(q.start, len(kept))
	end := min(start+q.count, len(kept))
	return kept[start:end], int64(len(kept)), end < len(kept), nil
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
