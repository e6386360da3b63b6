package rest_test

import (
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// pcHeaders are the headers the Python client sends on every request
// (api-shapes §1.2, §1.4).
var pcHeaders = map[string]string{"Accept": "application/json", "User-Agent": "KoordinatesPython/0.7.0"}

// Issue 24 #18; api-shapes §2: "Tables share the layer model (PC aliases
// them; PC's tables accessor even uses the /layers/… paths)". The
// layer lists (/layers/, /layers/drafts/) hold layers and tables, and
// kind filters them (kind=table: tables only; kind=vector: vector layers
// only); /tables/ keeps tables only.
func TestLayerListsHoldTablesAsThePythonClientAsks(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		seedLayer(t, e, f.owner.User, layer.TypeTable, "Draft census", true)
		base := e.HTTP.URL + "/services/api/v1"
		names := func(path string) []string {
			t.Helper()
			r := e.Do(t, req{Path: base + path, Key: f.owner.Key, Header: pcHeaders})
			expectStatus(t, r, http.StatusOK)
			if r.Header.Get("X-Resource-Range") == "" {
				t.Fatalf("%s: no X-Resource-Range", path)
			}
			var items []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			}
			r.JSON(t, &items)
			var out []string
			for _, it := range items {
				out = append(out, it.Name)
			}
			sort.Strings(out)
			return out
		}
		cases := []struct {
			path string
			want []string
		}{
			// The store's list: the owner's unpublished datasets too.
			{"/layers/", []string{"Aerial photos", "Census table", "Draft census", "Draft rivers", "Public roads", "Secret parcels"}},
			{"/layers/?kind=table", []string{"Census table"}},
			{"/layers/?kind=vector", []string{"Public roads", "Secret parcels"}},
			{"/layers/?kind=raster&kind=table", []string{"Aerial photos", "Census table"}},
			{"/layers/?q=census", []string{"Census table"}},
			{"/tables/", []string{"Census table", "Draft census"}},
			{"/tables/?kind=vector", nil},
			{"/layers/drafts/", []string{"Draft census", "Draft rivers"}},
			{"/layers/drafts/?kind=table", []string{"Draft census"}},
			{"/layers/drafts/?kind=vector", []string{"Draft rivers"}},
			{"/tables/drafts/", []string{"Draft census"}},
		}
		for _, c := range cases {
			if got := names(c.path); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.path, got, c.want)
			}
		}
		expectStatus(t, e.Do(t, req{Path: base + "/layers/drafts/?kind=ship", Key: f.owner.Key, Header: pcHeaders}), http.StatusBadRequest)
	})
}
