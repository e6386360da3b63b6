package ingest

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// Issue 11: a scan of an archive whose names are not UTF-8 must not fail
// on the store's text rules: names written in a legacy code page are
// decoded from it (zip's IBM 437, Latin-1/Windows-1252 for tar), UTF-8
// names are kept as they are.
func TestLegacyEntryNamesDecode(t *testing.T) {
	tmp := t.TempDir()
	entries := []entry{
		{name: "caf\x82.txt", body: []byte("cp437")}, // é in IBM 437
		{name: "naïve.txt", body: []byte("utf-8")},
	}
	zipPath := filepath.Join(tmp, "legacy.zip")
	writeZip(t, zipPath, entries)
	rep, err := Unpack(context.Background(), zipPath, filepath.Join(tmp, "zip"), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"café.txt", "naïve.txt"}; !reflect.DeepEqual(rep.Files, want) {
		t.Errorf("zip files = %q, want %q", rep.Files, want)
	}

	tarPath := filepath.Join(tmp, "legacy.tar")
	writeTar(t, tarPath, false, []entry{{name: "\xe9t\xe9.csv", body: []byte("x\n1\n")}, {name: "données.csv", body: []byte("x\n1\n")}})
	rep, err = Unpack(context.Background(), tarPath, filepath.Join(tmp, "tar"), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"données.csv", "été.csv"}; !reflect.DeepEqual(rep.Files, want) {
		t.Errorf("tar files = %q, want %q", rep.Files, want)
	}
}
