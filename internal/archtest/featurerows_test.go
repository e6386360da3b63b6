package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// featureInsert is an INSERT into the features table in SQL text.
var featureInsert = regexp.MustCompile(`(?i)\binsert\s+(or\s+\w+\s+)?into\s+[\x60"]?features[\x60"]?[\s(]`)

// Every row of the features table is inserted by internal/featurerows:
// SQLite has no trigger keying rows written without a cell key (its
// migration 20261128180000 says why), so a statement elsewhere could store
// rows no box lookup finds.
func TestOnlyFeaturerowsInsertsFeatures(t *testing.T) {
	own := filepath.Join(repoRoot(t), "internal", "featurerows")
	seen := 0
	eachGoFile(t, func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil || !featureInsert.Match(b) {
			return err
		}
		if filepath.Dir(path) != own {
			t.Errorf("%s inserts into features; write feature rows with featurerows.Writer", path)
		}
		seen++
		return nil
	})
	if seen == 0 {
		t.Fatal("found no statement inserting feature rows, not even featurerows' own: the pattern is wrong")
	}
}
