package ogc_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// waitFresh lets remembered access decisions expire.

// The service rule (wfs: enabled, permitted, the owner's download level)
// and the wxs:wfs token scope, for every kind of caller.
func testAccess(t *testing.T, f *fixture) {
	e := f.e
	public := "/collections/" + layerID(f.points) + "/items"
	private := "/collections/" + layerID(f.private) + "/items"

	t.Run("scope header", func(t *testing.T) {
		r := f.get(t, f.reader.Key, "/")
		if got := r.header.Get("Accepted-OAuth-Scopes"); got != "wxs:wfs" {
			t.Errorf("Accepted-OAuth-Scopes %q", got)
		}
	})

	t.Run("anonymous sees public collections only", func(t *testing.T) {
		var cs struct{ Collections []struct{ ID string } }
		f.get(t, "", "/collections").json(t, http.StatusOK, "application/json", &cs)
		if len(cs.Collections) != 4 {
			t.Errorf("anonymous sees %+v", cs.Collections)
		}
		f.items(t, "", public)
		var ex exception
		f.get(t, "", private).json(t, http.StatusNotFound, "application/json", &ex)
		f.get(t, f.reader.Key, private).json(t, http.StatusNotFound, "application/json", &ex)
		f.items(t, f.owner.Key, private)
	})

	t.Run("token without wxs:wfs", func(t *testing.T) {
		for _, p := range []string{"/", "/collections", public} {
			var ex exception
			f.get(t, f.noScope, p).json(t, http.StatusUnauthorized, "application/json", &ex)
			if !strings.Contains(ex.Description, "wxs:wfs") {
				t.Errorf("%s: %+v does not name the scope", p, ex)
			}
		}
		f.items(t, e.Token(t, f.reader.User, "wxs:wfs"), public)
	})

	t.Run("key query parameter", func(t *testing.T) {
		f.items(t, "", private+"?key="+f.owner.Key)
		r := f.get(t, "", "/collections?key="+f.noScope)
		if r.status != http.StatusUnauthorized {
			t.Errorf("scopeless key parameter: %d", r.status)
		}
		r = f.get(t, "", "/collections?key=00000000000000000000000000000000")
		if r.status != http.StatusUnauthorized {
			t.Errorf("unknown key: %d", r.status)
		}
		// Links never carry the key back.
		r = f.get(t, "", public+"?limit=5&key="+f.owner.Key)
		if r.status != http.StatusOK || strings.Contains(string(r.body), f.owner.Key) {
			t.Errorf("%d; the key is written back: %s", r.status, r.body)
		}
	})

	t.Run("disabled service", func(t *testing.T) {
		f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/", f.polygons), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		for _, key := range []string{"", f.reader.Key, f.owner.Key} {
			var ex exception
			f.get(t, key, "/collections/"+layerID(f.polygons)).json(t, http.StatusNotFound, "application/json", &ex)
			f.get(t, key, "/collections/"+layerID(f.polygons)+"/items").json(t, http.StatusNotFound, "application/json", &ex)
			var cs struct{ Collections []struct{ ID string } }
			f.get(t, key, "/collections").json(t, http.StatusOK, "application/json", &cs)
			for _, c := range cs.Collections {
				if c.ID == layerID(f.polygons) {
					t.Errorf("a disabled collection is listed")
				}
			}
		}
		f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/", f.polygons), `{"enabled": true}`, http.StatusOK)
		waitFresh()
		f.items(t, f.reader.Key, "/collections/"+layerID(f.polygons)+"/items")
	})

	t.Run("service permission list", func(t *testing.T) {
		// Listed roles only: the owner lists itself, the reader loses
		// access although it holds download.
		f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/permissions/", f.points),
			fmt.Sprintf(`[{"user": %d, "permission": "access"}]`, f.owner.User.ID), http.StatusOK)
		waitFresh()
		var ex exception
		f.get(t, f.reader.Key, public).json(t, http.StatusNotFound, "application/json", &ex)
		f.items(t, f.owner.Key, public)
	})
}
