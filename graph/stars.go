package graph

import (
	"context"
	"database/sql"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
)

// Stars: a signed-in user's mark on a dataset (layer, table, set,
// document, catalog item), kept in the search index's search_stars table,
// which the catalogue's is_starred filter reads. Starring needs the
// catalog scope and a dataset the caller may see; both directions are
// idempotent.

// stars is the store's star table.
func (r *Resolver) stars() search.Stars { return search.NewStars(r.Store.DB, r.Store.Dialect) }

// setStar stars (on) or unstars a dataset for the caller, who must be
// signed in with the catalog scope; the caller checked it is visible.
func (r *Resolver) setStar(ctx context.Context, t search.Type, id int, on bool) error {
	uid := auth.FromContext(ctx).User.ID
	err := r.Store.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		if on {
			return r.stars().Star(ctx, tx, uid, t, id)
		}
		return r.stars().Unstar(ctx, tx, uid, t, id)
	})
	loadersFrom(ctx).stars.forget()
	return err
}

// StarLayerOfType is starLayer for the REST collections, where /layers/
// and /tables/ name the type: a layer of the other type is NOT_FOUND.
func (r *Resolver) StarLayerOfType(ctx context.Context, typ layer.Type, id int, on bool) error {
	_, err := r.starLayer(ctx, id, &typ, on)
	return err
}

// StarSet stars or unstars a set (REST).
func (r *Resolver) StarSet(ctx context.Context, id int, on bool) error {
	_, err := r.starSet(ctx, id, on)
	return err
}

// StarDocument stars or unstars a document (REST).
func (r *Resolver) StarDocument(ctx context.Context, id int, on bool) error {
	_, err := r.starDocument(ctx, id, on)
	return err
}

// starLayer stars or unstars a layer or table (of typ, when given) the
// caller may see: NOT_FOUND otherwise, whatever the reason.
func (r *Resolver) starLayer(ctx context.Context, id int, typ *layer.Type, on bool) (*ent.Layer, error) {
	if _, err := access.RequireUser(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	pred, err := layerVisible(ctx, r.Client, p)
	if err != nil {
		return nil, err
	}
	q := r.Client.Layer.Query().Where(layer.ID(id), pred)
	noun := "Layer"
	if typ != nil {
		q.Where(layer.TypeEQ(*typ))
		if *typ == layer.TypeTable {
			noun = "Table"
		}
	}
	l, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "%s %d not found.", noun, id)
	}
	if err != nil {
		return nil, err
	}
	t := search.TypeLayer
	if l.Type == layer.TypeTable {
		t = search.TypeTable
	}
	return l, r.setStar(ctx, t, l.ID, on)
}

func (r *Resolver) starSet(ctx context.Context, id int, on bool) (*ent.Set, error) {
	if _, err := access.RequireUser(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	pred, err := setVisible(ctx, r.Client, p)
	if err != nil {
		return nil, err
	}
	s, err := r.Client.Set.Query().Where(set.ID(id), pred).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Set %d not found.", id)
	}
	if err != nil {
		return nil, err
	}
	return s, r.setStar(ctx, search.TypeSet, s.ID, on)
}

func (r *Resolver) starDocument(ctx context.Context, id int, on bool) (*ent.Document, error) {
	if _, err := access.RequireUser(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	pred, err := documentVisible(ctx, r.Client, p)
	if err != nil {
		return nil, err
	}
	d, err := r.Client.Document.Query().Where(document.ID(id), pred).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Document %d not found.", id)
	}
	if err != nil {
		return nil, err
	}
	return d, r.setStar(ctx, search.TypeDocument, d.ID, on)
}

// starLoader remembers, for one request, which datasets of each type the
// caller starred: one query per type, whatever the page size.
type starLoader struct {
	mu      sync.Mutex
	starred map[search.Type]map[int]bool
}

// forget drops what the loader read (after the caller's stars changed).
func (l *starLoader) forget() {
	l.mu.Lock()
	l.starred = nil
	l.mu.Unlock()
}

// isStarred reports whether the caller starred dataset id of type t; false
// for anonymous callers.
func (r *Resolver) isStarred(ctx context.Context, t search.Type, id int) (bool, error) {
	p := auth.FromContext(ctx)
	if !p.Authenticated() {
		return false, nil
	}
	l := &loadersFrom(ctx).stars
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.starred == nil {
		l.starred = map[search.Type]map[int]bool{}
	}
	ids, ok := l.starred[t]
	if !ok {
		var err error
		if ids, err = r.stars().Starred(ctx, p.User.ID, t); err != nil {
			return false, err
		}
		l.starred[t] = ids
	}
	return ids[id], nil
}

// layerStarType is the star type of a layer or table.
func layerStarType(l *ent.Layer) search.Type {
	if l.Type == layer.TypeTable {
		return search.TypeTable
	}
	return search.TypeLayer
}
