package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/geopub/geopub"

// goPackage is what the tests read of `go list -json`.
type goPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	CgoFiles   []string
}

// listPackages runs go list -json on patterns from the module's root.
func listPackages(t *testing.T, patterns ...string) []goPackage {
	t.Helper()
	treeOnce.Do(func() { touchTree(t) })
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []goPackage
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// treeOnce reads the tree once per test binary: both tests list packages.
var treeOnce sync.Once

// touchTree reads every folder of the repository and every Go file in
// them. go test caches a passing run until a file the test opened changes;
// go list's own reads are not seen, so without this the fast tier (test
// cache on) would keep passing after a wrong import or a new package.
func touchTree(t *testing.T) {
	t.Helper()
	eachGoFile(t, func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	})
}

// eachGoFile calls fn with the path of every Go file of the repository
// (.git, node_modules and the service's data folder left out).
func eachGoFile(t *testing.T, fn func(path string) error) {
	t.Helper()
	err := filepath.WalkDir(repoRoot(t), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "data":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			return fn(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// repoRoot is the module's root: two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}
