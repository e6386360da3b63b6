package ingest

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// extractor writes entries below root while enforcing Limits. Every archive
// reader feeds it; it never trusts sizes declared in headers.
type extractor struct {
	ctx         context.Context
	root        string // staging directory, absolute
	lim         Limits
	archiveSize int64
	entries     int
	total       int64
	report      *Report
}

// cleanName validates an archive entry name and returns it as a clean,
// slash-separated relative path ("" for the root itself).
func cleanName(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", entryErr(ErrUnsafePath, name, "NUL byte in name", nil)
	}
	n := strings.ReplaceAll(legacyName(name, charmap.Windows1252), `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) >= 2 && n[1] == ':') {
		return "", entryErr(ErrUnsafePath, name, "absolute path", nil)
	}
	var parts []string
	for _, p := range strings.Split(n, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return "", entryErr(ErrUnsafePath, name, "path escapes the destination", nil)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "/"), nil
}

func (x *extractor) countEntry(name string) error {
	if err := x.ctx.Err(); err != nil {
		return err
	}
	x.entries++
	if x.entries > x.lim.MaxFiles {
		return entryErr(ErrTooManyFiles, name, "more than "+itoa(int64(x.lim.MaxFiles))+" entries", nil)
	}
	return nil
}

func (x *extractor) dir(name string) error {
	rel, err := cleanName(name)
	if err != nil {
		return err
	}
	if err := x.countEntry(name); err != nil {
		return err
	}
	if rel == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(x.root, filepath.FromSlash(rel)), 0o755); err != nil {
		return entryErr(ErrCorrupt, name, "cannot create directory", err)
	}
	return nil
}

// file streams r into the entry's file.
func (x *extractor) file(name string, r io.Reader) error {
	rel, err := cleanName(name)
	if err != nil {
		return err
	}
	if rel == "" {
		return entryErr(ErrUnsafePath, name, "empty file name", nil)
	}
	if err := x.countEntry(name); err != nil {
		return err
	}
	dst := filepath.Join(x.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return entryErr(ErrCorrupt, name, "cannot create parent directory", err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return entryErr(ErrCorrupt, name, "duplicate entry", nil)
		}
		return entryErr(ErrCorrupt, name, "cannot create file", err)
	}
	n, cerr := x.copy(name, f, r)
	if err := f.Close(); cerr == nil && err != nil {
		cerr = entryErr(ErrCorrupt, name, "write failed", err)
	}
	if cerr != nil {
		return cerr
	}
	x.report.Files = append(x.report.Files, rel)
	x.report.Bytes += n
	return nil
}

// copy streams r into w, checking every limit as bytes arrive.
func (x *extractor) copy(name string, w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		if err := x.ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := r.Read(buf)
		if k > 0 {
			n += int64(k)
			x.total += int64(k)
			switch {
			case n > x.lim.MaxFileBytes:
				return n, entryErr(ErrTooLarge, name, "file larger than "+itoa(x.lim.MaxFileBytes)+" bytes", nil)
			case x.total > x.lim.MaxTotalBytes:
				return n, entryErr(ErrTooLarge, name, "archive content larger than "+itoa(x.lim.MaxTotalBytes)+" bytes", nil)
			case x.archiveSize > 0 && x.total > x.lim.RatioGrace &&
				float64(x.total) > float64(x.archiveSize)*x.lim.MaxRatio:
				return n, entryErr(ErrTooLarge, name, "compression ratio above "+itoa(int64(x.lim.MaxRatio)), nil)
			case x.lim.Budget != nil && !x.lim.Budget.take(int64(k)):
				return n, entryErr(ErrTooLarge, name, x.lim.Budget.exceeded(), nil)
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return n, entryErr(ErrCorrupt, name, "write failed", err)
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			if errors.Is(rerr, context.Canceled) || errors.Is(rerr, context.DeadlineExceeded) {
				return n, rerr
			}
			return n, entryErr(ErrCorrupt, name, "read failed", rerr)
		}
	}
}

// link handles a symbolic link entry: links are never created. One that
// stays inside the tree is skipped (and reported); one that escapes is
// refused.
func (x *extractor) symlink(name, target string) error {
	rel, err := cleanName(name)
	if err != nil {
		return err
	}
	if err := x.countEntry(name); err != nil {
		return err
	}
	if !linkInside(rel, target) {
		return entryErr(ErrUnsafePath, name, "symbolic link points outside the archive ("+target+")", nil)
	}
	x.report.Skipped = append(x.report.Skipped, rel)
	return nil
}

// linkInside reports whether target, resolved relative to the directory of
// the link at rel, stays within the tree.
func linkInside(rel, target string) bool {
	t := strings.ReplaceAll(target, `\`, "/")
	if t == "" || strings.HasPrefix(t, "/") || (len(t) >= 2 && t[1] == ':') {
		return false
	}
	joined := path.Join(path.Dir(rel), t)
	return joined != ".." && !strings.HasPrefix(joined, "../")
}

// hardlink copies an already extracted file (tar hard links), counting the
// bytes against the limits again.
func (x *extractor) hardlink(name, target string) error {
	trel, err := cleanName(target)
	if err != nil || trel == "" {
		return entryErr(ErrUnsafePath, name, "hard link points outside the archive ("+target+")", nil)
	}
	src, err := os.Open(filepath.Join(x.root, filepath.FromSlash(trel)))
	if err != nil {
		return entryErr(ErrCorrupt, name, "hard link target "+target+" not extracted before the link", nil)
	}
	defer src.Close()
	if st, err := src.Stat(); err != nil || !st.Mode().IsRegular() {
		return entryErr(ErrUnsafePath, name, "hard link target is not a regular file", nil)
	}
	return x.file(name, src)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
