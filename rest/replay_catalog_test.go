package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/server/servertest"
)

// dpHeaders are the desktop plugin's headers on catalogue calls
// (api-shapes §1.2, §1.4): `Authorization: key`, no Accept, and
// `Expand: list,list.publisher,list.styles,list.data.source_summary`.
var dpExpand = map[string]string{"Expand": "list,list.publisher,list.styles,list.data.source_summary"}

// rangeTotal is how the plugin reads X-Resource-Range (api-shapes §1.5:
// it splits on "/" and "-", does int(total), and is finished when end
// equals total).
func rangeTotal(t *testing.T, h http.Header) (end, total int) {
	t.Helper()
	rng := h.Get("X-Resource-Range")
	parts := strings.FieldsFunc(rng, func(r rune) bool { return r == '/' || r == '-' })
	if len(parts) != 3 {
		t.Fatalf("X-Resource-Range %q", rng)
	}
	end, err1 := strconv.Atoi(parts[1])
	total, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		t.Fatalf("X-Resource-Range %q", rng)
	}
	return end, total
}

// Replay of the desktop plugin's catalogue calls (api-shapes §4.2, §10.1),
// with its exact parameters: page_size=20, True/False booleans, from=all,
// the "vectors + rasters" kind/geometry combination, facets=True, "load
// more" pages, the starred tab and the user context.
func TestReplayDesktopPluginCatalogue(t *testing.T) {
	tweak := docTweak{
		"Public roads": func(d *search.Doc) {
			d.GeometryType = "linestring"
			d.Categories = []search.KeyName{{Key: "transport", Name: "Transport"}}
		},
		"Aerial photos": func(d *search.Doc) { r := 0.25; d.RasterResolution = &r },
	}
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, tweak)
		key := f.other.Key
		do := func(method, path string, header map[string]string) *servertest.Response {
			t.Helper()
			r := e.Do(t, req{Method: method, Path: path, Key: key, Header: header})
			expectStatus(t, r, http.StatusOK)
			return r
		}
		body := func(r *servertest.Response) []byte { return r.Body }

		// Login gate: users/me/ with the key; country read unconditionally.
		var me struct {
			Country  string           `json:"country"`
			Contexts []map[string]any `json:"contexts"`
		}
		json.Unmarshal(body(do("GET", "/users/me/", nil)), &me)
		if me.Country == "" || len(me.Contexts) == 0 {
			t.Fatalf("users/me: %+v", me)
		}
		// The country menu.
		var opts struct {
			Filters struct {
				Country struct {
					Choices []struct{ Value, DisplayName string } `json:"choices"`
				} `json:"country"`
			} `json:"filters"`
		}
		json.Unmarshal(body(do("OPTIONS", "/data/", nil)), &opts)
		if opts.Filters.Country.Choices[0].Value != "global" {
			t.Fatal("no global country choice")
		}
		// Browse: default kinds, popularity, country bias parameters
		// (ignored), expanded.
		r := do("GET", "/data/?page=1&page_size=20&from=all&sort=popularity&kind=layer&kind=table&kind=set&kind=document&country=NZ&country_boost=6&multiplier_boost=True", dpExpand)
		end, total := rangeTotal(t, r.Header)
		if total != 5 || end != total {
			t.Fatalf("browse: %d of %d", end, total)
		}
		var items []map[string]any
		json.Unmarshal(body(r), &items)
		for _, it := range items {
			if it["type"] == nil || it["kind"] == nil || it["title"] == nil || it["publisher"] == nil {
				t.Errorf("item lacks what the plugin reads: %v", it)
			}
			if it["type"] == "layer" {
				if _, ok := it["styles"].([]any); !ok {
					t.Errorf("layer without a styles list: %v", it)
				}
				if _, ok := it["data"].(map[string]any); !ok {
					t.Errorf("layer without data: %v", it)
				}
			}
		}
		// Vectors + rasters: kind=raster and the three geometry types.
		vr := "/data/?page=1&page_size=20&from=all&kind=raster&data.geometry_type=point&data.geometry_type=linestring&data.geometry_type=polygon"
		json.Unmarshal(body(do("GET", vr, dpExpand)), &items)
		if len(items) != 2 {
			t.Fatalf("vectors + rasters: %d items", len(items))
		}
		// Its facets (no page parameters).
		var fc struct {
			Category []struct{ Key, Name string } `json:"category"`
			Group    []struct{ Key, Name string } `json:"group"`
			Created  *struct{ Min, Max string }   `json:"created_at"`
			Updated  *struct{ Min, Max string }   `json:"updated_at"`
			RR       *struct{ Min, Max float64 }  `json:"raster_resolution_range"`
		}
		r = do("GET", strings.Replace(vr, "page=1&page_size=20&", "", 1)+"&facets=True", nil)
		if _, total := rangeTotal(t, r.Header); total != 2 {
			t.Fatalf("facets total %d", total)
		}
		json.Unmarshal(body(r), &fc)
		if len(fc.Category) != 1 || fc.Category[0].Name != "Transport" || fc.Created == nil || fc.Updated == nil || fc.RR == nil || fc.RR.Min != 0.25 {
			t.Fatalf("facets: %s", body(r))
		}
		// Load more: page = ceil(items/20) + 1 with 20 a page; here a
		// second page of 2.
		r = do("GET", "/data/?page=2&page_size=2&from=all&sort=name", dpExpand)
		if end, total := rangeTotal(t, r.Header); end != 4 || total != 6 {
			t.Fatalf("load more: %d of %d", end, total)
		}
		// The starred tab and the access filter.
		r = do("GET", "/data/?page=1&page_size=20&is_starred=True", dpExpand)
		if end, total := rangeTotal(t, r.Header); end != 0 || total != 0 || r.Header.Get("X-Resource-Range") != "0-0/0" {
			t.Fatalf("starred: %s", r.Header.Get("X-Resource-Range"))
		}
		do("GET", "/data/?page=1&page_size=20&public=False", dpExpand)
		// A user publisher selected: from=<publisher id> and user=<id>.
		r = do("GET", "/data/?page=1&page_size=20&from=user:"+itoa(f.owner.ID)+"&user="+itoa(f.owner.ID), dpExpand)
		if _, total := rangeTotal(t, r.Header); total != 6 {
			t.Fatalf("user publisher's data: %d", total)
		}
		// The user context: users/me/data/ as the owner.
		key = f.owner.Key
		r = do("GET", "/users/me/data/?page=1&page_size=20", dpExpand)
		if _, total := rangeTotal(t, r.Header); total != 8 {
			t.Fatalf("my data: %d", total)
		}
		// Publishers and explore, as the plugin calls them.
		key = f.other.Key
		r = do("GET", "/publishers/?public=true&sort=popularity&type=user&page=1&page_size=20", nil)
		if _, total := rangeTotal(t, r.Header); total != 1 {
			t.Fatalf("publishers: %d", total)
		}
		do("GET", "/publishers/?public=true&sort=popularity&facets=True", nil)
		do("GET", "/explore-sections/", dpExpand)
		do("GET", "/explore-sections/popular/?page_size=20&item_type=layer.*", dpExpand)
	})
}

// pcRange is the Python client's X-Resource-Range pattern (api-shapes
// §1.5).
var pcRange = regexp.MustCompile(`^\d+-\d+/(\d+)$`)

// Replay of the Python client's catalogue and layer-list calls
// (api-shapes §1.5, §1.6, §4.1): v1 paths, `Accept: application/json`,
// follows Link page-next until absent (never builds page URLs), counts
// with the first page's X-Resource-Range, decides each entry's model from
// its url, and filters layers with its whitelisted parameters.
func TestReplayPythonClientCatalogue(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, docTweak{"Public roads": func(d *search.Doc) { d.Tags = []string{"roads"} }})
		base := e.HTTP.URL + "/services/api/v1"
		hdr := map[string]string{"Accept": "application/json"}
		get := func(url string) ([]map[string]any, string, string) {
			t.Helper()
			r := e.Do(t, req{Path: url, Key: f.owner.Key, Header: hdr})
			expectStatus(t, r, http.StatusOK)
			var items []map[string]any
			r.JSON(t, &items)
			return items, r.Header.Get("X-Resource-Range"), linkRel(r.Header.Get("Link"), "page-next")
		}
		// len(catalog): the first page's total.
		_, rng, _ := get(base + "/data/?page_size=3")
		m := pcRange.FindStringSubmatch(rng)
		if m == nil || m[1] != "7" {
			t.Fatalf("count: %q", rng)
		}
		// Iterating: follow page-next.
		models := map[string]int{}
		next := base + "/data/?page_size=3"
		pages := 0
		for next != "" {
			items, rng, n := get(next)
			if !pcRange.MatchString(rng) {
				t.Fatalf("range %q", rng)
			}
			if n != "" && !strings.HasPrefix(n, base+"/data/") {
				t.Fatalf("page-next %q leaves the v1 catalogue", n)
			}
			for _, it := range items {
				u := it["url"].(string)
				switch {
				case strings.Contains(u, "/services/api/v1/layers/"):
					models["layer"]++
				case strings.Contains(u, "/services/api/v1/tables/"):
					models["table"]++
				case strings.Contains(u, "/services/api/v1/sets/"):
					models["set"]++
				case strings.Contains(u, "/services/api/v1/documents/"):
					models["document"]++
				case strings.Contains(u, "/services/api/v1/items/"):
					models["item"]++
				default:
					t.Errorf("an entry's url names no model: %s", u)
				}
			}
			next = n
			pages++
		}
		if pages != 3 || models["layer"] != 3 || models["table"] != 1 || models["set"] != 1 || models["document"] != 1 {
			t.Fatalf("%d pages, models %v", pages, models)
		}
		// Layer filters from the client's whitelist, expanded.
		r := e.Do(t, req{Path: base + "/layers/?kind=vector&public=true&tag=roads&sort=name", Key: f.owner.Key,
			Header: map[string]string{"Accept": "application/json", "Expand": "list"}})
		expectStatus(t, r, http.StatusOK)
		var layers []map[string]any
		r.JSON(t, &layers)
		if len(layers) != 1 || layers[0]["name"] != "Public roads" || layers[0]["data"] == nil || layers[0]["version"] == nil {
			t.Fatalf("layer filter: %s", r.Body)
		}
		if !pcRange.MatchString(r.Header.Get("X-Resource-Range")) {
			t.Fatalf("layers range %q", r.Header.Get("X-Resource-Range"))
		}
		// Drafts by state: /data/latest/?version.status=...
		items, _, _ := get(base + "/data/latest/?version.status=importing")
		if len(items) != 1 || items[0]["title"] != "Draft rivers" {
			t.Fatalf("latest drafts: %v", items)
		}
	})
}
