package gdal_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Only Init registers GDAL's drivers: a registration elsewhere, after
// Init, would bring back the drivers Init removed.
func TestOnlyInitRegistersDrivers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	reg := regexp.MustCompile(`godal\.RegisterAll\(|GDALAllRegister\(|GDALRegister_`)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, filepath.Join("internal", "gdal", "init.go")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if loc := reg.FindIndex(b); loc != nil && !strings.HasSuffix(p, "init_test.go") {
			t.Errorf("%s registers GDAL drivers itself (%s); call gdal.Init", p, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
