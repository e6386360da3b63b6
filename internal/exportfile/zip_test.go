package exportfile

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPackageZipsEveryFileWithRelativePaths(t *testing.T) {
	dir := t.TempDir()
	f, _ := FormatByMIME(KindVector, MIMEGeoPackage)
	item := sampleItem(t, "nz-points", "point", samplePoints())
	if _, err := WriteVector(context.Background(), dir, item, f, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub.gdb"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub.gdb", "a0000001.gdbtable"), bytes.Repeat([]byte("x"), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := Package(context.Background(), dir, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("Package says %d bytes, wrote %d", n, buf.Len())
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
		if zf.Method != zip.Deflate {
			t.Errorf("%s is not deflated", zf.Name)
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(zf.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the file", zf.Name)
		}
	}
	want := "nz-points.gpkg nz-points.license.txt nz-points.xml sub.gdb/a0000001.gdbtable"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("zip holds %q, want %q", got, want)
	}
}

func TestPackageStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Package(ctx, dir, io.Discard); err != context.Canceled {
		t.Fatalf("Package on a cancelled context: %v, want context.Canceled", err)
	}
}
