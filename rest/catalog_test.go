package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/search"
)

// entry is a catalogue entry as /data/ renders it.
type entry struct {
	ID               any    `json:"id"`
	URL              string `json:"url"`
	Type             string `json:"type"`
	Kind             string `json:"kind"`
	Title            string `json:"title"`
	FirstPublishedAt any    `json:"first_published_at"`
	PublishedAt      any    `json:"published_at"`
	Version          *struct {
		Status string `json:"status"`
		State  string `json:"state"`
	} `json:"version"`
	Publisher *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"publisher"`
}

// catalogFixture is a small catalogue: public and private published
// layers, a draft-only layer, a table, a set, a document and a catalog
// item of one owner, indexed.
type catalogFixture struct {
	owner, other *user
	layers       map[string]int
}

// makePrivate replaces a dataset's grants by its owner's admin grant.
func makePrivate(t *testing.T, e *env, owner *user, path string) {
	t.Helper()
	expectStatus(t, e.Do(t, req{Method: "PUT", Path: path + "permissions/", Key: owner.Key,
		Body: []any{map[string]any{"permission": "admin", "user": owner.ID}}}), http.StatusOK)
}

func newCatalogFixture(t *testing.T, e *env, tweak docTweak) *catalogFixture {
	t.Helper()
	f := &catalogFixture{owner: e.NewUser(t, "Owner"), other: e.NewUser(t, "Other"), layers: map[string]int{}}
	for _, name := range []string{"Public roads", "Secret parcels", "Draft rivers"} {
		f.layers[name] = seedLayer(t, e, f.owner.User, layer.TypeLayer, name, name == "Draft rivers").ID
	}
	f.layers["Census table"] = seedLayer(t, e, f.owner.User, layer.TypeTable, "Census table", false).ID
	ctx := t.Context()
	// The draft is importing (api-shapes §11: the Python client lists
	// drafts by /data/latest/?version.status=importing).
	e.Store.Client.LayerVersion.Update().Where(layerversion.LayerID(f.layers["Draft rivers"])).
		SetStatus(layerversion.StatusImporting).ExecX(ctx)
	f.layers["Aerial photos"] = seedLayer(t, e, f.owner.User, layer.TypeLayer, "Aerial photos", false).ID
	e.Store.Client.Layer.UpdateOneID(f.layers["Aerial photos"]).SetKind(layer.KindRaster).ExecX(ctx)
	makePrivate(t, e, f.owner, fmt.Sprintf("/layers/%d/", f.layers["Secret parcels"]))
	seedDocument(t, e, f.owner, "Annual report", true)

	// A set and a catalog item through the API, published.
	r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: f.owner.Key, Body: map[string]any{"title": "Transport set"}})
	expectStatus(t, r, http.StatusCreated)
	var set struct {
		LatestVersion string `json:"latest_version"`
	}
	r.JSON(t, &set)
	pr := e.Do(t, req{Method: "POST", Path: set.LatestVersion + "publish/", Key: f.owner.Key, Body: map[string]any{}})
	expectStatus(t, pr, http.StatusCreated)
	waitPublish(t, e, f.owner.Key, pr.Header.Get("Location"))
	r = e.Do(t, req{Method: "POST", Path: "/items/", Key: f.owner.Key, Body: map[string]any{"title": "Harbour charts", "link_url": "https://example.com/charts"}})
	expectStatus(t, r, http.StatusCreated)
	var item struct {
		LatestVersion string `json:"latest_version"`
	}
	r.JSON(t, &item)
	expectStatus(t, e.Do(t, req{Method: "POST", Path: item.LatestVersion + "publish/", Key: f.owner.Key, Body: map[string]any{}}), http.StatusCreated)
	indexCatalog(t, e, tweak)
	return f
}

// titles runs a catalogue request and returns the entries' titles, sorted.
func titles(t *testing.T, e *env, key, path string) []string {
	t.Helper()
	var out []string
	for _, en := range listEntries(t, e, key, path) {
		out = append(out, en.Title)
	}
	sort.Strings(out)
	return out
}

func listEntries(t *testing.T, e *env, key, path string) []entry {
	t.Helper()
	r := e.Do(t, req{Path: path, Key: key})
	expectStatus(t, r, http.StatusOK)
	if r.Header.Get("X-Resource-Range") == "" {
		t.Fatalf("%s: no X-Resource-Range", path)
	}
	var es []entry
	r.JSON(t, &es)
	return es
}

var published = []string{"Aerial photos", "Annual report", "Census table", "Harbour charts", "Public roads", "Transport set"}

// Spec, Conventions for list endpoints; api-shapes §4.1: "/data/:
// published version of every layer, table, set, document, source;
// unpublished items absent"; entries are heterogeneous, each with type
// and kind. A private dataset never appears for callers who may not see
// it, anonymous included.
func TestDataListsPublishedDatasetsTheCallerMaySee(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		if got := titles(t, e, "", "/data/"); !slices.Equal(got, published) {
			t.Fatalf("anonymous sees %v, want %v", got, published)
		}
		if got := titles(t, e, f.other.Key, "/data/"); !slices.Equal(got, published) {
			t.Fatalf("another user sees %v, want %v", got, published)
		}
		withSecret := append(slices.Clone(published), "Secret parcels")
		sort.Strings(withSecret)
		if got := titles(t, e, f.owner.Key, "/data/"); !slices.Equal(got, withSecret) {
			t.Fatalf("the owner sees %v, want %v", got, withSecret)
		}
		want := map[string][2]string{
			"Public roads": {"layer", "vector"}, "Aerial photos": {"layer", "raster"}, "Census table": {"table", "table"},
			"Transport set": {"set", "set"}, "Annual report": {"document", "document"}, "Harbour charts": {"catalogitem", "item"},
		}
		for _, en := range listEntries(t, e, "", "/data/") {
			if w := want[en.Title]; en.Type != w[0] || en.Kind != w[1] {
				t.Errorf("%s: type %q kind %q, want %v", en.Title, en.Type, en.Kind, w)
			}
			if !strings.HasPrefix(en.URL, e.API+"/") || en.ID == nil {
				t.Errorf("%s: url %q id %v", en.Title, en.URL, en.ID)
			}
		}
		// The Python client reads the model from the URL's path.
		for _, en := range listEntries(t, e, "", "/data/?kind=table") {
			if !strings.Contains(en.URL, "/tables/") {
				t.Errorf("a table's url is %s", en.URL)
			}
		}
	})
}

// api-shapes §4.1: "/data/latest/: latest version of each item regardless
// of publish state; extra filter version.status". Drafts show only to
// those who may edit them.
func TestDataLatestShowsDraftsToEditorsOnly(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		if got := titles(t, e, "", "/data/latest/"); slices.Contains(got, "Draft rivers") || slices.Contains(got, "Secret parcels") {
			t.Fatalf("anonymous sees %v in /data/latest/", got)
		}
		if got := titles(t, e, f.other.Key, "/data/latest/"); slices.Contains(got, "Draft rivers") {
			t.Fatalf("another user sees the draft: %v", got)
		}
		var draft *entry
		for _, en := range listEntries(t, e, f.owner.Key, "/data/latest/") {
			if en.Title == "Draft rivers" {
				draft = &en
			}
		}
		if draft == nil || draft.Version == nil || draft.Version.Status != "importing" || draft.Version.State != "draft" {
			t.Fatalf("the owner's latest list: draft %+v", draft)
		}
		if got := titles(t, e, f.owner.Key, "/data/latest/?version.status=importing"); !slices.Equal(got, []string{"Draft rivers"}) {
			t.Fatalf("version.status=importing: %v", got)
		}
		if got := titles(t, e, f.owner.Key, "/data/latest/?version.status=published&kind=layer"); !slices.Equal(got, []string{"Aerial photos", "Public roads", "Secret parcels"}) {
			t.Fatalf("version.status=published: %v", got)
		}
		if got := titles(t, e, f.owner.Key, "/data/?q=rivers"); len(got) != 0 {
			t.Fatalf("/data/ lists a draft: %v", got)
		}
		// version.status is a /data/latest/ filter; /data/ ignores it as
		// an unknown parameter.
		if got := titles(t, e, "", "/data/?version.status=draft"); !slices.Equal(got, published) {
			t.Fatalf("/data/?version.status: %v", got)
		}
	})
}

// Each filter through HTTP (api-shapes §1.6, §4.2): repeated values of one
// filter are OR-ed, different filters AND-ed; booleans in any case.
func TestDataFilters(t *testing.T) {
	res := func(v float64) *float64 { return &v }
	tweak := docTweak{
		"Public roads": func(d *search.Doc) {
			d.Tags, d.GeometryType, d.HasZ = []string{"transport", "roads"}, "linestring", true
			d.Categories = []search.KeyName{{Key: "transport/roads", Name: "Roads"}}
			d.LicenseType, d.LicenseVersion = "cc-by", "4.0"
			d.Geotags = []search.KeyName{{Key: "nz-wellington", Name: "Wellington"}}
			d.CreatedAt, d.UpdatedAt = day("2021-03-01"), day("2023-01-10")
		},
		"Aerial photos": func(d *search.Doc) {
			d.Tags, d.RasterResolution, d.RasterBands = []string{"imagery"}, res(0.5), []string{"red", "green", "blue"}
			imagery := true
			d.IsImagery = &imagery
			d.LicenseType, d.LicenseVersion = "cc-by-nc", "3.0"
			d.CreatedAt, d.UpdatedAt = day("2022-06-01"), day("2022-06-02")
		},
		"Census table": func(d *search.Doc) {
			d.HasPK, d.Categories = true, []search.KeyName{{Key: "society", Name: "Society"}}
			d.CreatedAt, d.UpdatedAt = day("2020-01-01"), day("2020-01-01")
		},
		"Transport set": func(d *search.Doc) {
			d.Tags, d.Categories = []string{"transport"}, []search.KeyName{{Key: "transport", Name: "Transport"}}
		},
	}
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, tweak)
		ownerGroup := ""
		_ = ownerGroup
		cases := []struct {
			query string
			want  []string
		}{
			{"kind=raster", []string{"Aerial photos"}},
			{"kind=layer", []string{"Aerial photos", "Public roads"}},
			{"kind=table&kind=set", []string{"Census table", "Transport set"}},
			{"kind=document", []string{"Annual report"}},
			{"kind=item", []string{"Harbour charts"}},
			// The desktop plugin's "vectors + rasters".
			{"kind=raster&data.geometry_type=point&data.geometry_type=linestring&data.geometry_type=polygon", []string{"Aerial photos", "Public roads"}},
			{"data.geometry_type=multilinestring", []string{"Public roads"}},
			{"tag=transport", []string{"Public roads", "Transport set"}},
			{"tag=roads&tag=imagery", []string{"Aerial photos", "Public roads"}},
			{"tag=transport&kind=set", []string{"Transport set"}},
			{"category=transport", []string{"Public roads", "Transport set"}},
			{"category=transport/roads", []string{"Public roads"}},
			{"geotag=nz-wellington", []string{"Public roads"}},
			{"license.type=cc-by", []string{"Public roads"}},
			{"license.type=-cc-by-nc&kind=layer", []string{"Public roads"}},
			{"license.version=3.0", []string{"Aerial photos"}},
			{"has_z=True", []string{"Public roads"}},
			{"has_pk=true", []string{"Census table"}},
			{"is_imagery=True", []string{"Aerial photos"}},
			{"raster_band=red", []string{"Aerial photos"}},
			{"raster_resolution.gt=0.1&raster_resolution.lt=1", []string{"Aerial photos"}},
			{"raster_resolution.gt=1", nil},
			{"created_at.before=2021-01-01T00:00:00", []string{"Census table"}},
			{"created_at.after=2021-01-01T00:00:00&created_at.before=2023-01-01T00:00:00", []string{"Aerial photos", "Public roads"}},
			{"updated_at.after=2022-12-31T00:00:00&kind=layer", []string{"Public roads"}},
			{"updated_at.before=2022-12-31T00:00:00&kind=layer", []string{"Aerial photos"}},
			{"q=roads", []string{"Public roads"}},
			{"q=harbour", []string{"Harbour charts"}},
			{"user=" + itoa(f.owner.ID) + "&kind=set", []string{"Transport set"}},
			{"from=user:" + itoa(f.owner.ID) + "&kind=document", []string{"Annual report"}},
			{"from=all&kind=document", []string{"Annual report"}},
			{"user=" + itoa(f.other.ID), nil},
			{"public=True&kind=layer", []string{"Aerial photos", "Public roads"}},
			{"public=False", nil},
			{"unknown_param=1&kind=set", []string{"Transport set"}},
		}
		for _, c := range cases {
			got := titles(t, e, "", "/data/?"+c.query)
			if !slices.Equal(got, c.want) {
				t.Errorf("?%s: %v, want %v", c.query, got, c.want)
			}
		}
		// The owner sees the private layer through public=False.
		if got := titles(t, e, f.owner.Key, "/data/?public=False"); !slices.Equal(got, []string{"Secret parcels"}) {
			t.Errorf("owner ?public=False: %v", got)
		}
		// Stars: nothing starred yet; anonymous callers starred nothing.
		if got := titles(t, e, f.owner.Key, "/data/?is_starred=True"); len(got) != 0 {
			t.Errorf("is_starred=True before any star: %v", got)
		}
		if got := titles(t, e, "", "/data/?is_starred=True"); len(got) != 0 {
			t.Errorf("anonymous is_starred=True: %v", got)
		}
		// Sorts: name A-Z and Z-A; relevance with q.
		for sortBy, want := range map[string][]string{
			"name":  {"Aerial photos", "Annual report", "Census table", "Harbour charts", "Public roads", "Transport set"},
			"-name": {"Transport set", "Public roads", "Harbour charts", "Census table", "Annual report", "Aerial photos"},
		} {
			var got []string
			for _, en := range listEntries(t, e, "", "/data/?sort="+sortBy) {
				got = append(got, en.Title)
			}
			if !slices.Equal(got, want) {
				t.Errorf("sort=%s: %v", sortBy, got)
			}
		}
		var got []string
		for _, en := range listEntries(t, e, "", "/data/?kind=layer&sort=created_at") {
			got = append(got, en.Title)
		}
		if !slices.Equal(got, []string{"Aerial photos", "Public roads"}) {
			t.Errorf("sort=created_at (recently added first): %v", got)
		}
	})
}

// Spec: "recognised parameters with invalid values give 400"; the text
// rules apply to q.
func TestDataBadValuesAre400NamingTheParameter(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for query, field := range map[string]string{
			"kind=spaceship":                      "kind",
			"data.geometry_type=circle":           "data.geometry_type",
			"public=maybe":                        "public",
			"is_starred=2x":                       "is_starred",
			"facets=perhaps":                      "facets",
			"raster_resolution.gt=wide":           "raster_resolution.gt",
			"created_at.after=yesterday":          "created_at.after",
			"updated_at.before=13/13/2020":        "updated_at.before",
			"group=abc":                           "group",
			"user=-1":                             "user",
			"from=elsewhere":                      "from",
			"sort=random":                         "sort",
			"page=0":                              "page",
			"page_size=201":                       "page_size",
			"q=" + strings.Repeat("x", 201):       "q",
			"q=%00":                               "q",
			"tag=%ED%A0%80":                       "tag",
			"cursor=not-a-cursor":                 "cursor",
			"has_z=yes%20please":                  "has_z",
			"license.type=" + "%00":               "license.type",
			"raster_resolution.lt=1e999":          "raster_resolution.lt",
			"geotag.geometry=sometimes":           "geotag.geometry",
			"category=" + url.QueryEscape("\x00"): "category",
		} {
			r := e.Do(t, req{Path: "/data/?" + query})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), field) {
				t.Errorf("?%s: the 400 does not name %s: %s", query, field, r.Body)
			}
		}
	})
}

// Spec, list conventions: X-Paginate-By, X-Resource-Range and a Link
// page-next with every parameter; api-shapes §1.5: the Python client
// follows page-next until absent and reads the total from
// X-Resource-Range; zero results are 0-0/0. page-next carries the
// engine's cursor (keyset paging).
func TestDataPagingFollowsPageNext(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		newCatalogFixture(t, e, nil)
		next := e.API + "/data/?page_size=4&sort=name&q="
		var got []string
		var ranges []string
		for next != "" {
			r := e.Do(t, req{Path: next, Header: map[string]string{"Accept": "application/json"}})
			expectStatus(t, r, http.StatusOK)
			ranges = append(ranges, r.Header.Get("X-Resource-Range"))
			var es []entry
			r.JSON(t, &es)
			for _, en := range es {
				got = append(got, en.Title)
			}
			next = linkRel(r.Header.Get("Link"), "page-next")
			if next != "" && (!strings.Contains(next, "cursor=") || !strings.Contains(next, "sort=name") || !strings.Contains(next, "page_size=4")) {
				t.Fatalf("page-next %s does not carry the cursor and every parameter", next)
			}
		}
		if !slices.Equal(got, published) {
			t.Fatalf("pages gave %v", got)
		}
		if !slices.Equal(ranges, []string{"0-4/6", "4-6/6"}) {
			t.Fatalf("X-Resource-Range: %v", ranges)
		}
		// page=2 without a cursor (OFFSET) gives the same page.
		var second []string
		for _, en := range listEntries(t, e, "", "/data/?page_size=4&sort=name&page=2") {
			second = append(second, en.Title)
		}
		if !slices.Equal(second, published[4:]) {
			t.Fatalf("page 2: %v", second)
		}
		r := e.Do(t, req{Path: "/data/?q=nothingmatchesthis"})
		expectStatus(t, r, http.StatusOK)
		if got := r.Header.Get("X-Resource-Range"); got != "0-0/0" {
			t.Fatalf("empty X-Resource-Range = %q", got)
		}
		if string(r.Body) != "[]" && string(r.Body) != "[]\n" {
			t.Fatalf("empty body %q", r.Body)
		}
		link := r.Header.Get("Link")
		for _, rel := range []string{"sort-name", "sort-name-desc", "sort-most-popular", "sort-recently-added", "sort-recently-updated"} {
			if !strings.Contains(link, `rel="`+rel+`"`) {
				t.Errorf("Link lacks %s: %s", rel, link)
			}
		}
	})
}

var linkRE = regexp.MustCompile(`<([^>]*)>; rel="([^"]*)"`)

// linkRel returns the URL of a Link header relation, "" when absent.
func linkRel(header, rel string) string {
	for _, m := range linkRE.FindAllStringSubmatch(header, -1) {
		if m[2] == rel {
			return m[1]
		}
	}
	return ""
}

// Spec: "facets=true replaces the result list by facet counts for the
// applied filters ... Each entry has key and total; ... Counts cover the
// whole result set regardless of paging." The counts equal brute-force
// counts over the same filter, and a private dataset counts for no one
// who may not see it.
func TestDataFacetsEqualBruteForceCounts(t *testing.T) {
	tweak := docTweak{
		"Public roads":   func(d *search.Doc) { d.Tags = []string{"transport", "roads"}; d.LicenseType = "cc-by" },
		"Secret parcels": func(d *search.Doc) { d.Tags = []string{"transport", "secret-tag"}; d.LicenseType = "cc-by" },
		"Transport set":  func(d *search.Doc) { d.Tags = []string{"transport"} },
		"Aerial photos": func(d *search.Doc) {
			d.Tags = []string{"imagery"}
			r := 0.5
			d.RasterResolution = &r
			d.Categories = []search.KeyName{{Key: "imagery/aerial", Name: "Aerial"}}
		},
	}
	tagsOf := map[string][]string{}
	for title, fn := range tweak {
		var d search.Doc
		fn(&d)
		tagsOf[title] = d.Tags
	}
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, tweak)
		type facets struct {
			Tag []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"tag"`
			Kind []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"kind"`
			Category []struct {
				Key   string  `json:"key"`
				Name  *string `json:"name"`
				Total int     `json:"total"`
			} `json:"category"`
			License []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"license"`
			CreatedAt *struct{ Min, Max string } `json:"created_at"`
		}
		for _, who := range []*user{nil, f.other, f.owner} {
			key := ""
			if who != nil {
				key = who.Key
			}
			for _, filter := range []string{"", "kind=layer", "tag=transport", "q=roads+transport+photos"} {
				r := e.Do(t, req{Path: "/data/?facets=True&page_size=1&" + filter, Key: key})
				expectStatus(t, r, http.StatusOK)
				var fc facets
				r.JSON(t, &fc)
				// Brute force: every entry of the same filter, counted.
				all := listEntries(t, e, key, "/data/?page_size=200&"+filter)
				kinds := map[string]int{}
				for _, en := range all {
					kinds[en.Kind]++
				}
				gotKinds := map[string]int{}
				for _, k := range fc.Kind {
					gotKinds[k.Key] = k.Total
				}
				if fmt.Sprint(gotKinds) != fmt.Sprint(kinds) {
					t.Errorf("%v ?%s: kind facet %v, brute force %v", who != nil, filter, gotKinds, kinds)
				}
				// Tags: count the listed entries carrying each tag.
				for _, tg := range fc.Tag {
					n := 0
					for _, en := range all {
						if slices.Contains(tagsOf[en.Title], tg.Key) {
							n++
						}
					}
					if n != tg.Total {
						t.Errorf("?%s: tag %s counts %d, the list has %d", filter, tg.Key, tg.Total, n)
					}
					if tg.Key == "secret-tag" && (who == nil || who == f.other) {
						t.Errorf("LEAK: the private dataset's tag is counted for a caller who may not see it")
					}
				}
				for _, l := range fc.License {
					n := len(listEntries(t, e, key, "/data/?page_size=200&license.type="+l.Key+"&"+filter))
					if n != l.Total {
						t.Errorf("?%s: license %s counts %d, the list has %d", filter, l.Key, l.Total, n)
					}
				}
				if len(all) > 0 && fc.CreatedAt == nil {
					t.Errorf("?%s: no created_at range", filter)
				}
				if got := r.Header.Get("X-Resource-Range"); !strings.HasSuffix(got, fmt.Sprintf("/%d", len(all))) {
					t.Errorf("?%s facets: X-Resource-Range %q, total %d", filter, got, len(all))
				}
			}
		}
		// Category entries carry their name; geotag entries has_children
		// and geom.
		r := e.Do(t, req{Path: "/data/?facets=true"})
		var raw map[string]any
		r.JSON(t, &raw)
		for _, k := range []string{"tag", "group", "geotag", "category", "license", "raster_resolution", "raster_band", "kind", "created_at", "updated_at"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("facet %s missing: %s", k, r.Body)
			}
		}
		// A category counts under its ancestors too (hierarchical keys).
		cats := raw["category"].([]any)
		if len(cats) != 2 || cats[1].(map[string]any)["name"] != "Aerial" || cats[1].(map[string]any)["key"] != "imagery/aerial" ||
			cats[0].(map[string]any)["key"] != "imagery" {
			t.Errorf("category facet %v", cats)
		}
	})
}

// /users/me/data/ (api-shapes §4.1, the desktop plugin's "My data"): the
// caller's own datasets, drafts included; anonymous callers get 401.
func TestUsersMeDataListsTheCallersOwnData(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		expectStatus(t, e.Do(t, req{Path: "/users/me/data/"}), http.StatusUnauthorized)
		got := titles(t, e, f.owner.Key, "/users/me/data/")
		for _, want := range []string{"Draft rivers", "Secret parcels", "Public roads", "Transport set"} {
			if !slices.Contains(got, want) {
				t.Errorf("the owner's data lacks %s: %v", want, got)
			}
		}
		if got := titles(t, e, f.other.Key, "/users/me/data/"); len(got) != 0 {
			t.Errorf("another user's data: %v", got)
		}
		if got := titles(t, e, f.owner.Key, "/users/me/data/?kind=set"); !slices.Equal(got, []string{"Transport set"}) {
			t.Errorf("the owner's sets: %v", got)
		}
		expectDetail(t, e.Do(t, req{Path: "/users/me/data/", Key: e.Token(t, f.owner.User, "layers:read")}), http.StatusUnauthorized, "catalog")
	})
}

// api-shapes §4.1: OPTIONS /data/ is {filters: {country: {choices:
// [{value: "global"|"<CC>", display_name}]}}, ...}, global first.
func TestOptionsDataListsCountryChoices(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.Do(t, req{Method: "OPTIONS", Path: "/data/"})
		expectStatus(t, r, http.StatusOK)
		var body struct {
			Name       string   `json:"name"`
			Expansions []string `json:"expansions"`
			Filters    struct {
				Country struct {
					Choices []struct {
						Value       string `json:"value"`
						DisplayName string `json:"display_name"`
					} `json:"choices"`
				} `json:"country"`
			} `json:"filters"`
		}
		r.JSON(t, &body)
		cs := body.Filters.Country.Choices
		if len(cs) < 240 || cs[0].Value != "global" {
			t.Fatalf("choices: %d, first %+v", len(cs), cs[0])
		}
		found := false
		for _, c := range cs {
			found = found || (c.Value == "NZ" && c.DisplayName == "New Zealand")
		}
		if !found || !slices.Contains(body.Expansions, "list") {
			t.Fatalf("no NZ choice or no list expansion: %s", r.Body)
		}
	})
}

// README, Limits and hardening, Source permissions: "view sees the source
// and its datasources ..., edit ... sees its URL, options". A source in
// the catalogue shows no more than its own URL does.
func TestDataShowsSourcesAsTheirDirectLookupDoes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, viewer, outsider := e.NewUser(t, "Owner"), e.NewUser(t, "Viewer"), e.NewUser(t, "Outsider")
		ctx := t.Context()
		c := e.Store.Client
		src := c.Source.Create().SetType("wfs").SetTitle("Remote WFS").SetURLRemote("https://secret.example.com/wfs").
			SetUserID(owner.ID).SaveX(ctx)
		if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, owner.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := access.GrantAtLeast(ctx, c, access.KindSource, src.ID, viewer.ID, access.View); err != nil {
			t.Fatal(err)
		}
		indexCatalog(t, e, nil)
		get := func(u *user) []map[string]any {
			r := e.Do(t, req{Path: "/data/?kind=source", Key: u.Key, Header: map[string]string{"Expand": "list"}})
			expectStatus(t, r, http.StatusOK)
			var out []map[string]any
			r.JSON(t, &out)
			return out
		}
		if got := get(owner); len(got) != 1 || got[0]["url_remote"] != "https://secret.example.com/wfs" || got[0]["type"] != "source" || got[0]["source_type"] != "wfs" {
			t.Fatalf("owner: %v", got)
		}
		if got := get(viewer); len(got) != 1 || got[0]["url_remote"] != nil {
			t.Fatalf("LEAK: a viewer of the source: %v", got)
		}
		if got := get(outsider); len(got) != 0 {
			t.Fatalf("LEAK: an outsider: %v", got)
		}
		if r := e.Do(t, req{Path: "/sources/?public=false", Key: viewer.Key}); !strings.Contains(string(r.Body), "Remote WFS") || strings.Contains(string(r.Body), "secret.example.com") {
			t.Fatalf("/sources/ via the engine: %s", r.Body)
		}
	})
}

// The catalogue fields written through the API (tags, categories,
// license on a set's draft, then published) are what /data/ filters and
// counts: tag, category (hierarchical, with its name) and license.type.
func TestDataFiltersOnCatalogueFieldsWrittenThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		lic := doJSON[struct {
			ID int `json:"id"`
		}](t, e, req{Path: "/licenses/cc-by/nz/"}, http.StatusOK)
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Harbour transport", "tags": []string{"ferries", "transport"},
			"categories": []string{"transportation/marine"}, "license": lic.ID}})
		expectStatus(t, r, http.StatusCreated)
		var set struct {
			LatestVersion string `json:"latest_version"`
		}
		r.JSON(t, &set)
		pr := e.Do(t, req{Method: "POST", Path: set.LatestVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, pr, http.StatusCreated)
		waitPublish(t, e, pub.Key, pr.Header.Get("Location"))
		indexCatalog(t, e, nil)
		for _, q := range []string{"tag=ferries", "category=transportation", "category=transportation/marine", "license.type=cc-by", "q=ferries"} {
			if got := titles(t, e, "", "/data/?"+q); !slices.Equal(got, []string{"Harbour transport"}) {
				t.Errorf("?%s: %v", q, got)
			}
		}
		if got := titles(t, e, "", "/data/?license.type=-cc-by"); len(got) != 0 {
			t.Errorf("?license.type=-cc-by: %v", got)
		}
		var fc struct {
			Category []struct {
				Key   string `json:"key"`
				Name  string `json:"name"`
				Total int    `json:"total"`
			} `json:"category"`
			License []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"license"`
		}
		r = e.Do(t, req{Path: "/data/?facets=true"})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &fc)
		if len(fc.Category) != 2 || fc.Category[1].Name != "Marine" || len(fc.License) != 1 || fc.License[0].Key != "cc-by" {
			t.Fatalf("facets: %s", r.Body)
		}
	})
}

// Spec, list conventions: "geotag entries carry has_children and geom
// (null unless geotag.geometry=true)". The geometry comes from an item the
// caller may see.
func TestDataGeotagFacetGeometry(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		it := createItem(t, e, owner, map[string]any{"title": "Harbour charts", "link_url": "https://example.com/charts"})
		r := e.Do(t, req{Method: "POST", Path: it.URL + "geotags/", Key: owner.Key, Body: map[string]any{
			"name": "Wellington harbour", "geometry": map[string]any{"type": "Point", "coordinates": []float64{174.8, -41.3}}}})
		expectStatus(t, r, http.StatusCreated)
		publishItem(t, e, owner, it.ThisVersion)
		type geotagFacet struct {
			Key         string          `json:"key"`
			Total       int             `json:"total"`
			HasChildren *bool           `json:"has_children"`
			Geom        json.RawMessage `json:"geom"`
		}
		facet := func(query string) geotagFacet {
			t.Helper()
			r := e.Do(t, req{Path: "/data/?facets=true" + query, Key: owner.Key})
			expectStatus(t, r, http.StatusOK)
			var f struct {
				Geotag []geotagFacet `json:"geotag"`
			}
			r.JSON(t, &f)
			if len(f.Geotag) != 1 || f.Geotag[0].Key != "Wellington harbour" || f.Geotag[0].Total != 1 ||
				f.Geotag[0].HasChildren == nil || *f.Geotag[0].HasChildren {
				t.Fatalf("geotag facet %s", r.Body)
			}
			return f.Geotag[0]
		}
		if g := facet(""); string(g.Geom) != "null" {
			t.Fatalf("geom without geotag.geometry=true: %s, want null", g.Geom)
		}
		if g := facet("&geotag.geometry=True"); !strings.Contains(string(g.Geom), `"Point"`) || !strings.Contains(string(g.Geom), "174.8") {
			t.Fatalf("geom with geotag.geometry=True: %s, want the point", g.Geom)
		}
	})
}

// Spec: search-backed lists include /sources/. Its own type filter
// combines with the catalogue's filters (AND), through the engine.
func TestSourcesTypeCombinesWithCatalogueFilters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		ctx := t.Context()
		c := e.Store.Client
		ids := map[string]int{}
		for _, s := range []struct{ typ, title string }{{"wfs", "Roads WFS"}, {"url", "Roads archive"}, {"wfs", "Rivers WFS"}} {
			src := c.Source.Create().SetType(source.Type(s.typ)).SetTitle(s.title).SetURLRemote("https://127.0.0.1:9/" + s.typ).
				SetUserID(owner.ID).SaveX(ctx)
			if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, owner.ID); err != nil {
				t.Fatal(err)
			}
			ids[s.title] = src.ID
		}
		indexCatalog(t, e, nil)
		titles := func(query string) []string {
			t.Helper()
			r := e.Do(t, req{Path: "/sources/?" + query, Key: owner.Key})
			expectStatus(t, r, http.StatusOK)
			var out []struct {
				Title string `json:"title"`
			}
			r.JSON(t, &out)
			var ts []string
			for _, s := range out {
				ts = append(ts, s.Title)
			}
			slices.Sort(ts)
			return ts
		}
		if got := titles("type=wfs&sort=name"); !slices.Equal(got, []string{"Rivers WFS", "Roads WFS"}) {
			t.Fatalf("type=wfs&sort=name: %v", got)
		}
		if got := titles("type=wfs&q=roads&public=false"); !slices.Equal(got, []string{"Roads WFS"}) {
			t.Fatalf("type=wfs&q=roads&public=false: %v", got)
		}
		if got := titles("type=url&type=wfs&sort=-name"); len(got) != 3 {
			t.Fatalf("type=url&type=wfs: %v", got)
		}
		r := e.Do(t, req{Path: "/sources/?type=ftp&sort=name", Key: owner.Key})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "type") {
			t.Fatalf("bad type: %s", r.Body)
		}
	})
}
