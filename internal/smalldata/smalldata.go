// Package smalldata holds the rules of the small-data service: the files
// of the documents attached to a published catalog item, listed and
// downloadable directly while each is at most a size limit. A caller
// sees the list when the item is published, the small-data service lets
// them use it (view on the item) and the scope is catalog; a document is
// listed when its published version has a file and the caller may view
// the document, and its file is served only to those who may download
// it (the rule of the document's own download). Larger files are listed
// with too_large and served by the document's own download instead. The
// ogc package mounts the door.
package smalldata

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemattachment"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
)

// ServiceKey is the data service every request passes through.
const ServiceKey = "small-data"

// Scope is the token scope the service needs.
const Scope = auth.ScopeCatalog

// DefaultMaxFileBytes is the largest file served when the operator sets
// no limit: 50 MiB.
const DefaultMaxFileBytes = 50 << 20

// ErrNotFound is an item that does not exist, is not published, or whose
// small data the caller may not use; or a document not listed on it.
var ErrNotFound = errors.New("smalldata: not found")

// ErrNoDownload is a listed document whose file the caller may not
// download.
var ErrNoDownload = errors.New("smalldata: download permission needed")

// ErrTooLarge is a file above the limit.
var ErrTooLarge = errors.New("smalldata: file too large")

// Service lists and opens the files.
type Service struct {
	client   *ent.Client
	blobs    *blob.Store
	maxBytes int64
}

// New returns the service; maxBytes <= 0 is DefaultMaxFileBytes.
func New(c *ent.Client, blobs *blob.Store, maxBytes int64) *Service {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	return &Service{client: c, blobs: blobs, maxBytes: maxBytes}
}

// MaxFileBytes is the largest file served.
func (s *Service) MaxFileBytes() int64 { return s.maxBytes }

// File is one attached document's published file.
type File struct {
	DocumentID int
	Name       string
	Size       int64
	MediaType  string
	Modified   time.Time
	// TooLarge files are not served here.
	TooLarge bool
	// Downloadable is whether the caller may download it.
	Downloadable bool
	key          string
	versionID    int
}

// Files lists the files of item id's attached documents the caller may
// see, in the order they were attached.
func (s *Service) Files(ctx context.Context, p auth.Principal, id int) ([]File, error) {
	v, err := access.NewViewer(ctx, s.client, p)
	if err != nil {
		return nil, err
	}
	it, err := s.client.CatalogItem.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if it.PublishedVersionID == nil {
		return nil, ErrNotFound
	}
	ok, err := v.MayUseService(ctx, s.client, access.CatalogItemOwner(it), ServiceKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotFound
	}
	ids, err := s.client.CatalogItemAttachment.Query().Where(catalogitemattachment.ItemID(id)).
		Order(catalogitemattachment.ByID()).Select(catalogitemattachment.FieldDocumentID).Ints(ctx)
	if err != nil {
		return nil, err
	}
	out := []File{}
	for _, did := range ids {
		d, err := s.client.Document.Get(ctx, did)
		if ent.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if d.PublishedVersionID == nil {
			continue
		}
		lv, err := v.Level(ctx, s.client, access.KindDocument, d.ID, d.GroupID)
		if err != nil {
			return nil, err
		}
		if lv < access.View {
			continue
		}
		dv, err := s.client.DocumentVersion.Query().Where(documentversion.ID(*d.PublishedVersionID)).Only(ctx)
		if ent.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if dv.FileKey == "" {
			continue
		}
		out = append(out, File{DocumentID: d.ID, Name: dv.FileName, Size: dv.FileSize, MediaType: dv.ContentType,
			Modified: dv.UpdatedAt, TooLarge: dv.FileSize > s.maxBytes, Downloadable: lv >= access.Download,
			key: dv.FileKey, versionID: dv.ID})
	}
	return out, nil
}

// File returns the listed file of document docID on item id, which the
// caller must be able to download and must be within the limit.
func (s *Service) File(ctx context.Context, p auth.Principal, id, docID int) (*File, error) {
	fs, err := s.Files(ctx, p, id)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		if f.DocumentID != docID {
			continue
		}
		switch {
		case !f.Downloadable:
			return nil, ErrNoDownload
		case f.TooLarge:
			return &f, ErrTooLarge
		}
		return &f, nil
	}
	return nil, ErrNotFound
}

// Open opens f's bytes for ranged reads.
func (s *Service) Open(ctx context.Context, f *File) (io.ReadSeekCloser, error) {
	return s.blobs.OpenSeekable(ctx, f.key)
}

// VersionID is the document version the file belongs to (its ETag).
func (f File) VersionID() int { return f.versionID }
