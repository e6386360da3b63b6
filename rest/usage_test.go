package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/server/servertest"
)

// usageReportJSON is a usage report as REST renders it.
type usageReportJSON struct {
	From  string         `json:"from"`
	To    string         `json:"to"`
	Total map[string]int `json:"total"`
	Days  []struct {
		Day       string `json:"day"`
		Service   string `json:"service"`
		Requests  int    `json:"requests"`
		Bytes     int    `json:"bytes"`
		Features  int    `json:"features"`
		Tiles     int    `json:"tiles"`
		Exports   int    `json:"exports"`
		Downloads int    `json:"downloads"`
	} `json:"days"`
}

// usageByService sums a report's days per service.
func usageByService(u usageReportJSON) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, d := range u.Days {
		s := out[d.Service]
		if s == nil {
			s = map[string]int{}
			out[d.Service] = s
		}
		s["requests"] += d.Requests
		s["bytes"] += d.Bytes
		s["features"] += d.Features
		s["tiles"] += d.Tiles
		s["exports"] += d.Exports
		s["downloads"] += d.Downloads
	}
	return out
}

// usageGet fetches a URL of the data services with a key, wanting 200.
func usageGet(t *testing.T, e *env, key, url string) *servertest.Response {
	t.Helper()
	r := e.Do(t, req{Path: url, Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, r.Status, r.Body)
	}
	return r
}

// Requests to a layer's OGC API - Features, WFS, tiles, point queries and
// data table, an export and its download show in the layer's figures per service,
// and in the token's, once flushed; editors and site administrators read
// them, viewers get 403, unknown datasets 404, bad periods 400; the
// layer's page shows the table to its owner only.
func TestUsageFiguresOfALayer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		id := d.pointIDs[0]
		o := e.HTTP.URL
		plain := len(usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/ogc/features/collections/layer-%d/items?limit=7", o, id)).Body)
		plain += len(usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/wfs/?service=WFS&version=2.0.0&request=GetFeature&typeNames=layer-%d&count=5", o, id)).Body)
		tiles := 0
		for _, p := range []string{"0/0/0", "1/1/1"} {
			usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/tiles/v1/layer=%d/%s.pbf", o, id, p))
			tiles++
		}
		usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/query/v1/vector.json?layer=%d&x=174.70&y=-41.36&radius=100&max_results=1", o, id))
		// The data table: a page of three rows, and the CSV of them all
		// (a download; its rows are the lines after the header).
		usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/data-table/v1/layer=%d/rows?limit=3", o, id))
		csv := usageGet(t, e, d.owner.Key, fmt.Sprintf("%s/services/data-table/v1/layer=%d/rows.csv", o, id))
		csvRows := strings.Count(string(csv.Body), "\n") - 1
		body := map[string]any{"name": "Usage export", "crs": "EPSG:2193", "items": []map[string]any{{"item": d.points}},
			"formats": map[string]any{"vector": "application/x-ogc-gpkg"}}
		x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, body))
		if x.State != "complete" || x.DownloadURL == nil {
			t.Fatalf("export %+v", x)
		}
		_, zip := download(t, e, d.owner.Key, x)
		// Outside the counting: the figures themselves, a refused tile.
		if r := e.Do(t, req{Path: fmt.Sprintf("%s/services/tiles/v1/layer=%d/0/0/0.pbf", o, 999999), Key: d.owner.Key}); r.Status != http.StatusNotFound {
			t.Fatalf("tile of no layer: %d", r.Status)
		}
		if _, err := e.Server.Resolver.Usage.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}

		url := fmt.Sprintf("/layers/%d/usage/", id)
		u := doJSON[usageReportJSON](t, e, req{Path: url, Key: d.owner.Key}, http.StatusOK)
		got := usageByService(u)
		want := map[string]map[string]int{
			"wfs":                  {"requests": 2, "features": 12},
			"tiles":                {"requests": 2, "tiles": tiles},
			"spatial-query-vector": {"requests": 1, "features": 1},
			"data-table":           {"requests": 2, "features": 3 + csvRows, "downloads": 1},
			"export":               {"requests": 2, "exports": 1, "downloads": 1, "bytes": len(zip)},
		}
		for svc, w := range want {
			for k, n := range w {
				if got[svc][k] != n {
					t.Errorf("%s %s = %d, want %d (figures %v)", svc, k, got[svc][k], n, got)
				}
			}
		}
		if len(got) != len(want) {
			t.Errorf("services %v, want %v", got, want)
		}
		// Bytes are what the handlers wrote: tiles and point queries may be
		// gzipped, which the client undoes, so only their presence is
		// checked; the other bodies are counted exactly.
		for _, svc := range []string{"tiles", "spatial-query-vector"} {
			if got[svc]["bytes"] <= 0 {
				t.Errorf("%s bytes = %d", svc, got[svc]["bytes"])
			}
		}
		if got["wfs"]["bytes"] != plain {
			t.Errorf("wfs bytes = %d, want %d", got["wfs"]["bytes"], plain)
		}
		if u.Total["requests"] != 9 {
			t.Errorf("total %v, want 9 requests", u.Total)
		}

		// The owner's token saw the same.
		tok := e.Store.Client.Token.Query().Where(token.UserID(d.owner.ID)).FirstX(t.Context())
		tu := doJSON[usageReportJSON](t, e, req{Path: fmt.Sprintf("/tokens/%d/usage/", tok.ID), Key: d.owner.Key}, http.StatusOK)
		if tu.Total["requests"] != 9 || tu.Total["tiles"] != tiles || tu.Total["downloads"] != 2 {
			t.Errorf("token figures %v", tu.Total)
		}

		// Who may read them.
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		doJSON[usageReportJSON](t, e, req{Path: url, Key: admin.Key}, http.StatusOK)
		viewer := e.NewUser(t, "Viewer")
		expectStatus(t, e.Do(t, req{Path: url, Key: viewer.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: url}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/tokens/%d/usage/", tok.ID), Key: viewer.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/layers/999999/usage/", Key: d.owner.Key}), http.StatusNotFound)
		// A layer is not a table.
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/tables/%d/usage/", id), Key: d.owner.Key}), http.StatusNotFound)
		for _, bad := range []string{"?from=2026-13-01", "?to=yesterday", "?from=2026-05-02&to=2026-05-01", "?from=2020-01-01&to=2026-01-01"} {
			r := e.Do(t, req{Path: url + bad, Key: d.owner.Key})
			if r.Status != http.StatusBadRequest || r.Detail(t) == "" {
				t.Errorf("%s: %d %s, want 400 with a detail", bad, r.Status, r.Body)
			}
		}

		// The page: a usage table for the owner, none for a viewer.
		page := fmt.Sprintf("%s/layers/%d/", o, id)
		if r := usageGet(t, e, d.owner.Key, page); !strings.Contains(string(r.Body), `id="usage"`) || !strings.Contains(string(r.Body), "spatial-query-vector") {
			t.Errorf("the owner's page has no usage table")
		}
		if r := usageGet(t, e, viewer.Key, page); strings.Contains(string(r.Body), `id="usage"`) {
			t.Errorf("a viewer's page shows the usage table")
		}

		// GraphQL: the layer's usage field.
		g := e.GraphQL(t, d.owner.Key, `query($id: ID!) { layer(id: $id) { usage { total { requests tiles } days { service } } } }`,
			map[string]any{"id": id})
		if len(g.Errors) != 0 || !strings.Contains(string(g.Data), `"tiles":2`) {
			t.Errorf("graphql %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, viewer.Key, `query($id: ID!) { layer(id: $id) { id usage { total { requests } } } }`, map[string]any{"id": id})
		if len(g.Errors) != 1 || g.Errors[0].Code() != "FORBIDDEN" || !strings.Contains(string(g.Data), `"usage":null`) {
			t.Errorf("graphql as a viewer %s %v", g.Data, g.Errors)
		}
	})
}
