package queryapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
)

// publishSet stores a published set of members, in order.
func publishSet(t *testing.T, e *env, owner *ent.User, title string, members ...int) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		now := time.Now().UTC()
		s, err := c.Set.Create().SetTitle(title).SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.SetVersion.Create().SetSetID(s.ID).SetTitle(title).SetCreatedBy(owner.ID).
			SetState(setversion.StatePublished).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		for i, m := range members {
			if err := c.SetItem.Create().SetSetVersionID(v.ID).SetPosition(i).SetLayerID(m).Exec(ctx); err != nil {
				return err
			}
		}
		if err := c.Set.UpdateOneID(s.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		id = s.ID
		return access.GrantDefaults(ctx, c, access.KindSet, s.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing fixture set: %v", err)
	}
	return id
}

type setMember struct {
	ID      int             `json:"id"`
	Title   string          `json:"title"`
	Type    string          `json:"type"`
	Error   string          `json:"error"`
	Results json.RawMessage `json:"results"`
}

func setQuery(t *testing.T, e *env, key string, set int, extra ...string) (*http.Response, []setMember, []byte) {
	t.Helper()
	p := url.Values{"key": {key}, "set": {fmt.Sprint(set)}, "x": {fmt.Sprint(cLon)}, "y": {fmt.Sprint(cLat)}}
	for i := 0; i+1 < len(extra); i += 2 {
		p.Set(extra[i], extra[i+1])
	}
	resp, body := get(t, e, "/services/query/v1/set.json", p, nil)
	var ms []setMember
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &ms); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	return resp, ms, body
}

// Issue acceptance: one set, a JSON list of its layers in set order,
// vector and grid together, each with its id, title and results: the
// results of each member are those of the vector and raster queries on
// that layer alone. Members the caller may not see are left out.
func TestSetQuery(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		grid := publishGrid(t, e, f.owner.User, "Heights", writeFixtureGrid(t)).id
		private := publishLayer(t, e, f.owner.User, "Private", "point", []string{"name"}, []feature{{1, pt(cLon, cLat), map[string]any{"name": "secret"}}})
		apiCall(t, e, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/permissions/", private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.ID), http.StatusOK)
		table := publishLayer(t, e, f.owner.User, "Table", "", []string{"name"}, []feature{{1, nil, map[string]any{"name": "row"}}})
		if err := e.Store.Client.Layer.UpdateOneID(table).SetType(layer.TypeTable).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		set := publishSet(t, e, f.owner.User, "Wellington", f.regions, grid, private, table, f.points)

		resp, ms, body := setQuery(t, e, f.reader.Key, set, "max_results", "3", "with_field_names", "true")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.geopub.setQuery+json; version=1.3" || !strings.HasPrefix(string(body), "[") {
			t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var got []string
		for _, m := range ms {
			got = append(got, fmt.Sprintf("%d:%s:%s", m.ID, m.Title, m.Type))
		}
		want := fmt.Sprintf("%d:Regions:vector,%d:Heights:grid,%d:Points:vector", f.regions, grid, f.points)
		if strings.Join(got, ",") != want {
			t.Fatalf("members %v, want %s", got, want)
		}
		// Each member's results are the single-layer queries' answers.
		_, vecBody := get(t, e, "/services/query/v1/vector.json", params(f.reader.Key, f.points, "max_results", "3", "with_field_names", "true"), nil)
		var vec struct {
			VectorQuery struct{ Layers map[string]json.RawMessage }
		}
		if err := json.Unmarshal(vecBody, &vec); err != nil {
			t.Fatal(err)
		}
		if string(ms[2].Results) != string(vec.VectorQuery.Layers[fmt.Sprint(f.points)]) {
			t.Fatalf("set member\n%s\nvector query\n%s", ms[2].Results, vec.VectorQuery.Layers[fmt.Sprint(f.points)])
		}
		_, _, rasterBody := rasterQuery(t, e, f.reader.Key, cLon, cLat, grid)
		var ras struct {
			RasterQuery struct{ Layers map[string]json.RawMessage }
		}
		if err := json.Unmarshal(rasterBody, &ras); err != nil {
			t.Fatal(err)
		}
		if string(ms[1].Results) != string(ras.RasterQuery.Layers[fmt.Sprint(grid)]) {
			t.Fatalf("set member\n%s\nraster query\n%s", ms[1].Results, ras.RasterQuery.Layers[fmt.Sprint(grid)])
		}

		// The owner sees the private member too.
		if _, ms, body := setQuery(t, e, f.owner.Key, set); len(ms) != 4 || ms[2].ID != private {
			t.Fatalf("owner %s", body)
		}
		// A member with its service off stays listed, with an error.
		apiCall(t, e, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/spatial-query-vector/", f.regions), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		if _, ms, body := setQuery(t, e, f.reader.Key, set); len(ms) != 3 || ms[0].Error == "" || ms[0].Results != nil || ms[1].Error != "" {
			t.Fatalf("disabled member %s", body)
		}

		// Unknown and private sets answer alike: 404.
		_, _, unknown := setQuery(t, e, f.reader.Key, 99999)
		apiCall(t, e, f.owner.Key, "PUT", fmt.Sprintf("/sets/%d/permissions/", set), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.ID), http.StatusOK)
		waitFresh()
		resp, _, hidden := setQuery(t, e, f.reader.Key, set)
		if resp.StatusCode != http.StatusNotFound || string(hidden) != strings.Replace(string(unknown), "99999", fmt.Sprint(set), 1) {
			t.Fatalf("private set %d %s vs %s", resp.StatusCode, hidden, unknown)
		}
	})
}

func TestSetQueryParameters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		set := publishSet(t, e, f.owner.User, "Points", f.points)
		for name, c := range map[string]struct {
			extra  []string
			status int
		}{
			"defaults":                   {nil, http.StatusOK},
			"pinned 1.0":                 {[]string{"v", "1"}, http.StatusOK},
			"unknown version":            {[]string{"v", "1.4"}, http.StatusBadRequest},
			"field names need 1.1":       {[]string{"v", "1.0", "with_field_names", "true"}, http.StatusBadRequest},
			"max_results above 100":      {[]string{"max_results", "101"}, http.StatusBadRequest},
			"radius above 100000":        {[]string{"radius", "100001"}, http.StatusBadRequest},
			"set not a number":           {[]string{"set", "abc"}, http.StatusBadRequest},
			"latitude out of range":      {[]string{"y", "95"}, http.StatusBadRequest},
			"geometry not a boolean":     {[]string{"geometry", "maybe"}, http.StatusBadRequest},
			"unknown parameters ignored": {[]string{"colour", "blue"}, http.StatusOK},
		} {
			resp, _, body := setQuery(t, e, f.reader.Key, set, c.extra...)
			if resp.StatusCode != c.status {
				t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
			}
			if c.status == http.StatusBadRequest {
				var msg struct{ Error string }
				if json.Unmarshal(body, &msg) != nil || msg.Error == "" {
					t.Fatalf("%s: no message in %s", name, body)
				}
			}
		}
		// The nearest point within the default 1,000 m, with geometry.
		_, ms, body := setQuery(t, e, f.reader.Key, set, "geometry", "true")
		var fc struct {
			Features []struct {
				Distance float64         `json:"distance"`
				Geometry json.RawMessage `json:"geometry"`
			} `json:"features"`
		}
		if len(ms) != 1 || json.Unmarshal(ms[0].Results, &fc) != nil || len(fc.Features) != 1 || fc.Features[0].Distance > 60 || len(fc.Features[0].Geometry) == 0 {
			t.Fatalf("nearest %s", body)
		}
		// No set parameter, no key.
		p := url.Values{"key": {f.reader.Key}, "x": {"174"}, "y": {"-41"}}
		if resp, body := get(t, e, "/services/query/v1/set", p, nil); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "set is required") {
			t.Fatalf("no set: %d %s", resp.StatusCode, body)
		}
		p = url.Values{"set": {fmt.Sprint(set)}, "x": {"174"}, "y": {"-41"}}
		if resp, _ := get(t, e, "/services/query/v1/set.json", p, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("no key: %d", resp.StatusCode)
		}
		// JSONP.
		p = url.Values{"key": {f.reader.Key}, "set": {fmt.Sprint(set)}, "x": {fmt.Sprint(cLon)}, "y": {fmt.Sprint(cLat)}, "callback": {"cb"}}
		if resp, body := get(t, e, "/services/query/v1/set.json", p, nil); resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "/**/cb([{") {
			t.Fatalf("jsonp %d %s", resp.StatusCode, body)
		}
	})
}
