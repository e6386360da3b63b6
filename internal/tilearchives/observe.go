package tilearchives

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	entgo "entgo.io/ent"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setitem"
	tarow "github.com/geopub/geopub/ent/tilearchive"
	"github.com/geopub/geopub/internal/store"
)

const observerName = "tilearchives"

// Install makes every InTx transaction that changes the published
// version of a layer or set queue, in that transaction, a rebuild of its
// archives, and of the raster archives of the sets whose published
// version holds a layer it publishes. Only archives that exist are
// rebuilt: the others are built when first asked for.
func (s *Service) Install() {
	s.Store.Observe(observerName, s.begin)
}

// published are the owners a transaction published.
type published struct {
	mu     sync.Mutex
	layers map[int]bool
	sets   map[int]bool
}

func (s *Service) begin() store.TxObservation {
	p := &published{layers: map[int]bool{}, sets: map[int]bool{}}
	return store.TxObservation{
		Hooks:        []entgo.Hook{p.hook},
		BeforeCommit: func(ctx context.Context, c *ent.Client, tx *sql.Tx) error { return s.rebuild(ctx, c, tx, p) },
	}
}

// hook notes the layers and sets whose published version changes.
func (p *published) hook(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		if (m.Type() != ent.TypeLayer && m.Type() != ent.TypeSet) || !m.Op().Is(entgo.OpUpdate|entgo.OpUpdateOne) {
			return next.Mutate(ctx, m)
		}
		if _, set := m.Field("published_version_id"); !set {
			return next.Mutate(ctx, m)
		}
		ids, err := m.(interface {
			IDs(context.Context) ([]int, error)
		}).IDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("tilearchives: finding the rows of a %s change: %w", m.Type(), err)
		}
		p.mu.Lock()
		for _, id := range ids {
			if m.Type() == ent.TypeLayer {
				p.layers[id] = true
			} else {
				p.sets[id] = true
			}
		}
		p.mu.Unlock()
		return next.Mutate(ctx, m)
	})
}

// rebuild queues the rebuilds of what the transaction published.
func (s *Service) rebuild(ctx context.Context, c *ent.Client, tx *sql.Tx, p *published) error {
	p.mu.Lock()
	layers, sets := keys(p.layers), keys(p.sets)
	p.layers, p.sets = map[int]bool{}, map[int]bool{}
	p.mu.Unlock()
	if len(layers) == 0 && len(sets) == 0 {
		return nil
	}
	if len(layers) > 0 {
		// The sets whose published version holds a published layer.
		vids, err := c.SetItem.Query().Where(setitem.LayerIDIn(layers...)).Select(setitem.FieldSetVersionID).Ints(ctx)
		if err != nil {
			return fmt.Errorf("tilearchives: finding the sets of published layers: %w", err)
		}
		if len(vids) > 0 {
			ids, err := c.Set.Query().Where(set.PublishedVersionIDIn(vids...)).IDs(ctx)
			if err != nil {
				return fmt.Errorf("tilearchives: finding the sets of published layers: %w", err)
			}
			sets = append(sets, ids...)
		}
	}
	as, err := c.TileArchive.Query().Where(tarow.Or(
		tarow.And(tarow.OwnerKindEQ(tarow.OwnerKindLayer), tarow.OwnerIDIn(layers...)),
		tarow.And(tarow.OwnerKindEQ(tarow.OwnerKindSet), tarow.OwnerIDIn(sets...)))).All(ctx)
	if err != nil {
		return fmt.Errorf("tilearchives: finding the archives to rebuild: %w", err)
	}
	for _, a := range as {
		if _, err := s.queue(ctx, c, tx, a, s.userOf(ctx, c, a)); err != nil {
			return fmt.Errorf("tilearchives: queueing the rebuild of archive %d: %w", a.ID, err)
		}
	}
	return nil
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
