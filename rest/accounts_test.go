package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server/servertest"
)

// accountsVersions counts the versions of a dataset as its owner sees
// them in the REST list.
func accountsVersions(t *testing.T, e *env, key string, d permDataset) int {
	t.Helper()
	r := e.Do(t, req{Path: d.url + "versions/", Key: key})
	expectStatus(t, r, http.StatusOK)
	var list []map[string]any
	r.JSON(t, &list)
	return len(list)
}

// accountsDetail checks a refusal: its status and that its body ({"detail"}
// or, for a field, {"field": [...]}) names want.
func accountsDetail(t *testing.T, r *servertest.Response, status int, want string) {
	t.Helper()
	expectStatus(t, r, status)
	if !strings.Contains(string(r.Body), want) {
		t.Fatalf("body %s, want it to mention %q", r.Body, want)
	}
}

// Deleting a user who owns a layer, a table, a set, a document, a catalog
// item and their source hands every one to the receiver: each still
// exists with all its versions, and the receiver reads it and edits its
// draft. Bad requests before it (no receiver, unknown ones, the user
// themself, a caller who is not a site administrator) change nothing.
func TestAccountsDeleteTransfersEveryDataset(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "AccountsAdmin", servertest.SiteAdmin)
		pub := e.NewUser(t, "AccountsPublisher")
		rec := e.NewUser(t, "AccountsReceiver")
		ds := publishedDatasets(t, e, pub)
		versions := map[string]int{}
		for _, d := range ds {
			versions[d.name] = accountsVersions(t, e, pub.Key, d)
		}
		del := func(key, query string) *servertest.Response {
			return e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/%s", pub.ID, query), Key: key})
		}
		accountsDetail(t, del(admin.Key, ""), http.StatusBadRequest, "receiver")
		accountsDetail(t, del(admin.Key, "?receiver=user.99999999"), http.StatusBadRequest, "does not exist")
		accountsDetail(t, del(admin.Key, "?receiver=group.99999999"), http.StatusBadRequest, "does not exist")
		accountsDetail(t, del(admin.Key, "?receiver=someone"), http.StatusBadRequest, "user.{id}")
		accountsDetail(t, del(admin.Key, fmt.Sprintf("?receiver=user.%d", pub.ID)), http.StatusBadRequest, "being deleted")
		expectStatus(t, del(rec.Key, fmt.Sprintf("?receiver=user.%d", rec.ID)), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/", pub.ID)}), http.StatusUnauthorized)
		// Nothing was written: the publisher still signs in and owns all.
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: pub.Key}), http.StatusOK)
		for _, d := range ds {
			expectStatus(t, e.Do(t, req{Path: d.url, Key: pub.Key}), http.StatusOK)
			if r := e.Do(t, req{Path: d.draftURL, Key: rec.Key}); r.Status == http.StatusOK {
				t.Fatalf("%s: the receiver reads the draft before the deletion", d.name)
			}
		}

		r := del(admin.Key, fmt.Sprintf("?receiver=user.%d", rec.ID))
		expectStatus(t, r, http.StatusOK)
		var out struct {
			ID          int            `json:"id"`
			Receiver    string         `json:"receiver"`
			Transferred map[string]int `json:"transferred"`
		}
		r.JSON(t, &out)
		want := map[string]int{"layer": 2, "set": 1, "document": 1, "catalog_item": 1, "source": 1}
		if out.ID != pub.ID || out.Receiver != fmt.Sprintf("user.%d", rec.ID) || fmt.Sprint(out.Transferred) != fmt.Sprint(want) {
			t.Fatalf("deletion answered %+v, want %v to user.%d", out, want, rec.ID)
		}
		for _, d := range ds {
			expectStatus(t, e.Do(t, req{Path: d.url, Key: rec.Key}), http.StatusOK)
			expectStatus(t, e.Do(t, req{Path: d.draftURL, Key: rec.Key}), http.StatusOK)
			if n := accountsVersions(t, e, rec.Key, d); n != versions[d.name] {
				t.Errorf("%s: %d versions after the deletion, %d before", d.name, n, versions[d.name])
			}
			_, _, edit, _ := d.gqlOps()
			if g := e.GraphQL(t, rec.Key, edit, d.gqlVars()); len(g.Errors) > 0 {
				t.Errorf("%s: the receiver cannot edit the draft: %+v", d.name, g.Errors)
			}
		}
		expectStatus(t, e.Do(t, req{Path: "/sources/", Key: rec.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: pub.Key}), http.StatusUnauthorized)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/users/%d/", pub.ID), Key: admin.Key}), http.StatusNotFound)
		expectStatus(t, del(admin.Key, fmt.Sprintf("?receiver=user.%d", rec.ID)), http.StatusNotFound)
	})
}

// A group can take a deleted user's datasets: its data editors edit them.
// A user who owns nothing needs no receiver. Site administrators cannot
// delete themselves, nor the last site administrator.
func TestAccountsDeleteToGroupAndRefusals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "AccountsAdmin", servertest.SiteAdmin)
		pub := e.NewUser(t, "AccountsPublisher")
		editor := e.NewUser(t, "AccountsEditor")
		g := e.SeedGroups(t, "Accounts receivers", 1, editor.User, "edit_data")[0]
		it := createItem(t, e, pub, map[string]any{"title": "Accounts register", "link_url": "https://example.org/register"})
		expectStatus(t, e.Do(t, req{Path: it.ThisVersion, Key: editor.Key}), http.StatusNotFound)
		r := e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/?receiver=group.%d", pub.ID, g.ID), Key: admin.Key})
		expectStatus(t, r, http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: it.ThisVersion, Key: editor.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: http.MethodPut, Path: it.ThisVersion, Key: editor.Key,
			Body: map[string]any{"title": "Accounts register, edited"}}), http.StatusOK)

		idle := e.NewUser(t, "AccountsIdle")
		expectStatus(t, e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/", idle.ID), Key: admin.Key}), http.StatusOK)

		accountsDetail(t, e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/", admin.ID), Key: admin.Key}),
			http.StatusConflict, "last site administrator")
		other := e.NewUser(t, "AccountsAdmin2", servertest.SiteAdmin)
		accountsDetail(t, e.Do(t, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/", other.ID), Key: other.Key}),
			http.StatusBadRequest, "your own")
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: other.Key}), http.StatusOK)
	})
}

// Locking refuses the user's key until unlocking; only site
// administrators lock, and not themselves.
func TestAccountsLockUnlock(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "AccountsAdmin", servertest.SiteAdmin)
		u := e.NewUser(t, "AccountsLocked")
		lock := func(key string, id int, what string) *servertest.Response {
			return e.Do(t, req{Method: http.MethodPost, Path: fmt.Sprintf("/users/%d/%s/", id, what), Key: key, Body: map[string]any{}})
		}
		// A user who may not see the target learns nothing of it.
		expectStatus(t, lock(u.Key, admin.ID, "lock"), http.StatusNotFound)
		accountsDetail(t, lock(admin.Key, admin.ID, "lock"), http.StatusBadRequest, "your own")
		expectStatus(t, lock(admin.Key, 99999999, "lock"), http.StatusNotFound)
		r := lock(admin.Key, u.ID, "lock")
		expectStatus(t, r, http.StatusOK)
		var got struct {
			IsLocked bool `json:"is_locked"`
		}
		r.JSON(t, &got)
		if !got.IsLocked {
			t.Fatalf("lock answered %s", r.Body)
		}
		accountsDetail(t, e.Do(t, req{Path: "/users/me/", Key: u.Key}), http.StatusUnauthorized, "locked")
		expectStatus(t, lock(admin.Key, u.ID, "unlock"), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Key: u.Key}), http.StatusOK)
		g := e.GraphQL(t, admin.Key, `mutation($id: ID!) { lockUser(id: $id) { id isLocked } }`, map[string]any{"id": u.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"isLocked":true`) {
			t.Fatalf("lockUser: %s %+v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, admin.Key, `mutation($id: ID!) { unlockUser(id: $id) { isLocked } }`, map[string]any{"id": u.ID})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"isLocked":false`) {
			t.Fatalf("unlockUser: %s %+v", g.Data, g.Errors)
		}
	})
}

// accountsSession signs u in with a User-Agent and returns the session
// cookie and CSRF token.
func accountsSession(t *testing.T, e *env, email, password, ua string) (cookie, csrf string) {
	t.Helper()
	r := e.Do(t, req{Method: http.MethodPost, Path: "/session/", Body: map[string]any{"email": email, "password": password},
		Header: map[string]string{"User-Agent": ua}})
	expectStatus(t, r, http.StatusOK)
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == auth.SessionCookie {
			cookie = c.Value
		}
	}
	var body struct {
		CSRF string `json:"csrf_token"`
	}
	r.JSON(t, &body)
	if cookie == "" || body.CSRF == "" {
		t.Fatalf("sign-in set no session: %s", r.Body)
	}
	return cookie, body.CSRF
}

// accountsAs is a request made with a session cookie (and its CSRF token).
func accountsAs(cookie, csrf string, r req) req {
	r.Header = map[string]string{"Cookie": auth.SessionCookie + "=" + cookie, auth.CSRFHeader: csrf}
	return r
}

type accountsSessionJSON struct {
	ID         int     `json:"id"`
	URL        string  `json:"url"`
	LastSeenAt *string `json:"last_seen_at"`
	ClientAddr string  `json:"client_address"`
	UserAgent  string  `json:"user_agent"`
	Current    bool    `json:"is_current"`
}

// A user lists their sessions (address, agent, last use, which is this
// one), ends one and all others, and changes their password: the current
// password is checked, the creation rules apply, other sessions end and
// this one stays.
func TestAccountsSessionsAndPassword(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "AccountsSessions")
		stranger := e.NewUser(t, "AccountsStranger")
		a, csrfA := accountsSession(t, e, u.Email, servertest.Password, "Accounts browser A")
		b, _ := accountsSession(t, e, u.Email, servertest.Password, "Accounts browser B")
		c, _ := accountsSession(t, e, u.Email, servertest.Password, "Accounts browser C")
		sx, _ := accountsSession(t, e, stranger.Email, servertest.Password, "Stranger")
		_ = sx

		r := e.Do(t, accountsAs(a, csrfA, req{Path: "/users/me/sessions/"}))
		expectStatus(t, r, http.StatusOK)
		var list []accountsSessionJSON
		r.JSON(t, &list)
		if len(list) != 3 {
			t.Fatalf("%d sessions listed, want 3: %s", len(list), r.Body)
		}
		byAgent := map[string]accountsSessionJSON{}
		for _, s := range list {
			byAgent[s.UserAgent] = s
			if s.ClientAddr != "127.0.0.1" || s.LastSeenAt == nil {
				t.Errorf("session %+v: want client address 127.0.0.1 and a last use", s)
			}
		}
		if !byAgent["Accounts browser A"].Current || byAgent["Accounts browser B"].Current {
			t.Fatalf("the current session is not the one marked: %s", r.Body)
		}
		// A token request has no current session.
		r = e.Do(t, req{Path: "/users/me/sessions/", Key: u.Key})
		expectStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), `"is_current":true`) {
			t.Fatalf("a token request has a current session: %s", r.Body)
		}
		// The stranger's session is not theirs to end.
		r = e.Do(t, req{Path: "/users/me/sessions/", Key: stranger.Key})
		var theirs []accountsSessionJSON
		r.JSON(t, &theirs)
		expectStatus(t, e.Do(t, accountsAs(a, csrfA, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/me/sessions/%d/", theirs[0].ID)})), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + sx}}), http.StatusOK)

		expectStatus(t, e.Do(t, accountsAs(a, csrfA, req{Method: http.MethodDelete, Path: fmt.Sprintf("/users/me/sessions/%d/", byAgent["Accounts browser B"].ID)})), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + b}}), http.StatusUnauthorized)
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + c}}), http.StatusOK)

		pw := func(current, next string) *servertest.Response {
			return e.Do(t, accountsAs(a, csrfA, req{Method: http.MethodPut, Path: "/users/me/password/",
				Body: map[string]any{"current_password": current, "new_password": next}}))
		}
		accountsDetail(t, pw("wrong-password", "a-new-password"), http.StatusBadRequest, "current password")
		accountsDetail(t, pw(servertest.Password, "short"), http.StatusBadRequest, "too short")
		accountsDetail(t, pw(servertest.Password, ""), http.StatusBadRequest, "required")
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + c}}), http.StatusOK)
		r = pw(servertest.Password, "a-new-password")
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"ended_sessions":1`) {
			t.Fatalf("password change answered %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + c}}), http.StatusUnauthorized)
		expectStatus(t, e.Do(t, accountsAs(a, csrfA, req{Path: "/users/me/"})), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: http.MethodPost, Path: "/session/", Body: map[string]any{"email": u.Email, "password": servertest.Password}}), http.StatusUnauthorized)
		d, _ := accountsSession(t, e, u.Email, "a-new-password", "Accounts browser D")

		r = e.Do(t, accountsAs(a, csrfA, req{Method: http.MethodPost, Path: "/users/me/sessions/end-others/", Body: map[string]any{}}))
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"ended_sessions":1`) {
			t.Fatalf("ending the others answered %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/users/me/", Header: map[string]string{"Cookie": auth.SessionCookie + "=" + d}}), http.StatusUnauthorized)
		g := e.GraphQL(t, u.Key, `{ mySessions { id current userAgent } }`, nil)
		if len(g.Errors) > 0 || strings.Count(string(g.Data), `"id"`) != 1 {
			t.Fatalf("mySessions: %s %+v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, u.Key, `mutation { changePassword(currentPassword: "wrong-password", newPassword: "another-password") }`, nil)
		if len(g.Errors) != 1 || g.Errors[0].Code() != "BAD_REQUEST" {
			t.Fatalf("changePassword with a wrong password: %+v", g.Errors)
		}
	})
}
