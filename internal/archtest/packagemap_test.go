package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Issue 25: "The package map cannot drift: a test fails when a package is
// missing from it or listed but gone."
func TestPackageMapNamesEveryPackage(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries := packageMap(t, string(doc))
	var pkgs []string
	for _, p := range listPackages(t, "./...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		// ent/ is generated but for its hand-written schemas; the root
		// package only carries the go:generate lines.
		if rel == "" || (strings.HasPrefix(rel, "ent") && rel != "ent/schema") {
			continue
		}
		pkgs = append(pkgs, rel)
	}
	for _, p := range pkgs {
		if !slices.Contains(entries, p) {
			t.Errorf("package %s is missing from the package map in docs/architecture.md: add a line saying what it is for", p)
		}
	}
	for _, e := range entries {
		if slices.Contains(pkgs, e) {
			continue
		}
		// A folder that holds no Go package (schema/, scripts/) may be named.
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(e))); err != nil || !fi.IsDir() {
			t.Errorf("the package map in docs/architecture.md names %s, which is neither a package nor a folder: remove or rename the line", e)
		}
	}
}

// mapLine is a line of the map: four spaces, a path (or a path and sibling
// names after commas), spaces, what it is for.
var mapLine = regexp.MustCompile(`^    ([^\s,]+(?:, [^\s,]+)*)\s+\S`)

// packageMap returns the paths the map names, in the indented block of the
// "## Package map" section.
func packageMap(t *testing.T, doc string) []string {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Package map\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Package map" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, line := range strings.Split(section, "\n") {
		m := mapLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names := strings.Split(m[1], ", ")
		first := strings.TrimSuffix(names[0], "/")
		out = append(out, first)
		// "internal/scanning, importing, publishing": siblings of the first.
		for _, n := range names[1:] {
			out = append(out, filepath.ToSlash(filepath.Join(filepath.Dir(first), n)))
		}
	}
	if len(out) == 0 {
		t.Fatal("the package map of docs/architecture.md names no package")
	}
	return out
}
