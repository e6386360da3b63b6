package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/metadata"
)

// putMetadata checks an uploaded document and stores it as the metadata
// of one dataset version, replacing any document there. Every upload
// mutation comes here once it has loaded the version for writing (the
// caller's right to edit checked): only a draft takes a document
// (metadataWritable), whatever the kind of dataset.
func (r *Resolver) putMetadata(ctx context.Context, kind string, datasetID, versionID int, state, xml string) (*ent.MetadataDocument, error) {
	if err := metadataWritable(versionID, state); err != nil {
		return nil, err
	}
	s, err := metadata.Parse([]byte(xml))
	if err != nil {
		return nil, err
	}
	id, err := r.Client.MetadataDocument.Create().
		SetDatasetKind(kind).SetDatasetID(datasetID).SetVersionID(versionID).
		SetFormat(metadatadocument.Format(s.Format)).SetXML(xml).
		SetTitle(s.Title).SetAbstract(s.Abstract).SetKeywords(s.Keywords).SetBbox(s.BBox).
		SetUploadedBy(auth.FromContext(ctx).User.ID).
		OnConflictColumns(metadatadocument.FieldDatasetKind, metadatadocument.FieldVersionID).
		UpdateNewValues().ID(ctx)
	if err != nil {
		return nil, err
	}
	return r.Client.MetadataDocument.Get(ctx, id)
}

// deleteMetadata removes every metadata document of a dataset.
func deleteMetadata(ctx context.Context, c *ent.Client, kind string, datasetID int) error {
	_, err := c.MetadataDocument.Delete().
		Where(metadatadocument.DatasetKind(kind), metadatadocument.DatasetID(datasetID)).Exec(ctx)
	return err
}

// metadataWritable refuses metadata uploads to versions that are not
// drafts: 405 for published ones, 409 for discarded drafts.
func metadataWritable(versionID int, state string) error {
	switch state {
	case "draft":
		return nil
	case "deleted":
		return apperr.New(apperr.Conflict, "Version %d is deleted.", versionID)
	}
	return apperr.New(apperr.NotAllowed, "Version %d is %s: metadata can be set on a draft only.", versionID, state)
}

// SimpleMetadata is the simplified form of a stored document.
func SimpleMetadata(d *ent.MetadataDocument) *metadata.Simple {
	return &metadata.Simple{Format: metadata.Format(d.Format), Title: d.Title, Abstract: d.Abstract, Keywords: d.Keywords, BBox: d.Bbox}
}

// MetadataIn returns a stored document in one format: the document itself
// when it is in that format; for dc, otherwise, the Dublin Core rendering
// of its simplified form; else ok is false.
func MetadataIn(d *ent.MetadataDocument, f metadata.Format) (xml string, ok bool) {
	switch {
	case metadata.Format(d.Format) == f:
		return d.XML, true
	case f == metadata.DC:
		return string(metadata.RenderDC(SimpleMetadata(d))), true
	}
	return "", false
}
