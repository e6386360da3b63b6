package rest_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
)

// ring returns a closed ring of n positions near (174, -41), written
// short (four decimals), so that many fit in a small body.
func ring(n int) [][2]float64 {
	out := make([][2]float64, 0, n)
	for i := range n - 1 {
		f := float64(i) / float64(n-1)
		out = append(out, [2]float64{math.Round((174+0.5*f)*1e4) / 1e4, math.Round((-41+0.5*f*(1-f))*1e4) / 1e4})
	}
	return append(out, out[0])
}

// Issue 24 #0f: one limit per input, below the doors. An export extent
// over the exports package's byte or vertex limit is refused by REST
// (413, 400 naming extent) and GraphQL (an error with extensions.code)
// alike, on validate and create; it is never stored, so never echoed.
func TestExportExtentLimitsHoldOnBothDoors(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Exporter")
		item := []map[string]any{{"item": e.API + "/layers/1/"}}
		formats := map[string]any{"vector": "application/x-ogc-gpkg"}
		poly := func(n int) map[string]any {
			return map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring(n)}}
		}
		// 11 MB: REST's body cap; GraphQL's body cap is larger.
		huge := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring(10)}, "pad": strings.Repeat("x", 11<<20)}
		// 600 KB: under REST's body cap, over the extent's byte limit.
		large := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring(10)}, "pad": strings.Repeat("x", 600<<10)}
		cases := []struct {
			name   string
			extent map[string]any
			status int
			code   string
		}{
			{"11MB", huge, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
			{"600KB", large, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
			{"vertices", poly(12000), http.StatusBadRequest, "BAD_REQUEST"},
		}
		for _, c := range cases {
			for _, path := range []string{"/exports/validate/", "/exports/"} {
				r := e.Do(t, req{Method: "POST", Path: path, Key: u.Key, Body: map[string]any{"formats": formats, "items": item, "extent": c.extent}})
				if r.Status != c.status || r.Detail(t) == "" && !strings.Contains(string(r.Body), "extent") {
					t.Errorf("REST %s %s: %d %.300s", c.name, path, r.Status, r.Body)
				}
			}
			for _, m := range []string{"validateExport(input: $in) { isValid }", "createExport(input: $in) { export { id } }"} {
				g := e.GraphQL(t, u.Key, "mutation($in: ExportInput!) { "+m+" }",
					map[string]any{"in": map[string]any{"formats": formats, "items": item, "extent": c.extent}})
				if len(g.Errors) != 1 || g.Errors[0].Code() != c.code || !strings.Contains(g.Errors[0].Message, "xtent") {
					t.Errorf("GraphQL %s %s: %.300s %+v", c.name, m, g.Data, g.Errors)
				}
			}
		}
		// Within the limits, the extent is read (and the missing layer named).
		r := e.Do(t, req{Method: "POST", Path: "/exports/validate/", Key: u.Key, Body: map[string]any{"formats": formats, "items": item, "extent": poly(500)}})
		expectStatus(t, r, http.StatusOK)
	})
}

// nested wraps leaf in n levels of {key: ...} (key "and" wraps a list).
func nested(key string, n int, leaf map[string]any) map[string]any {
	v := leaf
	for range n {
		if key == "and" {
			v = map[string]any{"and": []any{v}}
		} else {
			v = map[string]any{key: v}
		}
	}
	return v
}

// Issue 24 #0f: where inputs nested past the input depth limit, through
// variables or literals, are a GraphQL validation error naming the
// limit (DEPTH_LIMIT_EXCEEDED), not an internal error from the database
// ("Expression tree is too large"); modest nesting still runs.
func TestGraphQLWhereNestingIsLimited(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Quinn")
		q := `query($w: GroupWhereInput) { groups(first: 5, where: $w) { totalCount } }`
		leaf := map[string]any{"name": "x"}
		for _, c := range []struct {
			key string
			n   int
		}{{"not", 1000}, {"not", 5000}, {"and", 1000}} {
			g := e.GraphQL(t, u.Key, q, map[string]any{"w": nested(c.key, c.n, leaf)})
			if len(g.Errors) != 1 || g.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" || !strings.Contains(g.Errors[0].Message, "where") {
				t.Errorf("%s×%d: %.200s %+v", c.key, c.n, g.Data, g.Errors)
			}
		}
		lit := strings.Repeat("{not: ", 300) + `{name: "x"}` + strings.Repeat("}", 300)
		g := e.GraphQL(t, u.Key, fmt.Sprintf("{ groups(first: 5, where: %s) { totalCount } }", lit), nil)
		if len(g.Errors) != 1 || g.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
			t.Errorf("literal ×300: %.200s %+v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, u.Key, q, map[string]any{"w": nested("not", 6, leaf)})
		if len(g.Errors) != 0 {
			t.Errorf("not×6: %+v", g.Errors)
		}
	})
}

// Issue 24 #0f: the notification list's Link header carries only the
// parameters it knows (page_size, after), never unknown ones, however
// long.
func TestNotificationLinkCarriesKnownParameters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Carol")
		r := e.Do(t, req{Path: "/notifications/?page_size=5&junk=" + strings.Repeat("y", 100<<10) + "&foo=bar", Key: u.Key})
		expectStatus(t, r, http.StatusOK)
		link := r.Header.Get("Link")
		if !strings.Contains(link, "page_size=5") || strings.Contains(link, "junk") || strings.Contains(link, "foo") || len(link) > 1024 {
			t.Errorf("Link (%d bytes): %.300s", len(link), link)
		}
	})
}
