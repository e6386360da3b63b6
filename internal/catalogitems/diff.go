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
	return versiondiff.CompareMetadata(ctx, c, metadata.KindItem, from, to, func(v *ent.CatalogItemVersion) int { return v.ID }, fields)
}

// fields are a catalog item version's own fields as Compare compares them.
func fields(v *ent.CatalogItemVersion) []versiondiff.Field {
	return []versiondiff.Field{{Name: "title", Value: v.Title}, {Name: "description", Value: v.Description},
		{Name: "link_url", Value: v.LinkURL}, {Name: "tags", Value: v.Tags}, {Name: "categories", Value: v.Categories}}
}
