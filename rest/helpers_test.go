package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

type (
	req  = servertest.Request
	env  = servertest.Env
	user = servertest.User
)

// each runs a test body on a fresh service per backend, the backends in
// parallel (go test's -parallel bounds them): the bodies must not touch
// process-wide state such as the environment (see eachSerial).
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, d := range storetest.Backends {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, servertest.New(t, storetest.Open(t, d, storetest.Options{})))
		})
	}
}

// eachSerial is each with one backend at a time, for bodies that set the
// environment or watch what the whole process leaves behind.
func eachSerial(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fn(t, servertest.New(t, st))
	})
}

// expectStatus fails unless r has the wanted status; it prints the body.
func expectStatus(t *testing.T, r *servertest.Response, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); r.Status != http.StatusNoContent && !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	if r.Header.Get("Accepted-OAuth-Scopes") == "" {
		t.Fatal("Accepted-OAuth-Scopes header missing: every response carries it")
	}
}

// doJSON runs r, expects status and decodes the JSON answer.
func doJSON[T any](t *testing.T, e *env, r req, status int) T {
	t.Helper()
	resp := e.Do(t, r)
	expectStatus(t, resp, status)
	var v T
	resp.JSON(t, &v)
	return v
}

// expectDetail checks the status and that detail mentions want.
func expectDetail(t *testing.T, r *servertest.Response, status int, want string) {
	t.Helper()
	expectStatus(t, r, status)
	if d := r.Detail(t); !strings.Contains(d, want) {
		t.Fatalf("detail = %q, want it to mention %q", d, want)
	}
}

// authMatrix checks the answers every protected endpoint gives callers
// who may not use it: anonymous 401, a token without the scope 401 naming
// it, and (when roleless is set) a signed-in user without the role 403.
func authMatrix(t *testing.T, e *env, r req, scope string, roleless *user) {
	t.Helper()
	anon := r
	anon.Key = ""
	expectDetail(t, e.Do(t, anon), http.StatusUnauthorized, "Authentication credentials were not provided")

	if roleless != nil {
		other := "query"
		if scope == "query" {
			other = "tiles"
		}
		wrongScope := r
		wrongScope.Key = e.Token(t, roleless.User, other)
		resp := e.Do(t, wrongScope)
		// Authentication spec rule 3: "A token lacking the required scope
		// gets 401 whose detail names the missing scope."
		expectDetail(t, resp, http.StatusUnauthorized, scope)
		if got := resp.Header.Get("Accepted-OAuth-Scopes"); got != scope {
			t.Fatalf("Accepted-OAuth-Scopes = %q, want %q", got, scope)
		}
		if got := resp.Header.Get("OAuth-Scopes"); got != other {
			t.Fatalf("OAuth-Scopes = %q, want %q", got, other)
		}

		wrongRole := r
		wrongRole.Key = roleless.Key
		expectStatus(t, e.Do(t, wrongRole), http.StatusForbidden)
	}
}
