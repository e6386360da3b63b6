package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

type userRecord struct {
	ID          int     `json:"id"`
	URL         string  `json:"url"`
	FirstName   string  `json:"first_name"`
	LastName    string  `json:"last_name"`
	Country     *string `json:"country"`
	Email       string  `json:"email"`
	IsLocked    bool    `json:"is_locked"`
	IsSiteAdmin bool    `json:"is_site_admin"`
	SeatType    string  `json:"seat_type"`
}

func userIDs(us []userRecord) string {
	var ids []string
	for _, u := range us {
		ids = append(ids, fmt.Sprint(u.ID))
	}
	return strings.Join(ids, ",")
}

func TestListUsers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		erin := e.NewUser(t, "Erin")
		frank := e.NewUser(t, "Frank")
		e.Store.Client.User.UpdateOneID(frank.ID).SetSeatType("paid").ExecX(t.Context())
		g := createGroup(t, e, admin, map[string]any{"name": "Survey", "country": "NZ"})
		h := createGroup(t, e, admin, map[string]any{"name": "Hydro", "country": "NZ"})
		addMember(t, e, admin, g.ID, erin.ID, "member")
		addMember(t, e, admin, g.ID, frank.ID, "member")
		addMember(t, e, admin, h.ID, frank.ID, "member")

		list := func(q string) []userRecord {
			t.Helper()
			r := e.Do(t, req{Path: "/users/" + q, Key: admin.Key})
			expectStatus(t, r, http.StatusOK)
			var us []userRecord
			r.JSON(t, &us)
			return us
		}
		us := list("")
		if userIDs(us) != fmt.Sprintf("%d,%d,%d", admin.ID, erin.ID, frank.ID) {
			t.Fatalf("all users = %s", userIDs(us))
		}
		if us[0].Email != admin.Email || !us[0].IsSiteAdmin || us[0].SeatType != "none" || us[0].URL != fmt.Sprintf("%s/users/%d/", e.API, admin.ID) {
			t.Fatalf("user shape %+v", us[0])
		}
		if got := userIDs(list("?seat_type=paid")); got != fmt.Sprint(frank.ID) {
			t.Fatalf("seat_type=paid = %s", got)
		}
		// "users must belong to all given groups".
		if got := userIDs(list(fmt.Sprintf("?group=%d&group=%d", g.ID, h.ID))); got != fmt.Sprint(frank.ID) {
			t.Fatalf("group all-of = %s", got)
		}
		if got := userIDs(list(fmt.Sprintf("?group=%d", g.ID))); got != fmt.Sprintf("%d,%d", erin.ID, frank.ID) {
			t.Fatalf("one group = %s", got)
		}
		if got := userIDs(list("?group=administrators")); got != fmt.Sprint(admin.ID) {
			t.Fatalf("group=administrators = %s", got)
		}
		if got := userIDs(list("?group=members")); got != userIDs(list("")) {
			t.Fatalf("group=members = %s", got)
		}
		// q: a keyword, or an e-mail address.
		if got := userIDs(list("?q=erin")); got != fmt.Sprint(erin.ID) {
			t.Fatalf("q=erin = %s", got)
		}
		if got := userIDs(list("?q=" + strings.ToUpper(frank.Email))); got != fmt.Sprint(frank.ID) {
			t.Fatalf("q=email = %s", got)
		}
		r := e.Do(t, req{Path: "/users/?page_size=2", Key: admin.Key})
		if r.Header.Get("X-Resource-Range") != "0-2/3" {
			t.Fatalf("X-Resource-Range = %q", r.Header.Get("X-Resource-Range"))
		}
		for name, q := range map[string]string{
			"BadSeat":      "?seat_type=gold",
			"UnknownGroup": "?group=wizards",
			"PageSizeCap":  "?page_size=201",
		} {
			t.Run(name, func(t *testing.T) {
				expectStatus(t, e.Do(t, req{Path: "/users/" + q, Key: admin.Key}), http.StatusBadRequest)
			})
		}
		// Site administrators only.
		authMatrix(t, e, req{Path: "/users/"}, "users:read", erin)
	})
}

func TestGetUserAndAccess(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		gina := e.NewUser(t, "Gina")
		hank := e.NewUser(t, "Hank")
		g := createGroup(t, e, admin, map[string]any{"name": "Coast", "country": "NZ"})
		addMember(t, e, admin, g.ID, gina.ID, "admin")
		addMember(t, e, admin, g.ID, hank.ID, "member")

		path := fmt.Sprintf("/users/%d/", hank.ID)
		for _, caller := range []*user{hank, admin, gina} { // self, site admin, his group's admin
			r := e.Do(t, req{Path: path, Key: caller.Key})
			expectStatus(t, r, http.StatusOK)
			var u userRecord
			r.JSON(t, &u)
			if u.ID != hank.ID || u.FirstName != "Hank" || u.Email != hank.Email || u.Country == nil || *u.Country != "NZ" {
				t.Fatalf("user = %+v", u)
			}
		}
		// Gina is not visible to Hank (he manages nothing): 404, not 403.
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/users/%d/", gina.ID), Key: hank.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/users/999999/", Key: admin.Key}), http.StatusNotFound)
		authMatrix(t, e, req{Path: path}, "users:read", nil)

		r := e.Do(t, req{Path: path + "access/", Key: hank.Key})
		expectStatus(t, r, http.StatusOK)
		var entries []struct {
			Permission string       `json:"permission"`
			On         groupSummary `json:"on"`
			Type       string       `json:"type"`
			URL        string       `json:"url"`
		}
		r.JSON(t, &entries)
		// The members group and Coast.
		if len(entries) != 2 {
			t.Fatalf("access = %+v", entries)
		}
		coast := entries[1]
		if coast.On.ID != g.ID || coast.Permission != "member" || coast.Type != "group" ||
			coast.URL != fmt.Sprintf("%s/groups/%d/permissions/user.%d/", e.API, g.ID, hank.ID) || coast.On.Name != "Coast" {
			t.Fatalf("access entry = %+v", coast)
		}
		authMatrix(t, e, req{Path: path + "access/"}, "users:read", nil)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/users/%d/access/", gina.ID), Key: hank.Key}), http.StatusNotFound)

		// /users/me/: the login check existing clients make.
		r = e.Do(t, req{Path: "/users/me/", Key: hank.Key})
		expectStatus(t, r, http.StatusOK)
		var me struct {
			userRecord
			Capabilities map[string]bool `json:"capabilities"`
			Contexts     []any           `json:"contexts"`
		}
		r.JSON(t, &me)
		if me.ID != hank.ID || me.Country == nil || me.Capabilities == nil || me.Contexts == nil {
			t.Fatalf("me = %s", r.Body)
		}
		authMatrix(t, e, req{Path: "/users/me/"}, "users:read", nil)
	})
}
