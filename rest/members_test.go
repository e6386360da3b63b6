package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type memberRecord struct {
	ID         string           `json:"id"`
	URL        string           `json:"url"`
	Permission string           `json:"permission"`
	User       struct{ ID int } `json:"user"`
	Group      groupSummary     `json:"group"`
}

func TestGroupPermissions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		manager := e.NewUser(t, "Manager")
		alice := e.NewUser(t, "Alice")
		bob := e.NewUser(t, "Bob")
		outsider := e.NewUser(t, "Outsider")
		g := createGroup(t, e, admin, map[string]any{"name": "Parcels", "country": "NZ"})
		base := fmt.Sprintf("/groups/%d/permissions/", g.ID)
		addMember(t, e, admin, g.ID, manager.ID, "edit_users")

		// POST: 201 with the permission and its Location.
		r := e.Do(t, req{Method: "POST", Path: base, Key: manager.Key, Body: map[string]any{
			"user": fmt.Sprintf("%s/users/%d/", e.API, alice.ID), "permission": "member"}})
		expectStatus(t, r, http.StatusCreated)
		var m memberRecord
		r.JSON(t, &m)
		wantURL := fmt.Sprintf("%s/groups/%d/permissions/user.%d/", e.API, g.ID, alice.ID)
		if m.ID != fmt.Sprintf("user.%d", alice.ID) || m.URL != wantURL || r.Header.Get("Location") != wantURL ||
			m.Permission != "member" || m.User.ID != alice.ID || m.Group.ID != g.ID {
			t.Fatalf("created %+v, Location %s", m, r.Header.Get("Location"))
		}
		// "409 when a user already belongs".
		r = e.Do(t, req{Method: "POST", Path: base, Key: manager.Key, Body: map[string]any{"user": alice.ID, "permission": "member"}})
		expectDetail(t, r, http.StatusConflict, "already belongs")
		// edit_users may not grant admin.
		r = e.Do(t, req{Method: "POST", Path: base, Key: manager.Key, Body: map[string]any{"user": bob.ID, "permission": "admin"}})
		expectStatus(t, r, http.StatusForbidden)
		for name, body := range map[string]any{
			"BadPermission": map[string]any{"user": bob.ID, "permission": "owner"},
			"NoUser":        map[string]any{"permission": "member"},
			"UnknownUser":   map[string]any{"user": 987654, "permission": "member"},
			"NotAnObject":   []int{1},
		} {
			t.Run(name, func(t *testing.T) {
				expectStatus(t, e.Do(t, req{Method: "POST", Path: base, Key: manager.Key, Body: body}), http.StatusBadRequest)
			})
		}
		authMatrix(t, e, req{Method: "POST", Path: base, Body: map[string]any{"user": bob.ID, "permission": "member"}}, "users:write", outsider)

		// GET list, with the security filter.
		r = e.Do(t, req{Path: base, Key: manager.Key})
		expectStatus(t, r, http.StatusOK)
		var ms []memberRecord
		r.JSON(t, &ms)
		if len(ms) != 2 {
			t.Fatalf("members = %+v", ms)
		}
		e.Store.Client.User.UpdateOneID(alice.ID).SetMfaEnabled(true).ExecX(t.Context())
		r = e.Do(t, req{Path: base + "?security=mfa", Key: manager.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &ms)
		if len(ms) != 1 || ms[0].User.ID != alice.ID {
			t.Fatalf("security=mfa = %+v", ms)
		}
		expectStatus(t, e.Do(t, req{Path: base + "?security=retina", Key: manager.Key}), http.StatusBadRequest)
		authMatrix(t, e, req{Path: base}, "users:read", alice) // a plain member may not list

		// Per-user GET: the member themself and managers; 404 for non-members.
		one := fmt.Sprintf("%suser.%d/", base, alice.ID)
		expectStatus(t, e.Do(t, req{Path: one, Key: alice.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: one, Key: manager.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: one, Key: outsider.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%suser.%d/", base, bob.ID), Key: manager.Key}), http.StatusNotFound)

		// PUT changes the permission: 200 with the record.
		r = e.Do(t, req{Method: "PUT", Path: one, Key: manager.Key, Body: map[string]any{"user": alice.ID, "permission": "edit_data"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &m)
		if m.Permission != "edit_data" {
			t.Fatalf("after PUT %+v", m)
		}
		r = e.Do(t, req{Method: "PUT", Path: one, Key: manager.Key, Body: map[string]any{"user": bob.ID, "permission": "member"}})
		expectStatus(t, r, http.StatusBadRequest)
		authMatrix(t, e, req{Method: "PUT", Path: one, Body: map[string]any{"permission": "member"}}, "users:write", outsider)

		// PATCH: all actions or none.
		r = e.Do(t, req{Method: "PATCH", Path: base, Key: admin.Key, Body: []map[string]any{
			{"action": "create", "value": map[string]any{"user": bob.ID, "permission": "member"}},
			{"action": "update", "url": e.API + one, "value": map[string]any{"user": alice.ID, "permission": "member"}},
			{"action": "create", "value": map[string]any{"user": manager.ID, "permission": "member"}},
		}})
		expectDetail(t, r, http.StatusConflict, "already belongs")
		r = e.Do(t, req{Path: one, Key: admin.Key})
		r.JSON(t, &m)
		if m.Permission != "edit_data" {
			t.Fatal("a failed PATCH changed a permission")
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%suser.%d/", base, bob.ID), Key: admin.Key}), http.StatusNotFound)
		r = e.Do(t, req{Method: "PATCH", Path: base, Key: admin.Key, Body: []map[string]any{
			{"action": "create", "value": map[string]any{"user": bob.ID, "permission": "member"}},
			{"action": "update", "url": e.API + one, "value": map[string]any{"user": alice.ID, "permission": "admin"}},
			{"action": "delete", "url": fmt.Sprintf("%s%suser.%d/", e.API, base, manager.ID)},
		}})
		expectStatus(t, r, http.StatusNoContent)
		r = e.Do(t, req{Path: base, Key: admin.Key})
		r.JSON(t, &ms)
		if len(ms) != 2 || ms[0].User.ID != alice.ID || ms[0].Permission != "admin" || ms[1].User.ID != bob.ID {
			t.Fatalf("after PATCH %+v", ms)
		}
		expectStatus(t, e.Do(t, req{Method: "PATCH", Path: base, Key: admin.Key, Body: []map[string]any{{"action": "grant"}}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "PATCH", Path: base, Key: admin.Key, Body: []map[string]any{{"action": "delete"}}}), http.StatusBadRequest)
		authMatrix(t, e, req{Method: "PATCH", Path: base, Body: []any{}}, "users:write", bob)

		// DELETE: 204; a member may leave; others need to manage members.
		bobURL := fmt.Sprintf("%suser.%d/", base, bob.ID)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: bobURL, Key: outsider.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: bobURL, Key: bob.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: bobURL, Key: admin.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Method: "DELETE", Path: one}, "users:write", nil)
		expectStatus(t, e.Do(t, req{Path: "/groups/424242/permissions/", Key: admin.Key}), http.StatusNotFound)
	})
}
