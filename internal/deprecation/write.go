package deprecation

import (
	"context"
	"fmt"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
)

// read is d's deprecation as c reads it, nil when it is not deprecated.
func read(ctx context.Context, c *ent.Client, d Dataset) (*Notice, error) {
	var n *Notice
	var err error
	switch d.Type {
	case "layer", "table":
		var x *ent.Layer
		if x, err = c.Layer.Query().Where(layer.ID(d.ID)).Select(layer.FieldDeprecatedAt, layer.FieldDeprecationReason,
			layer.FieldReplacementType, layer.FieldReplacementID).Only(ctx); err == nil {
			n = Of(x.DeprecatedAt, x.DeprecationReason, x.ReplacementType, x.ReplacementID)
		}
	case "set":
		var x *ent.Set
		if x, err = c.Set.Query().Where(set.ID(d.ID)).Select(set.FieldDeprecatedAt, set.FieldDeprecationReason,
			set.FieldReplacementType, set.FieldReplacementID).Only(ctx); err == nil {
			n = Of(x.DeprecatedAt, x.DeprecationReason, x.ReplacementType, x.ReplacementID)
		}
	case "document":
		var x *ent.Document
		if x, err = c.Document.Query().Where(document.ID(d.ID)).Select(document.FieldDeprecatedAt, document.FieldDeprecationReason,
			document.FieldReplacementType, document.FieldReplacementID).Only(ctx); err == nil {
			n = Of(x.DeprecatedAt, x.DeprecationReason, x.ReplacementType, x.ReplacementID)
		}
	case "item":
		var x *ent.CatalogItem
		if x, err = c.CatalogItem.Query().Where(catalogitem.ID(d.ID)).Select(catalogitem.FieldDeprecatedAt, catalogitem.FieldDeprecationReason,
			catalogitem.FieldReplacementType, catalogitem.FieldReplacementID).Only(ctx); err == nil {
			n = Of(x.DeprecatedAt, x.DeprecationReason, x.ReplacementType, x.ReplacementID)
		}
	default:
		return nil, fmt.Errorf("deprecation: %q is not a dataset type", d.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("deprecation: reading %s %d: %w", d.Type, d.ID, err)
	}
	return n, nil
}

// marks is the update of one dataset row of any kind (U is the kind's
// Ent update builder): what write sets of it.
type marks[U any] interface {
	SetDeprecatedAt(time.Time) U
	ClearDeprecatedAt() U
	SetDeprecationReason(string) U
	ClearDeprecationReason() U
	SetReplacementType(string) U
	ClearReplacementType() U
	SetReplacementID(int) U
	ClearReplacementID() U
	Exec(context.Context) error
}

// write sets d's deprecation to n, or clears it when n is nil, through c
// (a transaction's client, whose hooks the change feed observes).
func write(ctx context.Context, c *ent.Client, d Dataset, n *Notice) error {
	var err error
	switch d.Type {
	case "layer", "table":
		err = apply(ctx, c.Layer.UpdateOneID(d.ID), n)
	case "set":
		err = apply(ctx, c.Set.UpdateOneID(d.ID), n)
	case "document":
		err = apply(ctx, c.Document.UpdateOneID(d.ID), n)
	case "item":
		err = apply(ctx, c.CatalogItem.UpdateOneID(d.ID), n)
	default:
		err = fmt.Errorf("%q is not a dataset type", d.Type)
	}
	if err != nil {
		return fmt.Errorf("deprecation: writing %s %d: %w", d.Type, d.ID, err)
	}
	return nil
}

func apply[U marks[U]](ctx context.Context, u U, n *Notice) error {
	if n == nil {
		return u.ClearDeprecatedAt().ClearDeprecationReason().ClearReplacementType().ClearReplacementID().Exec(ctx)
	}
	u = u.SetDeprecatedAt(n.At).SetDeprecationReason(n.Reason)
	if r := n.Replacement; r != nil {
		return u.SetReplacementType(r.Type).SetReplacementID(r.ID).Exec(ctx)
	}
	return u.ClearReplacementType().ClearReplacementID().Exec(ctx)
}
