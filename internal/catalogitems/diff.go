package catalogitems

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/versiondiff"
)

// Compare lists the metadata fields of a catalog item that changed from
// version from (nil: nothing, so every field set is new) to version to:
// title, description, link_url, tags, categories and the version's
// metadata document (metadata.format, .title, .abstract, .keywords), in
// that order. Attachments and geotags belong to the item, not to a
// version, so no diff of versions changes them.
func Compare(ctx context.Context, c *ent.Client, from, to *ent.CatalogItemVersion) ([]versiondiff.FieldChange, error) {
	var old []versiondiff.Field
	if from != nil {
		doc, err := metadata.Document(ctx, c, metadata.KindItem, from.ID)
		if err != nil {
			return nil, err
		}
		old = fields(from, doc)
	}
	doc, err := metadata.Document(ctx, c, metadata.KindItem, to.ID)
	if err != nil {
		return nil, err
	}
	return versiondiff.CompareFields(old, fields(to, doc)), nil
}

// fields are a catalog item version's metadata as Compare compares it.
func fields(v *ent.CatalogItemVersion, doc *ent.MetadataDocument) []versiondiff.Field {
	return append([]versiondiff.Field{{Name: "title", Value: v.Title}, {Name: "description", Value: v.Description},
		{Name: "link_url", Value: v.LinkURL}, {Name: "tags", Value: v.Tags}, {Name: "categories", Value: v.Categories}},
		versiondiff.DocumentFields(doc)...)
}
