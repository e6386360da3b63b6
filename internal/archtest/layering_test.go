package archtest

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layering rule (docs/architecture.md): front doors depend on
// capabilities, never the other way round; the REST and HTML doors reach
// the store through resolvers and services, not Ent's client (checked by
// type in entclient_test.go); and one package binds GDAL through cgo.

// doors are the front doors' packages (a path and everything under it);
// a door may import graph (the resolvers) and its own packages.
var doors = []string{"graph", "rest", "ogc", "queryapi", "web"}

// roots assemble everything, so they may import doors and capabilities.
var roots = []string{"cmd/geopub", "internal/server"}

// gdalBinding is the package allowed cgo for GDAL.
var gdalBinding = []string{"internal/gdal"}

// Issue 25: "One test reads the import graph (go list -deps -json) and
// fails when: a package under internal/ (the composition root aside)
// imports a front door; rest/ or the HTML door reaches the Ent client; a
// package outside the one GDAL binding package uses cgo for GDAL." The
// Ent half is read from types, not imports (entclient_test.go).
func TestLayering(t *testing.T) {
	for _, b := range layeringBreaches(t, listPackages(t, "-deps", "./...")) {
		t.Errorf("%s: the layering rule (docs/architecture.md) forbids it", b)
	}
}

// layeringBreaches lists what the module's packages do against the rule.
func layeringBreaches(t *testing.T, pkgs []goPackage) []string {
	t.Helper()
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		if strings.HasPrefix(rel, "internal/") && !under(rel, doors) && !under(rel, roots) {
			for _, imp := range p.Imports {
				if r, ok := strings.CutPrefix(imp, module+"/"); ok && under(r, doors) {
					out = append(out, rel+" imports "+r)
				}
			}
		}
		if under(rel, doors) && !under(rel, []string{"graph"}) {
			for _, imp := range p.Imports {
				if r, ok := strings.CutPrefix(imp, module+"/"); ok && under(r, doors) && r != "graph" && topDoor(r) != topDoor(rel) {
					out = append(out, rel+" imports "+r)
				}
			}
		}
		if !under(rel, gdalBinding) && bindsGDAL(t, p) {
			out = append(out, rel+" binds GDAL through cgo")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// under reports whether path is one of prefixes or below one.
func under(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// topDoor is the door a package belongs to ("rest" for rest/x, "web" for
// the HTML door's packages).
func topDoor(path string) string {
	for _, d := range doors {
		if under(path, []string{d}) {
			return d
		}
	}
	return path
}

// bindsGDAL reports whether a package's cgo preamble links or includes
// GDAL (#cgo pkg-config: gdal, -lgdal, or a GDAL, OGR or CPL header).
func bindsGDAL(t *testing.T, p goPackage) bool {
	t.Helper()
	for _, f := range p.CgoFiles {
		fh, err := os.Open(filepath.Join(p.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		found := false
		for sc.Scan() {
			line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "//"))
			if line == `import "C"` {
				break
			}
			if !strings.HasPrefix(line, "#") {
				continue
			}
			l := strings.ToLower(line)
			if strings.Contains(l, "gdal") || strings.Contains(l, "<ogr_") || strings.Contains(l, "<cpl_") {
				found = true
				break
			}
		}
		fh.Close()
		if found {
			return true
		}
	}
	return false
}
