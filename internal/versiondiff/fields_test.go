package versiondiff

import (
	"encoding/json"
	"testing"
)

// CompareFields keeps the newer side's order, reports a field absent from
// the older side against nil, and takes empty lists and text for nil.
func TestCompareFields(t *testing.T) {
	one := 1
	old := []Field{{"title", "A"}, {"tags", []string{}}, {"description", ""}, {"license", (*int)(nil)}}
	new := []Field{{"title", "B"}, {"tags", []string(nil)}, {"description", nil}, {"license", &one}, {"extra", "x"}}
	b, _ := json.Marshal(CompareFields(old, new))
	if want := `[{"name":"title","old":"A","new":"B"},{"name":"license","old":null,"new":1},{"name":"extra","old":null,"new":"x"}]`; string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	if got := CompareFields(new, new); len(got) != 0 {
		t.Fatalf("a version against itself: %+v", got)
	}
}
