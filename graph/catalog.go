package graph

import (
	"context"
	"errors"
	"strings"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/textrules"
)

// CatalogPage is one page of the catalogue (/data/, the GraphQL search):
// the engine's result and the datasets its hits name, loaded with one
// query per dataset type. Entries lists the hits whose dataset still
// exists, in the engine's order; a hit whose dataset was deleted after
// the search read the index is left out.
type CatalogPage struct {
	Result  search.Result
	Entries []CatalogEntry
}

// CatalogEntry is one hit with its dataset: exactly one of the dataset
// fields is set, by Hit.Ref.Type (tables are Layers).
type CatalogEntry struct {
	Hit      search.Hit
	Layer    *ent.Layer
	Set      *ent.Set
	Document *ent.Document
	Item     *ent.CatalogItem
	Source   *ent.Source
}

// CatalogSearch runs a catalogue query for the caller. The catalogue is
// read with the specification's catalog scope (anonymous callers and
// sessions pass); q.Viewer is always the caller, whatever q says, so the
// engine's live permission rule decides what shows. Mistakes in q (an
// unknown sort, a foreign cursor) and text that breaks the text rules are
// INVALID naming the parameter.
func (r *Resolver) CatalogSearch(ctx context.Context, q search.Query) (*CatalogPage, error) {
	return r.catalogSearch(ctx, auth.ScopeCatalog, q)
}

// catalogSearch is CatalogSearch under the scope a list needs (the
// catalogue's, or a dataset list's own).
func (r *Resolver) catalogSearch(ctx context.Context, scope string, q search.Query) (*CatalogPage, error) {
	if err := access.RequireScope(ctx, scope); err != nil {
		return nil, err
	}
	if err := textrules.Query("q", &q.Q); err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	v, err := access.NewViewer(ctx, r.Client, p)
	if err != nil {
		return nil, err
	}
	q.Viewer = v
	res, err := search.New(r.Store).Search(ctx, q)
	if err != nil {
		if errors.Is(err, search.ErrInvalid) {
			// The engine's messages say which argument they are about.
			field := "q"
			msg := strings.TrimPrefix(err.Error(), search.ErrInvalid.Error()+": ")
			switch {
			case strings.Contains(msg, "sort"):
				field = "sort"
			case strings.Contains(msg, "cursor"):
				field = "cursor"
			case strings.Contains(msg, "page size"), strings.Contains(msg, "offset"):
				field = "page_size"
			}
			return nil, apperr.Field(field, capitalize(msg)+".")
		}
		return nil, err
	}
	entries, err := r.loadCatalogEntries(ctx, res.Hits)
	if err != nil {
		return nil, err
	}
	return &CatalogPage{Result: res, Entries: entries}, nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// loadCatalogEntries loads the datasets of hits, one query per type, and
// registers them with the request's loaders, so rendering a page of them
// (current versions, metadata, owners) costs a constant number of
// statements.
func (r *Resolver) loadCatalogEntries(ctx context.Context, hits []search.Hit) ([]CatalogEntry, error) {
	ids := map[search.Type][]int{}
	for _, h := range hits {
		t := h.Ref.Type
		if t == search.TypeTable {
			t = search.TypeLayer
		}
		ids[t] = append(ids[t], h.Ref.ID)
	}
	layers, err := byID(ids[search.TypeLayer], func(ids []int) ([]*ent.Layer, error) {
		return r.Client.Layer.Query().Where(layer.IDIn(ids...)).All(ctx)
	}, func(l *ent.Layer) int { return l.ID })
	if err != nil {
		return nil, err
	}
	sets, err := byID(ids[search.TypeSet], func(ids []int) ([]*ent.Set, error) {
		return r.Client.Set.Query().Where(set.IDIn(ids...)).All(ctx)
	}, func(s *ent.Set) int { return s.ID })
	if err != nil {
		return nil, err
	}
	docs, err := byID(ids[search.TypeDocument], func(ids []int) ([]*ent.Document, error) {
		return r.Client.Document.Query().Where(document.IDIn(ids...)).All(ctx)
	}, func(d *ent.Document) int { return d.ID })
	if err != nil {
		return nil, err
	}
	items, err := byID(ids[search.TypeItem], func(ids []int) ([]*ent.CatalogItem, error) {
		return r.Client.CatalogItem.Query().Where(catalogitem.IDIn(ids...)).All(ctx)
	}, func(it *ent.CatalogItem) int { return it.ID })
	if err != nil {
		return nil, err
	}
	sources, err := byID(ids[search.TypeSource], func(ids []int) ([]*ent.Source, error) {
		return r.Client.Source.Query().Where(source.IDIn(ids...)).All(ctx)
	}, func(s *ent.Source) int { return s.ID })
	if err != nil {
		return nil, err
	}
	// Sources show their URL and options to their editors only, as their
	// direct lookup does.
	for id, src := range sources {
		if sources[id], err = r.redactSource(ctx, src); err != nil {
			return nil, err
		}
	}
	l := loadersFrom(ctx)
	l.layers.registerLayers(values(layers))
	l.sets.registerSets(values(sets))
	l.documents.registerDocuments(values(docs))
	l.items.registerItems(values(items))
	if err := primeOwners(ctx, r.Client, values(docs), func(d *ent.Document) (int, *int) { return d.UserID, d.GroupID }); err != nil {
		return nil, err
	}
	if err := primeOwners(ctx, r.Client, values(sets), func(s *ent.Set) (int, *int) { return s.UserID, s.GroupID }); err != nil {
		return nil, err
	}
	if err := primeOwners(ctx, r.Client, values(items), func(it *ent.CatalogItem) (int, *int) { return it.UserID, it.GroupID }); err != nil {
		return nil, err
	}
	if err := primeOwners(ctx, r.Client, values(sources), func(s *ent.Source) (int, *int) { return s.UserID, s.GroupID }); err != nil {
		return nil, err
	}
	if err := primeOwners(ctx, r.Client, values(layers), func(ly *ent.Layer) (int, *int) { return ly.UserID, ly.GroupID }); err != nil {
		return nil, err
	}
	out := make([]CatalogEntry, 0, len(hits))
	for _, h := range hits {
		e := CatalogEntry{Hit: h}
		switch h.Ref.Type {
		case search.TypeLayer, search.TypeTable:
			e.Layer = layers[h.Ref.ID]
		case search.TypeSet:
			e.Set = sets[h.Ref.ID]
		case search.TypeDocument:
			e.Document = docs[h.Ref.ID]
		case search.TypeItem:
			e.Item = items[h.Ref.ID]
		case search.TypeSource:
			e.Source = sources[h.Ref.ID]
		}
		if e.Layer == nil && e.Set == nil && e.Document == nil && e.Item == nil && e.Source == nil {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// byID loads the entities of ids (none when ids is empty) keyed by id.
func byID[T any](ids []int, load func([]int) ([]T, error), id func(T) int) (map[int]T, error) {
	out := map[int]T{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := load(ids)
	if err != nil {
		return nil, err
	}
	for _, x := range list {
		out[id(x)] = x
	}
	return out, nil
}

func values[T any](m map[int]T) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// primeOwners is primePeople for a list that may be empty (then no query
// runs).
func primeOwners[T any](ctx context.Context, c *ent.Client, items []T, owner func(T) (int, *int)) error {
	if len(items) == 0 {
		return nil
	}
	return primePeople(ctx, c, items, owner)
}

// MyCatalogSearch is CatalogSearch over the caller's own data
// (/users/me/data/): the datasets the caller publishes and those the
// groups they belong to own, latest versions by default, so their drafts
// show too (to those who may edit them). Anonymous callers get 401.
func (r *Resolver) MyCatalogSearch(ctx context.Context, q search.Query) (*CatalogPage, error) {
	u, err := access.RequireUser(ctx, auth.ScopeCatalog)
	if err != nil {
		return nil, err
	}
	groups, err := r.Client.GroupMembership.Query().Where(groupmembership.UserID(u.ID)).
		Select(groupmembership.FieldGroupID).Ints(ctx)
	if err != nil {
		return nil, err
	}
	q.Owner = &search.Owner{UserID: u.ID, GroupIDs: groups}
	q.State = search.Latest
	return r.catalogSearch(ctx, auth.ScopeCatalog, q)
}

// Dataset is a member of the GraphQL Dataset union: *ent.Layer, *ent.Set,
// *ent.Document, *ent.CatalogItem or *ent.Source.
type Dataset any

// listScopes are the scopes of the dataset lists (each list's own read
// scope, as its store-backed path requires).
var listScopes = map[search.Type]string{
	search.TypeLayer: auth.ScopeLayersRead, search.TypeTable: auth.ScopeLayersRead, search.TypeSet: auth.ScopeSetsRead,
	search.TypeDocument: auth.ScopeDocumentsRead, search.TypeItem: auth.ScopeCatalog, search.TypeSource: auth.ScopeSourcesRead,
}

// DatasetListSearch is CatalogSearch for one dataset list (/layers/,
// /tables/, /sets/, /documents/, /items/, /sources/): restricted to the
// list's types (/layers/ holds layers and tables, api-shapes §2), under
// the list's own read scope, the scope of its first type.
func (r *Resolver) DatasetListSearch(ctx context.Context, q search.Query, t search.Type, more ...search.Type) (*CatalogPage, error) {
	q.Types = append([]search.Type{t}, more...)
	return r.catalogSearch(ctx, listScopes[t], q)
}

// GeotagGeometries returns a geometry (GeoJSON) for each geotag name the
// caller may see on some catalog item, for the geotag facet's geom
// (spec: "geom (null unless geotag.geometry=true)"). Geotags are an
// item's own named places; when items share a name, the oldest geotag's
// geometry stands for it. Names no visible item has are left out.
func (r *Resolver) GeotagGeometries(ctx context.Context, names []string) (map[string]any, error) {
	out := map[string]any{}
	if len(names) == 0 {
		return out, nil
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	gs, err := r.Client.CatalogItemGeotag.Query().Where(catalogitemgeotag.NameIn(names...), func(s *entsql.Selector) {
		t := entsql.Table(catalogitem.Table)
		visible := entsql.Select(t.C(catalogitem.FieldID)).From(t)
		v.Filter(access.KindCatalogItem, access.View)(visible)
		s.Where(entsql.In(s.C(catalogitemgeotag.FieldItemID), visible))
	}).Order(ent.Asc(catalogitemgeotag.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if _, ok := out[g.Name]; !ok && g.Geometry != nil {
			out[g.Name] = g.Geometry
		}
	}
	return out, nil
}
