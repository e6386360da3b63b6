package scanning

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
)

// archiveSuffixes are the file endings unpacked before discovery.
var archiveSuffixes = []string{".zip", ".tar", ".tar.gz", ".tgz", ".7z"}

func archiveBase(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, s := range archiveSuffixes {
		if strings.HasSuffix(lower, s) {
			return name[:len(name)-len(s)], true
		}
	}
	return "", false
}

// Materialize writes a source's content, unpacked, into dir: the tree its
// datasources' paths are relative to. Scans and imports both use it, so
// paths agree. Notes about files that could not be unpacked go to note.
func (s *Scanner) Materialize(ctx context.Context, src *ent.Source, dir string, note func(string)) error {
	return s.materialize(ctx, src, dir, note, func(ingest.Problem) {})
}

// materialize is Materialize telling skip about each archive it could not
// unpack. All the archives together write no more than the scan's budget
// (Limits.ScanBytes), counted as they unpack.
func (s *Scanner) materialize(ctx context.Context, src *ent.Source, dir string, note func(string), skip func(ingest.Problem)) error {
	inbox := filepath.Join(dir, ".inbox")
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(inbox, 0o750); err != nil {
		return err
	}
	if err := os.MkdirAll(tree, 0o750); err != nil {
		return err
	}
	files, err := s.gather(ctx, src, inbox, note)
	if err != nil {
		return err
	}
	note(fmt.Sprintf("Gathered %d file(s)", len(files)))
	single := len(files) == 1
	lim := s.Limits
	lim.Budget = ingest.NewBudget(lim.ScanBytes)
	for _, rel := range files {
		from := filepath.Join(inbox, filepath.FromSlash(rel))
		base, isArchive := archiveBase(rel)
		if !isArchive {
			to := filepath.Join(tree, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(to), 0o750); err != nil {
				return err
			}
			if err := os.Rename(from, to); err != nil {
				return err
			}
			continue
		}
		dst := tree
		if !single {
			dst = filepath.Join(tree, filepath.FromSlash(base))
		}
		rep, err := ingest.Unpack(ctx, from, dst, lim)
		if err != nil {
			if single {
				return permanent("Could not unpack %s: %s", rel, problemText(err))
			}
			note(fmt.Sprintf("Could not unpack %s: %s", rel, problemText(err)))
			skip(ingest.Problem{Path: rel, Message: "could not unpack: " + problemText(err)})
			continue
		}
		note(fmt.Sprintf("Unpacked %s: %d file(s)", rel, len(rep.Files)))
		_ = os.Remove(from)
	}
	return nil
}

// Tree is the folder under a Materialize directory that datasource paths
// are relative to.
func Tree(dir string) string { return filepath.Join(dir, "tree") }

// gather puts the source's raw files into inbox and returns their relative
// paths; what a remote kind has to say goes to note.
func (s *Scanner) gather(ctx context.Context, src *ent.Source, inbox string, note func(string)) ([]string, error) {
	switch src.Type {
	case source.TypeUpload:
		return s.gatherUploads(ctx, src, inbox, note)
	case source.TypeURL:
		return s.gatherURL(ctx, src, inbox)
	}
	if files, ok := kindOf(src.Type).(remote.Files); ok {
		conn, err := s.Conn(src)
		if err != nil {
			return nil, err
		}
		return files.Gather(ctx, conn, inbox, note)
	}
	return nil, permanent("Scanning %s sources is not supported.", src.Type)
}

func (s *Scanner) gatherUploads(ctx context.Context, src *ent.Source, inbox string, _ func(string)) ([]string, error) {
	prefix := UploadPrefix(src.ID)
	var out []string
	for obj, err := range s.Blobs.List(ctx, prefix) {
		if err != nil {
			return nil, err
		}
		rel := strings.TrimPrefix(obj.Key, prefix)
		dst := filepath.Join(inbox, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
			return nil, err
		}
		if _, err := s.Blobs.Download(ctx, obj.Key, dst); err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	if len(out) == 0 {
		return nil, permanent("The source has no files.")
	}
	return out, nil
}

func (s *Scanner) gatherURL(ctx context.Context, src *ent.Source, inbox string) ([]string, error) {
	u, err := url.Parse(src.URLRemote)
	if err != nil {
		return nil, permanent("The source URL is not valid.")
	}
	conn, err := s.Conn(src)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(inbox, ".download-*")
	if err != nil {
		return nil, err
	}
	info, err := s.Fetch.Download(ctx, u, fetch.Options{Username: conn.Username, Password: conn.Password, SSLVerify: conn.SSLVerify}, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	name := path.Base(strings.ReplaceAll(info.Name, "\\", "/"))
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		name = "download"
	}
	if err := os.Rename(tmp.Name(), filepath.Join(inbox, name)); err != nil {
		return nil, err
	}
	return []string{name}, nil
}
