package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type groupSummary struct {
	ID      int     `json:"id"`
	URL     string  `json:"url"`
	Name    string  `json:"name"`
	Country *string `json:"country"`
}

func names(gs []groupSummary) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return strings.Join(out, ",")
}

func listGroups(t *testing.T, e *env, key, query string) ([]groupSummary, *servertest.Response) {
	t.Helper()
	r := e.Do(t, req{Path: "/groups/" + query, Key: key})
	expectStatus(t, r, http.StatusOK)
	var gs []groupSummary
	r.JSON(t, &gs)
	return gs, r
}

func TestListGroups(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		member := e.NewUser(t, "Member")
		// The seeded groups: "Site" (default, normal) and "Members" (members).
		water := createGroup(t, e, admin, map[string]any{"name": "Water Quality", "country": "NZ", "access_requests_enabled": true})
		createGroup(t, e, admin, map[string]any{"name": "Water and Land Survey", "country": "AU"})
		createGroup(t, e, admin, map[string]any{"name": "Land Survey", "country": "AU"})
		addMember(t, e, admin, water.ID, member.ID, "member")
		addMember(t, e, admin, water.ID, admin.ID, "admin")

		gs, r := listGroups(t, e, member.Key, "")
		if names(gs) != "Land Survey,Members,Site,Water and Land Survey,Water Quality" {
			t.Fatalf("default order = %s", names(gs))
		}
		if r.Header.Get("X-Resource-Range") != "0-5/5" || r.Header.Get("X-Paginate-By") != "100" {
			t.Fatalf("paging headers %v", r.Header)
		}

		// q: "matches any term; more matched terms rank higher; title
		// weighted most; with q and no sort, order is by relevance".
		gs, _ = listGroups(t, e, member.Key, "?q=water+survey")
		if names(gs) != "Water and Land Survey,Land Survey,Water Quality" {
			t.Fatalf("relevance order = %s", names(gs))
		}
		gs, _ = listGroups(t, e, member.Key, "?q=water+survey&sort=-name")
		if names(gs) != "Water Quality,Water and Land Survey,Land Survey" {
			t.Fatalf("q with sort=-name = %s", names(gs))
		}
		gs, _ = listGroups(t, e, member.Key, "?access_requests_enabled=True")
		if names(gs) != "Water Quality" {
			t.Fatalf("access_requests_enabled=True = %s", names(gs))
		}
		gs, _ = listGroups(t, e, member.Key, "?type=members")
		if names(gs) != "Members" {
			t.Fatalf("type=members = %s", names(gs))
		}
		// Repeated values of one filter are OR-ed.
		gs, _ = listGroups(t, e, member.Key, "?type=members&type=normal")
		if len(gs) != 5 {
			t.Fatalf("type=members&type=normal = %s", names(gs))
		}
		// Different filters are AND-ed.
		gs, _ = listGroups(t, e, member.Key, "?type=normal&q=land")
		if names(gs) != "Land Survey,Water and Land Survey" {
			t.Fatalf("type and q = %s", names(gs))
		}
		// Popularity: member count, most first. Every user is in Members.
		gs, _ = listGroups(t, e, member.Key, "?sort=popularity")
		if gs[0].Name != "Members" || gs[1].Name != "Water Quality" {
			t.Fatalf("popularity = %s", names(gs))
		}
		gs, _ = listGroups(t, e, member.Key, "?sort=-created_at")
		if gs[0].Name != "Land Survey" {
			t.Fatalf("-created_at = %s", names(gs))
		}
		// Unknown parameters are ignored.
		gs, _ = listGroups(t, e, member.Key, "?colour=blue")
		if len(gs) != 5 {
			t.Fatal("an unknown parameter changed the result")
		}

		// Facets count the whole result regardless of paging.
		r = e.Do(t, req{Path: "/groups/?facets=true&page_size=1", Key: member.Key})
		expectStatus(t, r, http.StatusOK)
		var facets map[string][]struct {
			Key   string `json:"key"`
			Total int    `json:"total"`
		}
		r.JSON(t, &facets)
		if fmt.Sprint(facets["type"]) != "[{normal 4} {members 1}]" || fmt.Sprint(facets["country"]) != "[{AU 2} {NZ 1}]" {
			t.Fatalf("facets = %v", facets)
		}

		for name, q := range map[string]string{
			"BadBool":      "?access_requests_enabled=perhaps",
			"BadType":      "?type=secret",
			"BadSort":      "?sort=size",
			"BadPage":      "?page=zero",
			"PageZero":     "?page=0",
			"BadFacets":    "?facets=maybe",
			"PageSizeOver": "?page_size=100001",
		} {
			t.Run(name, func(t *testing.T) {
				expectStatus(t, e.Do(t, req{Path: "/groups/" + q, Key: member.Key}), http.StatusBadRequest)
			})
		}
		// The group list's page_size cap is 100000, not 200.
		expectStatus(t, e.Do(t, req{Path: "/groups/?page_size=100000", Key: member.Key}), http.StatusOK)
		authMatrix(t, e, req{Path: "/groups/"}, "users:read", nil)
	})
}

// Conventions for list endpoints: paging parameters, X-Paginate-By,
// X-Resource-Range (start-end/total) and the Link relations.
func TestGroupListPaging(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		for i := 0; i < 26; i++ { // 28 groups with the two seeded ones
			createGroup(t, e, admin, map[string]any{"name": fmt.Sprintf("Group %02d", i), "country": "NZ"})
		}
		var seen []string
		next := e.API + "/groups/?page_size=10&sort=name"
		ranges := []string{}
		for next != "" {
			r := e.Do(t, req{Path: next, Key: admin.Key})
			expectStatus(t, r, http.StatusOK)
			var gs []groupSummary
			r.JSON(t, &gs)
			for _, g := range gs {
				seen = append(seen, g.Name)
			}
			ranges = append(ranges, r.Header.Get("X-Resource-Range"))
			if r.Header.Get("X-Paginate-By") != "10" {
				t.Fatalf("X-Paginate-By = %q", r.Header.Get("X-Paginate-By"))
			}
			links := parseLinks(r.Header.Get("Link"))
			for _, rel := range []string{"page-first", "page-last", "sort-name", "sort-name-desc", "sort-most-popular", "sort-recently-added", "sort-recently-updated"} {
				if links[rel] == "" {
					t.Fatalf("Link lacks %s: %s", rel, r.Header.Get("Link"))
				}
			}
			if !strings.Contains(links["page-last"], "page=3") || !strings.Contains(links["sort-name-desc"], "sort=-name") {
				t.Fatalf("Link = %s", r.Header.Get("Link"))
			}
			next = links["page-next"]
		}
		// Captured sequence for 28 items / 10 per page (api-shapes §1.5).
		if strings.Join(ranges, " ") != "0-10/28 10-20/28 20-28/28" {
			t.Fatalf("ranges = %v", ranges)
		}
		if len(seen) != 28 || seen[0] != "Group 00" || seen[27] != "Site" {
			t.Fatalf("walked %d groups: %v", len(seen), seen)
		}
		// An empty result reports 0-0/0; a page past the end is empty.
		r := e.Do(t, req{Path: "/groups/?q=nothingmatches", Key: admin.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-0/0" || string(r.Body) != "[]\n" {
			t.Fatalf("empty: %q %q", r.Header.Get("X-Resource-Range"), r.Body)
		}
		r = e.Do(t, req{Path: "/groups/?page=9&page_size=10", Key: admin.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "28-28/28" {
			t.Fatalf("past the end: %q", r.Header.Get("X-Resource-Range"))
		}
		// Both base paths serve the same API; URLs follow the version asked.
		r = e.Do(t, req{Path: e.HTTP.URL + "/services/api/v1/groups/?page_size=1", Key: admin.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), "/services/api/v1/groups/") {
			t.Fatalf("v1 body: %s", r.Body)
		}
	})
}

// parseLinks reads an RFC 5988 Link header into rel → URL.
func parseLinks(h string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(h, ", <") {
		part = strings.TrimPrefix(part, "<")
		url, params, ok := strings.Cut(part, ">; ")
		if !ok {
			continue
		}
		rel := strings.Trim(strings.TrimPrefix(params, "rel="), `"`)
		out[rel] = url
	}
	return out
}
