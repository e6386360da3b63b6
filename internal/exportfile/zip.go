package exportfile

import (
	"archive/zip"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// storedExts are outputs already compressed: zipped as they are.
var storedExts = []string{".kmz", ".xlsx", ".zip", ".jpg", ".jpeg", ".png", ".jp2", ".webp"}

// Package streams a zip of every file under dir to w: paths relative to
// dir, deflated (already-compressed outputs stored), a dataset's files
// together (a Shapefile's .shp, .shx, .dbf, .prj and .cpg side by side,
// then its metadata and licence). It never holds a file in memory and
// stops between chunks when ctx ends. It returns the bytes written.
func Package(ctx context.Context, dir string, w io.Writer) (int64, error) {
	files, err := listFiles(dir)
	if err != nil {
		return 0, err
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	slices.SortFunc(names, zipOrder)
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return cw.n, err
		}
		if err := addFile(ctx, zw, dir, name); err != nil {
			return cw.n, err
		}
	}
	if err := zw.Close(); err != nil {
		return cw.n, fmt.Errorf("exportfile: finishing the zip: %w", err)
	}
	return cw.n, nil
}

// zipOrder sorts by dataset (the name up to its first dot or slash),
// data files before metadata and licence, then by path.
func zipOrder(a, b string) int {
	return cmp.Or(cmp.Compare(stem(a), stem(b)), cmp.Compare(sideRank(a), sideRank(b)), cmp.Compare(a, b))
}

func stem(p string) string {
	if i := strings.IndexAny(p, "./"); i >= 0 {
		return p[:i]
	}
	return p
}

func sideRank(p string) int {
	if !strings.Contains(p, "/") && (strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".license.txt")) {
		return 1
	}
	return 0
}

func addFile(ctx context.Context, zw *zip.Writer, dir, name string) error {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return fmt.Errorf("exportfile: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("exportfile: %w", err)
	}
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: st.ModTime()}
	h.SetMode(0o644)
	if slices.Contains(storedExts, strings.ToLower(path.Ext(name))) {
		h.Method = zip.Store
	}
	out, err := zw.CreateHeader(h)
	if err != nil {
		return fmt.Errorf("exportfile: zipping %s: %w", name, err)
	}
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := f.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return fmt.Errorf("exportfile: zipping %s: %w", name, err)
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("exportfile: reading %s: %w", name, rerr)
		}
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
