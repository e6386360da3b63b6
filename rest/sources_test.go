package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type sourceRecord struct {
	ID           int            `json:"id"`
	URL          string         `json:"url"`
	Title        string         `json:"title"`
	Type         string         `json:"type"`
	URLRemote    *string        `json:"url_remote"`
	Options      map[string]any `json:"options"`
	ScanSchedule *string        `json:"scan_schedule"`
	User         *struct{ ID int }
	Group        *groupSummary
	Datasources  string `json:"datasources"`
	Scans        string `json:"scans"`
}

// Spec, Data sources: url_remote must not contain credentials; username
// and password are write-only and never returned; ssl_verify defaults to
// true.
func TestSourcesCRUD(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		g := createGroup(t, e, admin, map[string]any{"name": "Publishers", "country": "NZ"})
		addMember(t, e, admin, g.ID, pub.ID, "edit_data")
		addMember(t, e, admin, g.ID, other.ID, "member")

		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Parcels archive", "url_remote": "https://93.184.216.34/parcels.zip",
			"group": g.ID, "options": map[string]any{"username": "reader", "password": "hunter22"},
		}})
		expectStatus(t, r, http.StatusCreated)
		var s sourceRecord
		r.JSON(t, &s)
		if s.Type != "url" || s.Title != "Parcels archive" || s.URLRemote == nil || s.Options["ssl_verify"] != true ||
			s.Group == nil || s.Group.ID != g.ID || r.Header.Get("Location") != s.URL ||
			s.Datasources != s.URL+"datasources/" || s.Scans != s.URL+"scans/" {
			t.Fatalf("created %s", r.Body)
		}
		if strings.Contains(string(r.Body), "hunter22") || strings.Contains(string(r.Body), "reader") {
			t.Fatalf("credentials returned: %s", r.Body)
		}
		if r.Header.Get("Accepted-OAuth-Scopes") != "sources:write" {
			t.Fatalf("Accepted-OAuth-Scopes = %q", r.Header.Get("Accepted-OAuth-Scopes"))
		}
		one := fmt.Sprintf("/sources/%d/", s.ID)

		// Visible to its creator, the group's data editors and site admins.
		for _, who := range []*user{pub, admin} {
			expectStatus(t, e.Do(t, req{Path: one, Key: who.Key}), http.StatusOK)
		}
		expectStatus(t, e.Do(t, req{Path: one, Key: other.Key}), http.StatusNotFound)
		r = e.Do(t, req{Path: "/sources/", Key: other.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("X-Resource-Range") != "0-0/0" {
			t.Fatalf("other sees sources: %s", r.Body)
		}
		r = e.Do(t, req{Path: "/sources/?type=url&q=parcels", Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		var list []sourceRecord
		r.JSON(t, &list)
		if len(list) != 1 || list[0].ID != s.ID {
			t.Fatalf("list %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/sources/?type=ftp", Key: pub.Key}), http.StatusBadRequest)
		authMatrix(t, e, req{Path: "/sources/"}, "sources:read", nil)

		// PUT: title, options; credentials stay hidden.
		r = e.Do(t, req{Method: "PUT", Path: one, Key: pub.Key, Body: map[string]any{
			"title": "Parcels", "options": map[string]any{"ssl_verify": false}}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &s)
		if s.Title != "Parcels" || s.Options["ssl_verify"] != false {
			t.Fatalf("after PUT %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: one, Key: pub.Key, Body: map[string]any{"url_remote": "https://u:p@example.com/x.zip"}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: one, Key: other.Key, Body: map[string]any{"title": "Mine"}}), http.StatusNotFound)

		for name, tc := range map[string]struct {
			body  map[string]any
			field string
		}{
			"Credentials":    {map[string]any{"type": "url", "title": "x", "url_remote": "https://user:pw@example.com/a.zip"}, "url_remote"},
			"PrivateAddress": {map[string]any{"type": "url", "title": "x", "url_remote": "http://10.0.0.5/a.zip"}, "url_remote"},
			"Metadata":       {map[string]any{"type": "url", "title": "x", "url_remote": "http://169.254.169.254/latest/"}, "url_remote"},
			"Scheme":         {map[string]any{"type": "url", "title": "x", "url_remote": "file:///etc/passwd"}, "url_remote"},
			"NoURL":          {map[string]any{"type": "url", "title": "x"}, "url_remote"},
			"NoTitle":        {map[string]any{"type": "url", "url_remote": "https://93.184.216.34/a.zip"}, "title"},
			"BadType":        {map[string]any{"type": "floppy", "title": "x"}, "type"},
			"UploadAsJSON":   {map[string]any{"type": "upload", "title": "x"}, "type"},
			"UnknownGroup":   {map[string]any{"type": "url", "title": "x", "url_remote": "https://93.184.216.34/a.zip", "group": 9999}, "group"},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.Store.Client.Source.Query().CountX(t.Context())
				r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: tc.body})
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
					t.Fatalf("body %s does not name %s", r.Body, tc.field)
				}
				if e.Store.Client.Source.Query().CountX(t.Context()) != before {
					t.Fatal("a refused create wrote a source")
				}
			})
		}
		// A group the caller may not add data to.
		h := createGroup(t, e, admin, map[string]any{"name": "Elsewhere", "country": "NZ"})
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "x", "url_remote": "https://93.184.216.34/a.zip", "group": h.ID}}), http.StatusForbidden)
		authMatrix(t, e, req{Method: "POST", Path: "/sources/", Body: map[string]any{"type": "url", "title": "x"}}, "sources:write", nil)

		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: one, Key: other.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: one, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: one, Key: pub.Key}), http.StatusNotFound)
	})
}
