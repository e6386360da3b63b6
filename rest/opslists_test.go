package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// GET /sources/scans/: the scans of every source the caller may scan,
// newest first, paged, filtered by status, sorted.
func TestAllScans(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		files := map[string][]byte{"data.zip": zipOf(t, map[string]string{"roads.geojson": fixtureFiles["roads.geojson"]})}
		var mine []int
		for range 2 {
			src := upload(t, e, pub.Key, files)
			waitScan(t, e, pub.Key, src.ID)
			mine = append(mine, src.ID)
		}
		theirs := upload(t, e, other.Key, files)
		waitScan(t, e, other.Key, theirs.ID)

		authMatrix(t, e, req{Path: "/sources/scans/"}, "sources:read", nil)
		r := e.Do(t, req{Path: "/sources/scans/", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var scans []scanRecord
		r.JSON(t, &scans)
		if len(scans) != 2 || scans[0].ID < scans[1].ID || r.Header.Get("X-Resource-Range") != "0-2/2" {
			t.Fatalf("scans %s (%s)", r.Body, r.Header.Get("X-Resource-Range"))
		}
		for i, sc := range scans {
			if want := fmt.Sprintf("/sources/%d/scans/%d/", mine[1-i], sc.ID); !strings.HasSuffix(sc.URL, want) || sc.Status != "completed" {
				t.Fatalf("scan %d: %+v, want %s", i, sc, want)
			}
		}
		// Paged: page-next while there is more.
		r = e.Do(t, req{Path: "/sources/scans/?page_size=1", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(r.Header.Get("Link"), `rel="page-next"`) {
			t.Fatalf("Link %q", r.Header.Get("Link"))
		}
		// Filters and sorts.
		for q, want := range map[string]int{"status=completed": 2, "status=failed": 0, "status=failed&status=completed": 2,
			"sort=id": 2, "sort=-started_at": 2, "sort=completed_at": 2} {
			r.JSON(t, &scans)
			got := doJSON[[]scanRecord](t, e, req{Path: "/sources/scans/?" + q, Key: pub.Key}, http.StatusOK)
			if len(got) != want {
				t.Fatalf("%s: %d scans", q, len(got))
			}
			if q == "sort=id" && got[0].ID > got[1].ID {
				t.Fatalf("sort=id: %+v", got)
			}
		}
		expectField(t, e.Do(t, req{Path: "/sources/scans/?status=done", Key: pub.Key}), "status", "valid choice")
		expectField(t, e.Do(t, req{Path: "/sources/scans/?sort=title", Key: pub.Key}), "sort", "valid choice")
		// Another user sees their own only; a site administrator all.
		if got := doJSON[[]scanRecord](t, e, req{Path: "/sources/scans/", Key: other.Key}, http.StatusOK); len(got) != 1 {
			t.Fatalf("other sees %+v", got)
		}
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		if got := doJSON[[]scanRecord](t, e, req{Path: "/sources/scans/", Key: admin.Key}, http.StatusOK); len(got) != 3 {
			t.Fatalf("admin sees %+v", got)
		}
		// GraphQL.
		g := e.GraphQL(t, pub.Key, `{ scans(statuses: [completed], sort: "-id") { items { id status } pageInfo { total } } }`, nil)
		var gd struct {
			Scans struct{ PageInfo struct{ Total int } }
		}
		json.Unmarshal(g.Data, &gd)
		if len(g.Errors) > 0 || gd.Scans.PageInfo.Total != 2 {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
	})
}

// GET /publish/: the publishes the caller started (all for site
// administrators), filtered by state and reference.
func TestPublishList(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		publishedFrom(t, e, pub.Key, map[string]string{"roads.geojson": fixtureFiles["roads.geojson"]}, "roads.geojson", "Roads")

		authMatrix(t, e, req{Path: "/publish/"}, "layers:read", nil)
		r := e.Do(t, req{Path: "/publish/", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var groups []map[string]any
		r.JSON(t, &groups)
		if len(groups) != 1 || groups[0]["state"] != "completed" || r.Header.Get("X-Resource-Range") != "0-1/1" {
			t.Fatalf("publish list %s", r.Body)
		}
		items, _ := groups[0]["items"].([]any)
		if len(items) != 1 || !strings.Contains(items[0].(string), "/layers/") || !strings.HasSuffix(groups[0]["url"].(string), "/publish/"+fmt.Sprint(groups[0]["id"])+"/") {
			t.Fatalf("publish group %+v", groups[0])
		}
		for q, want := range map[string]int{"state=completed": 1, "state=publishing": 0, "state=publishing&state=completed": 1,
			"reference=": 1, "reference=nothing": 0} {
			if got := doJSON[[]map[string]any](t, e, req{Path: "/publish/?" + q, Key: pub.Key}, http.StatusOK); len(got) != want {
				t.Fatalf("%s: %d groups", q, len(got))
			}
		}
		expectField(t, e.Do(t, req{Path: "/publish/?state=done", Key: pub.Key}), "state", "valid choice")
		if got := doJSON[[]map[string]any](t, e, req{Path: "/publish/", Key: other.Key}, http.StatusOK); len(got) != 0 {
			t.Fatalf("other sees %+v", got)
		}
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		if got := doJSON[[]map[string]any](t, e, req{Path: "/publish/", Key: admin.Key}, http.StatusOK); len(got) != 1 {
			t.Fatalf("admin sees %+v", got)
		}
		g := e.GraphQL(t, pub.Key, `{ publishGroups(states: [completed]) { items { id state } pageInfo { total } } }`, nil)
		var gd struct {
			PublishGroups struct{ PageInfo struct{ Total int } }
		}
		json.Unmarshal(g.Data, &gd)
		if len(g.Errors) > 0 || gd.PublishGroups.PageInfo.Total != 1 {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
	})
}
