package documents

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
)

// A New is a document to create with its first draft.
type New struct {
	// Name is trimmed and not blank (textrules.Required).
	Name, Description string
	// GroupID owns the document (nil: its creator alone).
	GroupID *int
	// Datasource is from CheckDatasource.
	Datasource *ent.Datasource
	Terms      catalogterms.Edit
}

// Create copies the datasource's file first, under a key of its own, so
// that a source that cannot be read refuses the call before anything is
// written; then it writes a document of creatorID's, its creator's grants
// and its first draft in one transaction. The copy is removed when that
// fails. It returns the draft's id.
func (s *Service) Create(ctx context.Context, creatorID int, n New) (int, error) {
	f, err := s.snapshot(ctx, n.Datasource, "documents/new-"+randomToken())
	if err != nil {
		return 0, err
	}
	vid, err := store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		d, err := c.Document.Create().SetName(n.Name).SetUserID(creatorID).SetNillableGroupID(n.GroupID).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := access.GrantDefaults(ctx, c, access.KindDocument, d.ID, creatorID); err != nil {
			return 0, err
		}
		m := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(n.Name).SetDescription(n.Description).SetCreatedBy(creatorID)
		f.set(m.Mutation(), n.Datasource.ID)
		n.Terms.Apply(m.Mutation())
		v, err := m.Save(ctx)
		if err != nil {
			return 0, err
		}
		return v.ID, nil
	})
	if err != nil {
		_ = s.Blobs.Delete(context.WithoutCancel(ctx), f.Key)
		return 0, err
	}
	return vid, nil
}

// NewDraft writes a draft of document d by userID that starts as version
// from is: it shares from's file until it is given another, and starts
// with its terms and metadata document. It returns the draft's id.
func (s *Service) NewDraft(ctx context.Context, d *ent.Document, from *ent.DocumentVersion, userID int) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		v, err := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(from.Name).SetDescription(from.Description).
			SetDatasourceID(from.DatasourceID).SetFileKey(from.FileKey).SetFileName(from.FileName).SetExtension(from.Extension).
			SetContentType(from.ContentType).SetFileSize(from.FileSize).SetCreatedBy(userID).
			SetTags(from.Tags).SetCategories(from.Categories).SetNillableLicenseID(from.LicenseID).Save(ctx)
		if err != nil {
			return 0, err
		}
		return v.ID, metadata.CopyDocument(ctx, c, metadata.KindDocument, from.ID, v.ID)
	})
}

// A Change is an edit of a document's draft; nil fields stay as they are.
type Change struct {
	// Name is trimmed and not blank (textrules.Required).
	Name, Description *string
	// Datasource, from CheckDatasource, gives the draft its file instead.
	Datasource *ent.Datasource
	Terms      catalogterms.Edit
}

// UpdateDraft applies ch to draft v of document d. A new datasource's file
// is copied first, under the version's own key.
func (s *Service) UpdateDraft(ctx context.Context, d *ent.Document, v *ent.DocumentVersion, ch Change) error {
	var f File
	if ch.Datasource != nil {
		var err error
		if f, err = s.snapshot(ctx, ch.Datasource, fmt.Sprintf("documents/%d/v%d", d.ID, v.ID)); err != nil {
			return err
		}
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		upd := c.DocumentVersion.UpdateOneID(v.ID)
		ch.Terms.Apply(upd.Mutation())
		if ch.Name != nil {
			upd.SetName(*ch.Name)
		}
		if ch.Description != nil {
			upd.SetDescription(*ch.Description)
		}
		if ch.Datasource != nil {
			f.set(upd.Mutation(), ch.Datasource.ID)
		}
		return upd.Exec(ctx)
	})
}
