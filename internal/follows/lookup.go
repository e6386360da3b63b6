package follows

import (
	"context"
	"fmt"

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

// titles returns the titles of those of ds that v may see (as the
// catalogue decides), keyed by dataset: one query per dataset type,
// however many are asked.
func titles(ctx context.Context, c *ent.Client, v *access.Viewer, ds []Dataset) (map[Dataset]string, error) {
	ids := map[string][]int{}
	for _, d := range ds {
		if KnownType(d.Type) {
			ids[d.Type] = append(ids[d.Type], d.ID)
		}
	}
	out := map[Dataset]string{}
	for typ, in := range ids {
		switch typ {
		case "layer", "table":
			rows, err := c.Layer.Query().Where(layer.IDIn(in...), layer.TypeEQ(layer.Type(typ)), v.Visible(access.KindLayer)).
				Select(layer.FieldID, layer.FieldName).All(ctx)
			if err != nil {
				return nil, fmt.Errorf("follows: reading %ss: %w", typ, err)
			}
			for _, r := range rows {
				out[Dataset{typ, r.ID}] = r.Name
			}
		case "set":
			rows, err := c.Set.Query().Where(set.IDIn(in...), v.Visible(access.KindSet)).Select(set.FieldID, set.FieldTitle).All(ctx)
			if err != nil {
				return nil, fmt.Errorf("follows: reading sets: %w", err)
			}
			for _, r := range rows {
				out[Dataset{typ, r.ID}] = r.Title
			}
		case "document":
			rows, err := c.Document.Query().Where(document.IDIn(in...), v.Visible(access.KindDocument)).
				Select(document.FieldID, document.FieldName).All(ctx)
			if err != nil {
				return nil, fmt.Errorf("follows: reading documents: %w", err)
			}
			for _, r := range rows {
				out[Dataset{typ, r.ID}] = r.Name
			}
		case "item":
			rows, err := c.CatalogItem.Query().Where(catalogitem.IDIn(in...), v.Visible(access.KindCatalogItem)).
				Select(catalogitem.FieldID, catalogitem.FieldTitle).All(ctx)
			if err != nil {
				return nil, fmt.Errorf("follows: reading catalog items: %w", err)
			}
			for _, r := range rows {
				out[Dataset{typ, r.ID}] = r.Title
			}
		}
	}
	return out, nil
}
