package metadata

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/metadatadocument"
)

// The dataset kinds metadata documents are filed under. Tables share the
// layer model and its ids, so they are KindLayer too.
const (
	KindLayer    = "layer"
	KindItem     = "item"
	KindSet      = "set"
	KindDocument = "document"
)

// Document returns the metadata document of version id of a dataset of
// kind, nil when it has none.
func Document(ctx context.Context, c *ent.Client, kind string, id int) (*ent.MetadataDocument, error) {
	d, err := c.MetadataDocument.Query().
		Where(metadatadocument.DatasetKind(kind), metadatadocument.VersionID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return d, err
}

// CopyDocument gives version to of a dataset of kind the metadata document
// of version from, when it has one, on c (a transaction's client when the
// new version is being created in one).
func CopyDocument(ctx context.Context, c *ent.Client, kind string, from, to int) error {
	d, err := Document(ctx, c, kind, from)
	if err != nil || d == nil {
		return err
	}
	return Adopt(ctx, c, d, kind, d.DatasetID, to)
}

// Adopt stores a copy of document d as the metadata of version versionID
// of dataset datasetID of kind (a datasource's document becoming a new
// layer's, say).
func Adopt(ctx context.Context, c *ent.Client, d *ent.MetadataDocument, kind string, datasetID, versionID int) error {
	return c.MetadataDocument.Create().SetDatasetKind(kind).SetDatasetID(datasetID).SetVersionID(versionID).
		SetFormat(d.Format).SetXML(d.XML).SetTitle(d.Title).SetAbstract(d.Abstract).SetKeywords(d.Keywords).
		SetBbox(d.Bbox).SetUploadedBy(d.UploadedBy).Exec(ctx)
}
