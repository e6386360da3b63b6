package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/server/servertest"
)

type accessRequestRecord struct {
	ID     int          `json:"id"`
	URL    string       `json:"url"`
	Status string       `json:"status"`
	Group  groupSummary `json:"group"`
	User   struct {
		ID        int    `json:"id"`
		URL       string `json:"url"`
		FirstName string `json:"first_name"`
	} `json:"user"`
}

func notifications(t *testing.T, e *env, userID int) []string {
	t.Helper()
	ns, err := e.Store.Client.Notification.Query().Where(notification.UserID(userID)).
		Order(notification.ByID()).All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range ns {
		kinds = append(kinds, n.Kind)
	}
	return kinds
}

func TestAccessRequests(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		manager := e.NewUser(t, "Manager")
		carol := e.NewUser(t, "Carol")
		dave := e.NewUser(t, "Dave")
		g := createGroup(t, e, admin, map[string]any{"name": "Open Data", "country": "NZ", "access_requests_enabled": true})
		closed := createGroup(t, e, admin, map[string]any{"name": "Closed", "country": "NZ"})
		addMember(t, e, admin, g.ID, manager.ID, "edit_users")
		mine := fmt.Sprintf("/groups/%d/request-access/", g.ID)
		list := fmt.Sprintf("/groups/%d/access-requests/", g.ID)

		// No request yet: 404.
		expectStatus(t, e.Do(t, req{Path: mine, Key: carol.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: mine, Key: carol.Key}), http.StatusNotFound)

		// POST, no body: 202 with the request.
		r := e.Do(t, req{Method: "POST", Path: mine, Key: carol.Key})
		expectStatus(t, r, http.StatusAccepted)
		var ar accessRequestRecord
		r.JSON(t, &ar)
		if ar.Status != "outstanding" || ar.User.ID != carol.ID || ar.Group.ID != g.ID ||
			ar.URL != fmt.Sprintf("%s/groups/%d/access-requests/%d/", e.API, g.ID, ar.ID) {
			t.Fatalf("request = %+v", ar)
		}
		// Asking again returns the same outstanding request.
		r = e.Do(t, req{Method: "POST", Path: mine, Key: carol.Key})
		expectStatus(t, r, http.StatusAccepted)
		var again accessRequestRecord
		r.JSON(t, &again)
		if again.ID != ar.ID {
			t.Fatalf("second request %d, first %d", again.ID, ar.ID)
		}
		r = e.Do(t, req{Path: mine, Key: carol.Key})
		expectStatus(t, r, http.StatusOK)
		// "409 when user already belongs".
		expectDetail(t, e.Do(t, req{Method: "POST", Path: mine, Key: manager.Key}), http.StatusConflict, "already belongs")
		// A group that does not accept requests.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/groups/%d/request-access/", closed.ID), Key: carol.Key}), http.StatusForbidden)
		authMatrix(t, e, req{Method: "POST", Path: mine}, "users:write", nil)

		// Dave asks, then revokes.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: mine, Key: dave.Key}), http.StatusAccepted)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: mine, Key: dave.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: mine, Key: dave.Key}), http.StatusNotFound)

		// Managers list outstanding requests, filtered by security.
		r = e.Do(t, req{Path: list, Key: manager.Key})
		expectStatus(t, r, http.StatusOK)
		var ars []accessRequestRecord
		r.JSON(t, &ars)
		if len(ars) != 1 || ars[0].ID != ar.ID || ars[0].User.FirstName != "Carol" {
			t.Fatalf("list = %+v", ars)
		}
		r = e.Do(t, req{Path: list + "?security=-verified", Key: manager.Key})
		r.JSON(t, &ars)
		if len(ars) != 1 {
			t.Fatalf("security=-verified = %+v", ars)
		}
		r = e.Do(t, req{Path: list + "?security=verified", Key: manager.Key})
		r.JSON(t, &ars)
		if len(ars) != 0 {
			t.Fatalf("security=verified = %+v", ars)
		}
		expectStatus(t, e.Do(t, req{Path: list + "?security=-retina", Key: manager.Key}), http.StatusBadRequest)
		authMatrix(t, e, req{Path: list}, "users:read", carol)

		one := fmt.Sprintf("%s%d", list, ar.ID)
		expectStatus(t, e.Do(t, req{Path: one, Key: manager.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: one + "/", Key: manager.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%s%d", list, 99999), Key: manager.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: one}, "users:read", dave)

		// Approve: 201, the user joins and is notified.
		authMatrix(t, e, req{Method: "POST", Path: one + "/approve/"}, "users:write", dave)
		r = e.Do(t, req{Method: "POST", Path: one + "/approve/", Key: manager.Key})
		expectStatus(t, r, http.StatusCreated)
		var m memberRecord
		r.JSON(t, &m)
		if m.User.ID != carol.ID || m.Permission != "member" {
			t.Fatalf("approved membership %+v", m)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/groups/%d/permissions/user.%d/", g.ID, carol.ID), Key: carol.Key}), http.StatusOK)
		if got := notifications(t, e, carol.ID); fmt.Sprint(got) != "[access_request.approved]" {
			t.Fatalf("carol's notifications = %v", got)
		}
		// The request is closed now.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: one + "/approve/", Key: manager.Key}), http.StatusNotFound)

		// Decline: 204 and the requester is notified.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: mine, Key: dave.Key}), http.StatusAccepted)
		var daves accessRequestRecord
		e.Do(t, req{Path: mine, Key: dave.Key}).JSON(t, &daves)
		declineURL := fmt.Sprintf("%s%d/", list, daves.ID)
		authMatrix(t, e, req{Method: "DELETE", Path: declineURL}, "users:write", carol)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: declineURL, Key: manager.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: declineURL, Key: manager.Key}), http.StatusNotFound)
		if got := notifications(t, e, dave.ID); fmt.Sprint(got) != "[access_request.declined]" {
			t.Fatalf("dave's notifications = %v", got)
		}
		expectStatus(t, e.Do(t, req{Path: mine, Key: dave.Key}), http.StatusNotFound)
	})
}
