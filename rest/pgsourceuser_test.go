package rest_test

import (
	"fmt"
	"net/http"
	"testing"
)

// Issue 24.7: a PostgreSQL source names its user; none is assumed (no
// default "postgres"). Create and update refuse a missing or blank
// username with a field error, on REST and GraphQL, and write nothing.
func TestPostgresSourceNeedsUsername(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		url := "postgresql://127.0.0.1:1/survey"
		before := e.Store.Client.Source.Query().CountX(t.Context())
		for _, opts := range []map[string]any{nil, {"password": "pw", "ssl_verify": false}, {"username": "  ", "password": "pw"}} {
			body := map[string]any{"type": "postgres", "title": "Survey", "url_remote": url}
			if opts != nil {
				body["options"] = opts
			}
			expectField(t, e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: body}),
				"options.username", "PostgreSQL sources need a username")
		}
		g := e.GraphQL(t, pub.Key, `mutation($in: CreateSourceInput!) { createSource(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"type": "postgres", "title": "Survey", "urlRemote": url, "options": map[string]any{"sslVerify": false}}})
		if len(g.Errors) != 1 || g.Errors[0].Code() != "BAD_REQUEST" {
			t.Fatalf("GraphQL without a username: %s %+v", g.Data, g.Errors)
		}
		if n := e.Store.Client.Source.Query().CountX(t.Context()); n != before {
			t.Fatalf("%d sources written", n-before)
		}

		src := doJSON[sourceRecord](t, e, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "postgres", "title": "Survey", "url_remote": url, "options": map[string]any{"username": "reader", "ssl_verify": false}}},
			http.StatusCreated)
		path := fmt.Sprintf("/sources/%d/", src.ID)
		expectField(t, e.Do(t, req{Method: "PUT", Path: path, Key: pub.Key, Body: map[string]any{"options": map[string]any{"username": ""}}}),
			"options.username", "PostgreSQL sources need a username")
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: path, Key: pub.Key, Body: map[string]any{"title": "Renamed"}}), http.StatusOK)
	})
}
