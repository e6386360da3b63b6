package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Report describes what Unpack wrote.
type Report struct {
	// Format is "zip", "tar", "tar.gz", "7z" or "file" (a plain file placed
	// as is).
	Format string
	// Files are the written regular files, relative slash paths, sorted.
	Files []string
	// Skipped are entries deliberately not written (symbolic links that stay
	// inside the archive; links are never created).
	Skipped []string
	// Bytes is the total size of the written files.
	Bytes int64
}

var (
	magicZip      = []byte("PK\x03\x04")
	magicZipEmpty = []byte("PK\x05\x06")
	magic7z       = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}
	magicGzip     = []byte{0x1f, 0x8b}
	magicRar      = []byte("Rar!\x1a\x07")
	magicBzip2    = []byte("BZh")
	magicXz       = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
)

// sniff returns the archive format of the file from its first bytes, or ""
// for a plain file.
func sniff(head []byte, name string) (string, error) {
	lower := strings.ToLower(name)
	switch {
	case bytes.HasPrefix(head, magicZip), bytes.HasPrefix(head, magicZipEmpty):
		return "zip", nil
	case bytes.HasPrefix(head, magic7z):
		return "7z", nil
	case bytes.HasPrefix(head, magicGzip):
		return "tar.gz", nil
	case len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")):
		return "tar", nil
	case bytes.HasPrefix(head, magicRar):
		return "", entryErr(ErrUnsupported, "", "RAR archives are not supported", nil)
	case bytes.HasPrefix(head, magicBzip2), bytes.HasPrefix(head, magicXz):
		return "", entryErr(ErrUnsupported, "", "bzip2/xz compressed files are not supported", nil)
	}
	for _, ext := range []string{".zip", ".7z", ".tar", ".tgz", ".tar.gz"} {
		if strings.HasSuffix(lower, ext) {
			return "", entryErr(ErrCorrupt, "", "file is named "+ext+" but is not a valid archive", nil)
		}
	}
	return "", nil
}

// Unpack extracts archivePath into dstDir (created if missing). A file that
// is not an archive is copied into dstDir under its base name. Limits are
// enforced while streaming; zero fields of lim take the defaults.
//
// Extraction goes to a staging directory inside dstDir and is moved into
// place only on success, so a failed Unpack leaves dstDir as it was (and
// removes it if Unpack created it). Symbolic links are never created.
func Unpack(ctx context.Context, archivePath, dstDir string, lim Limits) (Report, error) {
	lim = lim.withDefaults()
	var rep Report
	f, err := os.Open(archivePath)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return rep, err
	}
	if !st.Mode().IsRegular() {
		return rep, entryErr(ErrUnsupported, "", archivePath+" is not a regular file", nil)
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return rep, err
	}
	format, err := sniff(head[:n], archivePath)
	if err != nil {
		return rep, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return rep, err
	}

	dst, err := filepath.Abs(dstDir)
	if err != nil {
		return rep, err
	}
	created := false
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return rep, err
		}
		created = true
	}
	stage, err := os.MkdirTemp(dst, ".unpack-")
	if err != nil {
		return rep, err
	}
	x := &extractor{ctx: ctx, root: stage, lim: lim, archiveSize: st.Size(), report: &rep}
	fail := func(err error) (Report, error) {
		os.RemoveAll(stage)
		if lim.Budget != nil {
			lim.Budget.give(x.total) // removed again: no longer on disk
		}
		if created {
			os.Remove(dst)
		}
		return Report{}, err
	}

	switch format {
	case "zip":
		err = unpackZip(x, f, st.Size())
	case "7z":
		err = unpack7z(x, f, st.Size())
	case "tar":
		err = unpackTar(x, f)
	case "tar.gz":
		err = unpackTarGz(x, f)
	default:
		format = "file"
		x.archiveSize = 0 // no ratio for plain files
		err = x.file(filepath.Base(archivePath), f)
	}
	if err != nil {
		return fail(err)
	}
	if err := moveContents(stage, dst); err != nil {
		return fail(err)
	}
	os.Remove(stage)
	rep.Format = format
	sort.Strings(rep.Files)
	sort.Strings(rep.Skipped)
	return rep, nil
}

// moveContents renames every top-level entry of stage into dst. Existing
// names in dst are not overwritten; on error the entries already moved are
// moved back.
func moveContents(stage, dst string) error {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := os.Lstat(filepath.Join(dst, e.Name())); err == nil {
			return fmt.Errorf("ingest: %q already exists in %s", e.Name(), dst)
		}
	}
	var moved []string
	for _, e := range entries {
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			for _, m := range moved {
				os.Rename(filepath.Join(dst, m), filepath.Join(stage, m))
			}
			return err
		}
		moved = append(moved, e.Name())
	}
	return nil
}
