package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/geopub/geopub/internal/store/storetest"
)

// PostGIS must answer the same queries as the server: pgbench's script
// computes query point i exactly as queryPoint does.
func TestPgbenchComputesTheQueryPoints(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		if os.Getenv(storetest.EnvRequirePostgres) == "1" {
			t.Fatal("pgbench is not installed")
		}
		t.Skip("pgbench is not installed")
	}
	db := storetest.PostgresURL(t)
	debug := regexp.MustCompile(`command=(\d+)\): double (\S+)`)
	for name, at := range areas {
		for _, i := range []int{0, 1, 2186, 7587, nQueries - 1} {
			script := "\\set i " + strconv.Itoa(i) + "\n" + pointScript(at) +
				"\\set dx debug(:x)\n\\set dy debug(:y)\nSELECT 1;\n"
			file := filepath.Join(t.TempDir(), "points.sql")
			if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pgbench, "-n", "-t", "1", "-c", "1", "-f", file, db).CombinedOutput()
			if err != nil {
				t.Fatalf("pgbench: %v\n%s", err, out)
			}
			m := debug.FindAllStringSubmatch(string(out), -1)
			if len(m) != 2 {
				t.Fatalf("pgbench printed no point:\n%s", out)
			}
			x, y := at.queryPoint(i)
			for k, want := range []float64{x, y} {
				got, err := strconv.ParseFloat(m[k][2], 64)
				// pgbench prints 15 significant digits.
				if err != nil || got-want > 1e-9 || want-got > 1e-9 {
					t.Errorf("%s point %d: pgbench computes %s, queryPoint %v", name, i, m[k][2], want)
				}
			}
		}
	}
}
