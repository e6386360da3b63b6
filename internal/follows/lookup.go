package follows

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
)

// nouns name each dataset type in messages.
var nouns = map[string]string{"layer": "Layer", "table": "Table", "set": "Set", "document": "Document", "item": "Catalog item"}

// KnownType reports whether t is a dataset type that may be followed.
func KnownType(t string) bool {
	_, ok := nouns[t]
	return ok
}

// lookup returns d's title when v may see d (as the catalogue decides),
// and whether v may.
func lookup(ctx context.Context, c *ent.Client, v *access.Viewer, d Dataset) (string, bool, error) {
	var title string
	var err error
	switch d.Type {
	case "layer", "table":
		var l *ent.Layer
		l, err = c.Layer.Query().Where(layer.ID(d.ID), layer.TypeEQ(layer.Type(d.Type)), visible(v, access.KindLayer)).
			Select(layer.FieldName).Only(ctx)
		if err == nil {
			title = l.Name
		}
	case "set":
		var x *ent.Set
		x, err = c.Set.Query().Where(set.ID(d.ID), visible(v, access.KindSet)).Select(set.FieldTitle).Only(ctx)
		if err == nil {
			title = x.Title
		}
	case "document":
		var x *ent.Document
		x, err = c.Document.Query().Where(document.ID(d.ID), visible(v, access.KindDocument)).Select(document.FieldName).Only(ctx)
		if err == nil {
			title = x.Name
		}
	case "item":
		var x *ent.CatalogItem
		x, err = c.CatalogItem.Query().Where(catalogitem.ID(d.ID), visible(v, access.KindCatalogItem)).
			Select(catalogitem.FieldTitle).Only(ctx)
		if err == nil {
			title = x.Title
		}
	default:
		return "", false, nil
	}
	if ent.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("follows: reading %s %d: %w", d.Type, d.ID, err)
	}
	return title, true, nil
}

// visible is v's visibility rule as a predicate of any dataset table.
func visible(v *access.Viewer, k access.Kind) func(*entsql.Selector) { return v.Visible(k) }
