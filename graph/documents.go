package graph

import (
	"context"
	entsql "entgo.io/ent/dialect/sql"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/documents"
	"github.com/geopub/geopub/internal/lifecycle"
)

// documentEditable narrows documents to those p may edit, by the rules of
// every dataset.
func documentEditable(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Document, error) {
	return editableBy[predicate.Document](ctx, c, p, access.KindDocument)
}

// documentVisible narrows documents to those p may read: published ones
// they hold view on, and the ones they may edit.
func documentVisible(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Document, error) {
	return visibleTo[predicate.Document](ctx, c, p, access.KindDocument)
}

// loadDocument returns a document the caller may read (published, or
// editable), or edit when write is set; others are NOT_FOUND.
func (r *Resolver) loadDocument(ctx context.Context, id int, write bool) (*ent.Document, error) {
	return r.documentKind().load(ctx, r.Client, id, write)
}

// canEditDocument reports whether the caller may edit d.
func (r *Resolver) canEditDocument(ctx context.Context, d *ent.Document) (bool, error) {
	lv, err := r.datasetLevel(ctx, access.KindDocument, d.ID, d.GroupID)
	return lv >= access.Edit, err
}

// loadDocumentVersion returns a version the caller may see: drafts and
// deleted versions only for editors.
func (r *Resolver) loadDocumentVersion(ctx context.Context, documentID, versionID int, write bool) (*ent.Document, *ent.DocumentVersion, error) {
	d, err := r.loadDocument(ctx, documentID, write)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.documentKind().loadVersion(ctx, d, versionID, write)
	if err != nil {
		return nil, nil, err
	}
	return d, v, nil
}

// documents writes documents, their drafts and their files.
func (r *Resolver) documents() *documents.Service {
	return &documents.Service{Store: r.Store, Blobs: r.Blobs, Scanner: r.Scanner}
}

func uniqueStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// DownloadableDocumentVersion returns the version of a document whose file
// the caller may download: versionID's when given, else the published one
// (for editors, the latest while nothing is published). Seeing a document
// needs view; its file needs download.
func (r *Resolver) DownloadableDocumentVersion(ctx context.Context, documentID int, versionID *int) (*ent.DocumentVersion, error) {
	var (
		d   *ent.Document
		v   *ent.DocumentVersion
		err error
	)
	if versionID != nil {
		d, v, err = r.loadDocumentVersion(ctx, documentID, *versionID, false)
	} else if d, err = r.loadDocument(ctx, documentID, false); err == nil {
		if v, err = r.Document().PublishedVersion(ctx, d); err == nil && v == nil {
			v, err = r.Document().LatestVersion(ctx, d)
		}
	}
	if err != nil {
		return nil, err
	}
	lv, err := r.datasetLevel(ctx, access.KindDocument, d.ID, d.GroupID)
	if err != nil {
		return nil, err
	}
	if lv < access.Download {
		return nil, apperr.New(apperr.PermissionDenied, "You need download permission on document %d to download its file.", d.ID)
	}
	return v, nil
}

// documentKind is the documents' datasetKind. Editors see a document's
// deleted versions too.
func (r *Resolver) documentKind() datasetKind[ent.Document, ent.DocumentVersion] {
	return datasetKind[ent.Document, ent.DocumentVersion]{
		kind:       access.KindDocument,
		readScope:  auth.ScopeDocumentsRead,
		writeScope: auth.ScopeDocumentsWrite,
		query: func(ctx context.Context, id int, visible func(*entsql.Selector)) (*ent.Document, error) {
			return r.Client.Document.Query().Where(document.ID(id), predicate.Document(visible)).Only(ctx)
		},
		title:     "Document",
		noun:      func(d *ent.Document) string { return fmt.Sprintf("document %d", d.ID) },
		canEdit:   r.canEditDocument,
		name:      func(d *ent.Document) string { return fmt.Sprintf("Document %d", d.ID) },
		ids:       func(d *ent.Document) (int, *int) { return d.ID, d.PublishedVersionID },
		versionID: func(v *ent.DocumentVersion) int { return v.ID },
		current: func(ctx context.Context, id int) (currentOf[*ent.DocumentVersion], error) {
			return loadersFrom(ctx).documents.documentVersions(ctx, r.Client, id)
		},
		mayEdit: func(ctx context.Context, d *ent.Document) (bool, error) {
			return loadersFrom(ctx).documents.mayEditDocument(ctx, r.Client, d.ID)
		},
		get: r.Client.DocumentVersion.Get,
		version: func(ctx context.Context, id, versionID int) (*ent.DocumentVersion, error) {
			return r.Client.DocumentVersion.Query().Where(documentversion.ID(versionID), documentversion.DocumentID(id)).Only(ctx)
		},
		released: func(v *ent.DocumentVersion) bool {
			return lifecycle.Released(v.State)
		},
		list: func(ctx context.Context, id int, drafts bool) ([]*ent.DocumentVersion, error) {
			q := r.Client.DocumentVersion.Query().Where(documentversion.DocumentID(id))
			if !drafts {
				q.Where(documentversion.StateIn(documentversion.StatePublished, documentversion.StateSuperseded))
			}
			return q.Order(documentversion.ByID(entsql.OrderDesc())).All(ctx)
		},
	}
}
