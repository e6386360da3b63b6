package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server/servertest"
)

// diffFeatureJSON is a feature of a diff's GeoJSON.
type diffFeatureJSON struct {
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
	Geometry   struct {
		Coordinates []float64 `json:"coordinates"`
	} `json:"geometry"`
}

type diffPage struct {
	Type     string            `json:"type"`
	Features []diffFeatureJSON `json:"features"`
	Diff     struct {
		From      *struct{ ID int } `json:"from"`
		To        struct{ ID int }  `json:"to"`
		MatchedBy []string          `json:"matched_by"`
		Schema    map[string]any    `json:"schema"`
	} `json:"diff"`
	Links []struct{ Rel, Href string } `json:"links"`
}

// twoVersions publishes a layer keyed by code, then a second version
// from features2; it returns the layer's URL and both versions' ids.
func twoVersions(t *testing.T, e *env, pub *user, features1, features2 string) (string, int, int) {
	t.Helper()
	draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": features1}, "parcels.geojson", "Parcels")
	doJSON[pkRecord](t, e, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody("code")}, http.StatusOK)
	publishLayerDraft(t, e, pub, draft)
	layerURL := strings.Split(draft, "versions/")[0]
	d2 := importedNextDraft(t, e, pub.Key, layerURL, map[string]string{"parcels.geojson": features2}, "parcels.geojson")
	publishLayerDraft(t, e, pub, d2)
	return layerURL, versionNumber(t, draft), versionNumber(t, d2)
}

func versionNumber(t *testing.T, versionURL string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(strings.TrimSuffix(versionURL[strings.LastIndex(strings.TrimSuffix(versionURL, "/"), "/")+1:], "/"), "%d", &n); err != nil {
		t.Fatalf("version URL %s: %v", versionURL, err)
	}
	return n
}

func parcelFeature(code int, name string, x float64) string {
	return fmt.Sprintf(`{"type":"Feature","properties":{"code":%d,"name":%q},"geometry":{"type":"Point","coordinates":[%g,-41.2]}}`, code, name, x)
}

func parcelCollection(fs ...string) string {
	return `{"type":"FeatureCollection","features":[` + strings.Join(fs, ",") + `]}`
}

// Issue 26.2 through REST: the diff between two published versions of a
// layer whose key was set on its draft, as Kart's GeoJSON, as JSON lines
// and as counts, paged by cursor; bad parameters are 400s naming them.
func TestLayerDiff(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		// Version 2: a moved, b renamed, c deleted, d added.
		layerURL, v1, v2 := twoVersions(t, e, pub,
			parcelCollection(parcelFeature(10, "a", 174.70), parcelFeature(20, "b", 174.71), parcelFeature(30, "c", 174.72)),
			parcelCollection(parcelFeature(10, "a", 174.80), parcelFeature(20, "b2", 174.71), parcelFeature(40, "d", 174.73)))
		diffURL := layerURL + "diff/"

		r := e.Do(t, req{Path: diffURL, Key: pub.Key})
		expectAnswer(t, r, "application/geo+json")
		var page diffPage
		r.JSON(t, &page)
		var ids []string
		for _, f := range page.Features {
			ids = append(ids, f.ID)
		}
		if want := []string{"U-::10", "U+::10", "U-::20", "U+::20", "D::30", "I::40"}; !slices.Equal(ids, want) {
			t.Fatalf("features %v, want %v", ids, want)
		}
		if page.Diff.From == nil || page.Diff.From.ID != v1 || page.Diff.To.ID != v2 || !slices.Equal(page.Diff.MatchedBy, []string{"code"}) {
			t.Fatalf("diff %+v, want %d→%d by code", page.Diff, v1, v2)
		}
		if x := page.Features[1].Geometry.Coordinates[0]; x != 174.80 || page.Features[0].Geometry.Coordinates[0] != 174.70 {
			t.Fatalf("moved feature: before %v, after %v", page.Features[0].Geometry, page.Features[1].Geometry)
		}
		if page.Features[2].Properties["name"] != "b" || page.Features[3].Properties["name"] != "b2" {
			t.Fatalf("renamed feature %+v %+v", page.Features[2], page.Features[3])
		}

		// The same versions named, and backwards.
		var back diffPage
		getDiff(t, e, req{Path: fmt.Sprintf("%s?from=%d&to=%d", diffURL, v2, v1), Key: pub.Key}, &back)
		if len(back.Features) != 6 || back.Features[4].ID != "I::30" || back.Features[5].ID != "D::40" {
			t.Fatalf("backwards %+v", back.Features)
		}

		// Counts.
		var counts struct {
			Counts map[string]int `json:"counts"`
		}
		doJSONInto(t, e, req{Path: diffURL + "?format=counts", Key: pub.Key}, &counts)
		if fmt.Sprint(counts.Counts) != "map[deletes:1 inserts:1 updates:2]" {
			t.Fatalf("counts %v", counts.Counts)
		}

		// JSON lines, by parameter and by Accept.
		for _, rq := range []req{{Path: diffURL + "?format=jsonl", Key: pub.Key},
			{Path: diffURL, Key: pub.Key, Header: map[string]string{"Accept": "application/x-ndjson"}}} {
			r := e.Do(t, rq)
			expectAnswer(t, r, "application/x-ndjson")
			var lines []map[string]any
			sc := bufio.NewScanner(bytes.NewReader(r.Body))
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				lines = append(lines, m)
			}
			var types []string
			for _, l := range lines {
				types = append(types, fmt.Sprint(l["type"]))
			}
			if fmt.Sprint(types) != "[diff feature feature feature feature counts]" {
				t.Fatalf("line types %v", types)
			}
			upd := lines[2]
			before, _ := upd["-"].(map[string]any)
			after, _ := upd["+"].(map[string]any)
			if upd["op"] != "update" || fmt.Sprint(upd["key"]) != "map[code:20]" || fmt.Sprint(upd["changed"]) != "[name]" ||
				before["properties"].(map[string]any)["name"] != "b" || after["properties"].(map[string]any)["name"] != "b2" {
				t.Fatalf("update line %v", upd)
			}
			if lines[1]["geometry_changed"] != true || lines[3]["op"] != "delete" || lines[3]["+"] != nil || lines[4]["op"] != "insert" {
				t.Fatalf("lines %v", lines[1:5])
			}
			if lines[5]["inserts"] != 1.0 || lines[5]["updates"] != 2.0 || lines[5]["deletes"] != 1.0 {
				t.Fatalf("counts line %v", lines[5])
			}
		}

		// Pages of one change: each change once, the next page in the
		// Link header and in links.
		next := diffURL + "?page_size=1"
		var paged []string
		for n := 0; next != ""; n++ {
			if n > 6 {
				t.Fatal("paging does not end")
			}
			r := e.Do(t, req{Path: next, Key: pub.Key})
			expectAnswer(t, r, "application/geo+json")
			var p diffPage
			r.JSON(t, &p)
			for _, f := range p.Features {
				paged = append(paged, f.ID)
			}
			next = ""
			if len(p.Links) > 0 {
				next = p.Links[0].Href
				if link := r.Header.Get("Link"); link != "<"+next+`>; rel="page-next"` {
					t.Fatalf("Link %q, links %v", link, p.Links)
				}
			}
		}
		if !slices.Equal(paged, ids) {
			t.Fatalf("paged %v, want %v", paged, ids)
		}

		// GraphQL answers from the same diff, paged by after/first.
		layerID := versionNumber(t, layerURL)
		const q = `query($id: ID!, $after: String) { layerDiff(layerID: $id, first: 4, after: $after) {
			from { id } to { id } matchedBy counts { inserts updates deletes }
			changes { op key old { fid properties geometry } new { properties } changed geometryChanged cursor }
			endCursor hasNextPage } }`
		type gqlDiff struct {
			LayerDiff struct {
				From      struct{ ID string }
				To        struct{ ID string }
				MatchedBy []string
				Counts    map[string]int
				Changes   []struct {
					Op              string
					Key             map[string]any
					Old, New        *struct{ Properties, Geometry map[string]any }
					Changed         []string
					GeometryChanged bool
				}
				EndCursor   string
				HasNextPage bool
			}
		}
		g := e.GraphQL(t, pub.Key, q, map[string]any{"id": layerID})
		if len(g.Errors) > 0 {
			t.Fatalf("layerDiff: %+v", g.Errors)
		}
		var first gqlDiff
		if err := json.Unmarshal(g.Data, &first); err != nil {
			t.Fatal(err)
		}
		d := first.LayerDiff
		if d.From.ID != fmt.Sprint(v1) || d.To.ID != fmt.Sprint(v2) || fmt.Sprint(d.Counts) != "map[deletes:1 inserts:1 updates:2]" ||
			len(d.Changes) != 4 || d.HasNextPage || fmt.Sprint(d.MatchedBy) != "[code]" {
			t.Fatalf("layerDiff %+v", d)
		}
		if c := d.Changes[1]; c.Op != "update" || fmt.Sprint(c.Key) != "map[code:20]" || c.Old.Properties["name"] != "b" ||
			c.New.Properties["name"] != "b2" || fmt.Sprint(c.Changed) != "[name]" || c.GeometryChanged {
			t.Fatalf("update %+v", c)
		}
		if c := d.Changes[0]; !c.GeometryChanged || c.Old.Geometry["type"] != "Point" {
			t.Fatalf("moved %+v", c)
		}
		g = e.GraphQL(t, pub.Key, strings.Replace(q, "first: 4", "first: 3", 1), map[string]any{"id": layerID})
		var part gqlDiff
		if err := json.Unmarshal(g.Data, &part); err != nil || !part.LayerDiff.HasNextPage || len(part.LayerDiff.Changes) != 3 {
			t.Fatalf("first 3: %v %s", err, g.Data)
		}
		g = e.GraphQL(t, pub.Key, q, map[string]any{"id": layerID, "after": part.LayerDiff.EndCursor})
		var rest gqlDiff
		if err := json.Unmarshal(g.Data, &rest); err != nil || len(rest.LayerDiff.Changes) != 1 || rest.LayerDiff.Changes[0].Op != "insert" {
			t.Fatalf("after: %v %s", err, g.Data)
		}
		// Everyone may download a new layer, so anyone reads its diff;
		// once everyone may only view it, only those who may download do.
		if g := e.GraphQL(t, "", q, map[string]any{"id": layerID}); len(g.Errors) > 0 {
			t.Fatalf("anonymous, everyone downloads: %+v", g.Errors)
		}
		viewer := e.NewUser(t, "Vera")
		r = e.Do(t, req{Method: "PUT", Path: layerURL + "permissions/", Key: pub.Key, Body: []map[string]any{
			{"permission": "view", "group": "everyone"}, {"permission": "admin", "user": pub.ID}}})
		expectStatus(t, r, http.StatusOK)
		if g := e.GraphQL(t, "", q, map[string]any{"id": layerID}); len(g.Errors) == 0 || gqlStatus(g.Errors) != http.StatusUnauthorized {
			t.Fatalf("anonymous read the diff of a layer everyone only views: %+v %s", g.Errors, g.Data)
		}
		expectStatus(t, e.Do(t, req{Path: diffURL}), http.StatusUnauthorized)
		expectDetail(t, e.Do(t, req{Path: diffURL, Key: viewer.Key}), http.StatusForbidden, "kart-diff")
		if g := e.GraphQL(t, viewer.Key, q, map[string]any{"id": layerID}); gqlStatus(g.Errors) != http.StatusForbidden {
			t.Fatalf("a viewer read the diff: %+v", g.Errors)
		}

		for _, tc := range []struct{ query, field string }{
			{"format=xml", "format"}, {"page_size=0", "page_size"}, {"page_size=1001", "page_size"},
			{"cursor=%25%25", "cursor"}, {"cursor=eyJuIjotMX0", "cursor"}, {"from=abc", "from"},
		} {
			r := e.Do(t, req{Path: diffURL + "?" + tc.query, Key: pub.Key})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
				t.Errorf("%s: %s does not name %s", tc.query, r.Body, tc.field)
			}
		}
		expectStatus(t, e.Do(t, req{Path: diffURL + "?from=999999", Key: pub.Key}), http.StatusNotFound)
		// A table's route does not serve a layer.
		expectStatus(t, e.Do(t, req{Path: strings.Replace(diffURL, "/layers/", "/tables/", 1), Key: pub.Key}), http.StatusNotFound)
	})
}

// Without a key, the diff matches features by content and says so: every
// changed feature is a delete and an insert.
func TestLayerDiffByContent(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelCollection(
			parcelFeature(10, "a", 174.70), parcelFeature(20, "b", 174.71))}, "parcels.geojson", "Parcels")
		publishLayerDraft(t, e, pub, draft)
		layerURL := strings.Split(draft, "versions/")[0]
		var page diffPage
		getDiff(t, e, req{Path: layerURL + "diff/", Key: pub.Key}, &page)
		// The first version, from nothing: every feature inserted.
		if page.Diff.From != nil || len(page.Features) != 2 || !strings.HasPrefix(page.Features[0].ID, "I::") ||
			len(page.Diff.MatchedBy) != 0 {
			t.Fatalf("first version %+v", page)
		}
		q := url.Values{"to": {fmt.Sprint(versionNumber(t, draft))}, "format": {"counts"}}
		var counts struct {
			MatchedBy []string       `json:"matched_by"`
			Counts    map[string]int `json:"counts"`
		}
		doJSONInto(t, e, req{Path: layerURL + "diff/?" + q.Encode(), Key: pub.Key}, &counts)
		if counts.MatchedBy == nil || len(counts.MatchedBy) != 0 || counts.Counts["inserts"] != 2 {
			t.Fatalf("counts %+v", counts)
		}
	})
}

// expectAnswer checks a 200 of a diff's GeoJSON or JSON lines: its
// content type, and the scopes header every answer carries.
func expectAnswer(t *testing.T, r *servertest.Response, contentType string) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status = %d, want 200; body: %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != contentType {
		t.Fatalf("Content-Type = %q, want %s", ct, contentType)
	}
	if r.Header.Get("Accepted-OAuth-Scopes") == "" {
		t.Fatal("Accepted-OAuth-Scopes header missing: every response carries it")
	}
}

// getDiff reads a page of a diff as GeoJSON into v.
func getDiff(t *testing.T, e *env, rq req, v any) {
	t.Helper()
	r := e.Do(t, rq)
	expectAnswer(t, r, "application/geo+json")
	r.JSON(t, v)
}

// Issue 26.3: restoring an earlier version makes a draft that starts as
// that version is (data, schema, key, description); published, its rows
// are the restored version's, row by row, and the diff says nothing
// changed.
func TestRestoreVersion(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		layerURL, v1, v2 := twoVersions(t, e, pub,
			parcelCollection(parcelFeature(10, "a", 174.70), parcelFeature(20, "b", 174.71), parcelFeature(30, "c", 174.72)),
			parcelCollection(parcelFeature(10, "a", 174.80), parcelFeature(20, "b2", 174.71), parcelFeature(40, "d", 174.73)))
		restore := fmt.Sprintf("%sversions/%d/restore/", layerURL, v1)
		r := e.Do(t, req{Method: "POST", Path: restore, Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft pkRecord
		r.JSON(t, &draft)
		if loc := r.Header.Get("Location"); loc != draft.ThisVersion {
			t.Fatalf("Location %q, this_version %q", loc, draft.ThisVersion)
		}
		if !slices.Equal(draft.Data.PrimaryKeyFields, []string{"code"}) || draft.Version.Status != "ok" {
			t.Fatalf("restored draft %+v", draft)
		}
		v3 := versionNumber(t, draft.ThisVersion)
		// One draft at a time.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: restore, Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)

		// The draft is version 1 again: no change from it, all of 1→2
		// backwards from version 2.
		var counts struct {
			Counts map[string]int `json:"counts"`
			Schema map[string]any `json:"schema"`
		}
		doJSONInto(t, e, req{Path: fmt.Sprintf("%sdiff/?from=%d&to=%d&format=counts", layerURL, v1, v3), Key: pub.Key}, &counts)
		if fmt.Sprint(counts.Counts) != "map[deletes:0 inserts:0 updates:0]" || len(counts.Schema) != 0 {
			t.Fatalf("1→restored: %+v", counts)
		}
		publishLayerDraft(t, e, pub, draft.ThisVersion)
		var back diffPage
		getDiff(t, e, req{Path: layerURL + "diff/", Key: pub.Key}, &back)
		var ids []string
		for _, f := range back.Features {
			ids = append(ids, f.ID)
		}
		if back.Diff.From == nil || back.Diff.From.ID != v2 || back.Diff.To.ID != v3 ||
			!slices.Equal(ids, []string{"U-::10", "U+::10", "U-::20", "U+::20", "I::30", "D::40"}) {
			t.Fatalf("2→3 %+v %v", back.Diff, ids)
		}

		// Row by row, as stored.
		rows := func(v int) []featurerows.Row {
			var out []featurerows.Row
			if err := featurerows.Read(context.Background(), e.Store, v, func(r featurerows.Row) error {
				out = append(out, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if a, b := rows(v1), rows(v3); len(a) != 3 || !reflect.DeepEqual(a, b) {
			t.Fatalf("version 1 rows %+v\nrestored rows %+v", a, b)
		}
		// Only released versions are restored.
		d4 := doJSON[pkRecord](t, e, req{Method: "POST", Path: layerURL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		expectDetail(t, e.Do(t, req{Method: "POST", Path: d4.ThisVersion + "restore/", Key: pub.Key, Body: map[string]any{}}),
			http.StatusConflict, "already has a draft")
		g := e.GraphQL(t, pub.Key, `mutation($l: ID!, $v: ID!) { restoreLayerVersion(layerID: $l, versionID: $v) { id } }`,
			map[string]any{"l": versionNumber(t, layerURL), "v": v2})
		if len(g.Errors) != 1 || g.Errors[0].Extensions["code"] != "CONFLICT" {
			t.Fatalf("GraphQL restore with a draft: %+v", g.Errors)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: d4.ThisVersion, Key: pub.Key}), http.StatusNoContent)
		g = e.GraphQL(t, pub.Key, `mutation($l: ID!, $v: ID!) { restoreLayerVersion(layerID: $l, versionID: $v) { id primaryKeyFields } }`,
			map[string]any{"l": versionNumber(t, layerURL), "v": v2})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"primaryKeyFields":["code"]`) {
			t.Fatalf("GraphQL restore: %+v %s", g.Errors, g.Data)
		}
		var restored struct {
			RestoreLayerVersion struct{ ID string }
		}
		if err := json.Unmarshal(g.Data, &restored); err != nil {
			t.Fatal(err)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: layerURL + "versions/" + restored.RestoreLayerVersion.ID + "/", Key: pub.Key}), http.StatusNoContent)
		// A discarded draft was never published: not restored.
		expectDetail(t, e.Do(t, req{Method: "POST", Path: d4.ThisVersion + "restore/", Key: pub.Key, Body: map[string]any{}}),
			http.StatusConflict, "never published")
	})
}
