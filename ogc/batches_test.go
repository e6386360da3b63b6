package ogc_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// testBatches: pages drawn from several database batches (filters that
// reject most rows) still hold every match once, in order.
func testBatches(t *testing.T, f *fixture) {
	var fs []feature
	for i := 0; i < 1200; i++ {
		fs = append(fs, feature{int64(2 * i), pt(170+float64(i%40)*0.01, -40+float64(i/40)*0.01), map[string]any{"name": fmt.Sprintf("n%d", i), "rank": int64(i)}})
	}
	id := publish(t, f.e, f.owner.User, layer.TypeLayer, "Many", "point", attrFields, fs)
	items := "/collections/" + layerID(id) + "/items"
	var want []int64
	for i := 1100; i < 1200; i++ {
		want = append(want, int64(2*i))
	}
	for _, q := range []string{
		"limit=7&filter=" + url.QueryEscape("rank >= 1100"),
		"limit=30&rank=1100&filter=" + url.QueryEscape("rank >= 0"),
		// Features 1120 to 1199 are the grid's top two rows.
		"limit=9&bbox=169,-39.7249,171,-39",
	} {
		got := f.ids(t, items+"?"+q)
		w := want
		switch q[:8] {
		case "limit=30":
			w = want[:1]
		case "limit=9&":
			w = want[20:]
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %d features %v…, want %d", q, len(got), got[:min(len(got), 5)], len(w))
		}
	}
	all, pages := f.allPages(t, f.reader.Key, items+"?limit=500")
	if len(all) != 1200 || pages != 3 || all[0].ID != 0 || all[1199].ID != 2398 {
		t.Errorf("unfiltered: %d features in %d pages", len(all), pages)
	}
}
