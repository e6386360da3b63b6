package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetmark"
	"github.com/geopub/geopub/internal/auth"
)

// itemLoader is the datasetLoader of catalog items, with the caller's
// stars and pins of the listed items.
type itemLoader struct {
	datasetLoader[*ent.CatalogItemVersion]
	// marks are the caller's marks per item (absent: not loaded).
	marks map[int]itemMarks
}

type itemMarks struct{ star, pin bool }

func (l *itemLoader) registerItems(its []*ent.CatalogItem) {
	register(&l.datasetLoader, its, func(x *ent.CatalogItem) int { return x.ID })
}

// itemVersions returns the draft and published versions of item id,
// whoever asks: callers hide drafts from readers.
func (l *itemLoader) itemVersions(ctx context.Context, c *ent.Client, id int) (currentOf[*ent.CatalogItemVersion], error) {
	return l.currentVersions(id, func(ids []int) (map[int]currentOf[*ent.CatalogItemVersion], error) {
		vs, err := c.CatalogItemVersion.Query().
			Where(catalogitemversion.ItemIDIn(ids...), catalogitemversion.StateIn(catalogitemversion.StateDraft, catalogitemversion.StatePublished)).All(ctx)
		return l.byDataset(ids, vs, func(v *ent.CatalogItemVersion) (int, int, bool) {
			return v.ItemID, v.ID, v.State == catalogitemversion.StateDraft
		}), err
	})
}

// mayEditItem reports whether the caller may edit item id.
func (l *itemLoader) mayEditItem(ctx context.Context, c *ent.Client, id int) (bool, error) {
	return l.mayEdit(id, func(ids []int) (map[int]bool, error) {
		pred, err := catalogItemEditable(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		return idSet(c.CatalogItem.Query().Where(catalogitem.IDIn(ids...), pred).IDs(ctx))
	})
}

// callerMarks returns the caller's pin of item id (stars are in
// search_stars: see stars.go).
func (l *itemLoader) callerMarks(ctx context.Context, c *ent.Client, id int) (itemMarks, error) {
	p := auth.FromContext(ctx)
	if !p.Authenticated() {
		return itemMarks{}, nil
	}
	l.mu.Lock()
	if l.marks == nil {
		l.marks = map[int]itemMarks{}
	}
	l.mu.Unlock()
	return lookup(&l.datasetLoader, func() map[int]struct{} { return l.datasets }, func() map[int]itemMarks { return l.marks }, id,
		func(ids []int) (map[int]itemMarks, error) {
			ms, err := c.DatasetMark.Query().Where(datasetmark.DatasetKind(datasetKindItem), datasetmark.DatasetIDIn(ids...),
				datasetmark.UserID(p.User.ID), datasetmark.KindEQ(datasetmark.KindPin)).All(ctx)
			out := make(map[int]itemMarks, len(ids))
			for _, m := range ms {
				im := out[m.DatasetID]
				if m.Kind == datasetmark.KindStar {
					im.star = true
				} else {
					im.pin = true
				}
				out[m.DatasetID] = im
			}
			return out, err
		})
}
