package rest_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/search"
)

// Spec, Conventions for list endpoints: "Search-backed lists (/data/,
// /layers/, /tables/, /items/, /sources/, ...) share query parameters
// documented on /data/." Each list keeps its own type, shape and scope:
// /layers/ lists layers and tables (api-shapes §2: the Python client's
// tables accessor uses /layers/; kind, tag, public, group, updated_at.*,
// sort and facets apply), /tables/ tables only, and so on.
func TestDatasetListsTakeTheQueryLanguage(t *testing.T) {
	tweak := docTweak{
		"Public roads":  func(d *search.Doc) { d.Tags = []string{"transport"}; d.UpdatedAt = day("2024-01-01") },
		"Aerial photos": func(d *search.Doc) { d.Tags = []string{"imagery"}; d.UpdatedAt = day("2021-01-01") },
		"Census table":  func(d *search.Doc) { d.Tags = []string{"transport"}; d.HasPK = true },
		"Transport set": func(d *search.Doc) { d.Tags = []string{"transport"} },
	}
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, tweak)
		names := func(key, path, field string) []string {
			t.Helper()
			r := e.Do(t, req{Path: path, Key: key})
			expectStatus(t, r, http.StatusOK)
			if r.Header.Get("X-Resource-Range") == "" || r.Header.Get("X-Paginate-By") == "" {
				t.Fatalf("%s: list headers missing", path)
			}
			var items []map[string]any
			r.JSON(t, &items)
			var out []string
			for _, it := range items {
				s, _ := it[field].(string)
				out = append(out, s)
			}
			sort.Strings(out)
			return out
		}
		cases := []struct {
			path, field string
			want        []string
		}{
			{"/layers/?tag=transport", "name", []string{"Census table", "Public roads"}},
			{"/layers/?tag=transport&kind=vector", "name", []string{"Public roads"}},
			{"/layers/?kind=raster", "name", []string{"Aerial photos"}},
			{"/layers/?kind=set", "name", nil},
			{"/layers/?public=true", "name", []string{"Aerial photos", "Census table", "Public roads"}},
			{"/layers/?updated_at.after=2023-01-01T00:00:00", "name", []string{"Census table", "Public roads"}},
			{"/layers/?user=" + itoa(f.owner.ID) + "&sort=-name&kind=layer", "name", []string{"Aerial photos", "Public roads"}},
			{"/tables/?tag=transport", "name", []string{"Census table"}},
			{"/tables/?has_pk=True", "name", []string{"Census table"}},
			{"/sets/?tag=transport", "title", []string{"Transport set"}},
			{"/documents/?public=true", "name", []string{"Annual report"}},
			{"/items/?public=true", "title", []string{"Harbour charts"}},
		}
		for _, c := range cases {
			if got := names("", c.path, c.field); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.path, got, c.want)
			}
		}
		// The owner sees the private layer; nobody else does.
		if got := names(f.owner.Key, "/layers/?public=false", "name"); !slices.Equal(got, []string{"Secret parcels"}) {
			t.Errorf("owner /layers/?public=false: %v", got)
		}
		if got := names(f.other.Key, "/layers/?public=false", "name"); len(got) != 0 {
			t.Errorf("LEAK: /layers/?public=false for another user: %v", got)
		}
		// Sort order and shapes are the lists' own.
		r := e.Do(t, req{Path: "/layers/?sort=name&kind=layer"})
		expectStatus(t, r, http.StatusOK)
		var ls []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
			Type string `json:"type"`
		}
		r.JSON(t, &ls)
		if len(ls) != 2 || ls[0].Name != "Aerial photos" || ls[1].Name != "Public roads" || ls[0].Type != "layer" {
			t.Fatalf("/layers/?sort=name: %s", r.Body)
		}
		// Facets over the list's own types only (vector, raster, table).
		r = e.Do(t, req{Path: "/layers/?facets=true"})
		expectStatus(t, r, http.StatusOK)
		var fc struct {
			Kind []struct {
				Key   string `json:"key"`
				Total int    `json:"total"`
			} `json:"kind"`
		}
		r.JSON(t, &fc)
		if len(fc.Kind) != 3 {
			t.Fatalf("/layers/ facets: %s", r.Body)
		}
		// The lists' own scopes still apply.
		expectDetail(t, e.Do(t, req{Path: "/layers/?tag=transport", Key: e.Token(t, f.owner.User, "catalog")}), http.StatusUnauthorized, "layers:read")
		expectDetail(t, e.Do(t, req{Path: "/sets/?tag=transport", Key: e.Token(t, f.owner.User, "layers:read")}), http.StatusUnauthorized, "sets:read")
		// Bad values: 400 naming the parameter.
		for _, p := range []string{"/layers/?kind=ship", "/tables/?public=perhaps", "/sets/?sort=random", "/documents/?created_at.after=x", "/items/?facets=x"} {
			expectStatus(t, e.Do(t, req{Path: p}), http.StatusBadRequest)
		}
	})
}

// The group list is no search doc type: the catalogue's date filters
// apply over the store (created_at.*, updated_at.*), bad values are 400s
// naming the parameter.
func TestGroupListDateFilters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Viewer")
		gs := e.SeedGroups(t, "Dated", 3, u.User, "member")
		ctx := t.Context()
		// created_at is immutable through Ent: set it in SQL.
		stmt := "UPDATE groups SET created_at = ?, updated_at = ? WHERE id = ?"
		if e.Store.Dialect == "postgres" {
			stmt = "UPDATE groups SET created_at = $1, updated_at = $2 WHERE id = $3"
		}
		for i, d := range [][2]string{{"2020-01-01", "2020-02-01"}, {"2022-01-01", "2022-02-01"}} {
			if _, err := e.Store.DB.ExecContext(ctx, stmt, day(d[0]), day(d[1]), gs[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		names := func(query string) []string {
			r := e.Do(t, req{Path: "/groups/?q=Dated&" + query, Key: u.Key})
			expectStatus(t, r, http.StatusOK)
			var out []struct{ Name string }
			r.JSON(t, &out)
			var ns []string
			for _, g := range out {
				ns = append(ns, g.Name)
			}
			sort.Strings(ns)
			return ns
		}
		if got := names("created_at.before=2021-01-01T00:00:00"); !slices.Equal(got, []string{gs[0].Name}) {
			t.Errorf("created_at.before: %v", got)
		}
		if got := names("created_at.after=2021-01-01T00:00:00&updated_at.before=2023-01-01"); !slices.Equal(got, []string{gs[1].Name}) {
			t.Errorf("created_at.after and updated_at.before: %v", got)
		}
		r := e.Do(t, req{Path: "/groups/?updated_at.after=soon", Key: u.Key})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "updated_at.after") {
			t.Errorf("the 400 does not name the parameter: %s", r.Body)
		}
	})
}
