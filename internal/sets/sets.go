// Package sets reads and writes the ordered members of set versions, and
// writes new sets and their drafts (Service). The front doors use it, and
// so can readers that do not go through GraphQL, such as the set point
// query, which needs "the members of the published version of a set, in
// order".
package sets

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setitem"
)

// Members returns the member layers and tables of each set version, in set
// order, keyed by version id; every version asked for has an entry. Only
// layers matching visible (all, when none is given) are returned. It costs
// two statements whatever the number of versions.
func Members(ctx context.Context, c *ent.Client, versionIDs []int, visible ...predicate.Layer) (map[int][]*ent.Layer, error) {
	out := make(map[int][]*ent.Layer, len(versionIDs))
	if len(versionIDs) == 0 {
		return out, nil
	}
	q := c.SetItem.Query().Where(setitem.SetVersionIDIn(versionIDs...))
	if len(visible) > 0 {
		q.Where(setitem.HasLayerWith(visible...))
	}
	items, err := q.Order(setitem.BySetVersionID(), setitem.ByPosition()).WithLayer().All(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range versionIDs {
		out[id] = []*ent.Layer{}
	}
	for _, it := range items {
		out[it.SetVersionID] = append(out[it.SetVersionID], it.Edges.Layer)
	}
	return out, nil
}

// Published returns the members of the published version of set setID, in
// order, limited to layers matching visible. A set that does not exist or
// was never published has none: the result is nil and ok is false.
func Published(ctx context.Context, c *ent.Client, setID int, visible ...predicate.Layer) (layers []*ent.Layer, ok bool, err error) {
	s, err := c.Set.Query().Where(set.ID(setID), set.PublishedVersionIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	m, err := Members(ctx, c, []int{*s.PublishedVersionID}, visible...)
	if err != nil {
		return nil, false, err
	}
	return m[*s.PublishedVersionID], true, nil
}

// Replace makes layerIDs, in order, the members of a set version. The
// caller has checked them; run it in the transaction that checked them.
func Replace(ctx context.Context, c *ent.Client, versionID int, layerIDs []int) error {
	if _, err := c.SetItem.Delete().Where(setitem.SetVersionID(versionID)).Exec(ctx); err != nil {
		return err
	}
	return add(ctx, c, versionID, layerIDs)
}

// Copy gives version to the members of version from, in the same order.
func Copy(ctx context.Context, c *ent.Client, from, to int) error {
	ids, err := c.SetItem.Query().Where(setitem.SetVersionID(from)).
		Order(setitem.ByPosition()).Select(setitem.FieldLayerID).Ints(ctx)
	if err != nil {
		return err
	}
	return add(ctx, c, to, ids)
}

func add(ctx context.Context, c *ent.Client, versionID int, layerIDs []int) error {
	if len(layerIDs) == 0 {
		return nil
	}
	creates := make([]*ent.SetItemCreate, len(layerIDs))
	for i, id := range layerIDs {
		creates[i] = c.SetItem.Create().SetSetVersionID(versionID).SetPosition(i).SetLayerID(id)
	}
	return c.SetItem.CreateBulk(creates...).Exec(ctx)
}
