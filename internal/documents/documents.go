// Package documents holds what creating a document and editing its drafts
// takes: the one datasource a document is made from, the copy of its file
// into blob storage that each version keeps, and the writes of a new
// document, a new draft and a draft's edit.
//
// The front doors authorize the caller on the document, and check the
// owning group and the catalogue terms (catalogterms) before calling in.
package documents

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/store"
)

// Service writes documents, their drafts and their files.
type Service struct {
	Store *store.Store
	Blobs *blob.Store
	// Scanner materializes the sources files are copied from.
	Scanner *scanning.Scanner
}

// CheckDatasource loads the one datasource a document is made from: a
// document-type datasource, found by its source's last scan, in a source
// p may use (access.UseSource).
func CheckDatasource(ctx context.Context, c *ent.Client, p auth.Principal, id int) (*ent.Datasource, error) {
	if id == 0 {
		return nil, apperr.Field("data.datasources", "This field is required.")
	}
	usable, err := access.SourcesHeld(ctx, c, p, access.UseSource)
	if err != nil {
		return nil, err
	}
	ds, err := c.Datasource.Query().
		Where(datasource.ID(id), datasource.HasSourceWith(usable)).
		WithSource().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Field("data.datasources", "The datasource does not exist or is not yours to use.")
	}
	if err != nil {
		return nil, err
	}
	if ds.DataType != datasource.DataTypeDocument {
		return nil, apperr.Field("data.datasources", fmt.Sprintf("Datasource %d is a %s: a document needs a datasource whose data type is document.", ds.ID, ds.DataType))
	}
	if ds.Missing {
		return nil, apperr.Field("data.datasources", fmt.Sprintf("Datasource %d was not found by the last scan of its source.", ds.ID))
	}
	return ds, nil
}

// A File is a datasource's file copied into blob storage for a document
// version.
type File struct {
	Key, Name, Ext, ContentType string
	Size                        int64
}

// set gives a version being written the file f.
func (f File) set(m *ent.DocumentVersionMutation, datasourceID int) {
	m.SetDatasourceID(datasourceID)
	m.SetFileKey(f.Key)
	m.SetFileName(f.Name)
	m.SetExtension(f.Ext)
	m.SetContentType(f.ContentType)
	m.SetFileSize(f.Size)
}

// snapshot copies the file of ds (loaded with its source) into blob
// storage under prefix: the version keeps its file even if the source
// changes. A source that cannot be read, or no longer holds the file, is
// a CONFLICT.
func (s *Service) snapshot(ctx context.Context, ds *ent.Datasource, prefix string) (File, error) {
	dir, err := os.MkdirTemp(s.Scanner.WorkDir, "geopub-document-*")
	if err != nil {
		return File{}, err
	}
	defer os.RemoveAll(dir)
	if err := s.Scanner.Materialize(ctx, ds.Edges.Source, dir, func(string) {}); err != nil {
		return File{}, apperr.Wrap(err, apperr.Conflict, "The source's files cannot be read: "+err.Error())
	}
	f, err := os.Open(filepath.Join(scanning.Tree(dir), filepath.FromSlash(ds.Path)))
	if err != nil {
		return File{}, apperr.Wrap(err, apperr.Conflict, "The file is no longer in its source; scan the source again.")
	}
	defer f.Close()
	name := path.Base(ds.Path)
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(name)), ".")
	ct := mime.TypeByExtension("." + ext)
	if ct == "" {
		ct = "application/octet-stream"
	}
	key := prefix + "/" + name
	size, err := s.Blobs.Put(ctx, key, f, ct)
	if err != nil {
		return File{}, err
	}
	return File{Key: key, Name: name, Ext: ext, ContentType: ct, Size: size}, nil
}

// randomToken is 16 random hex digits: a blob key part no other file has.
func randomToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
