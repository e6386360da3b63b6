package graph_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Arguments that pass the operation's validation but not their Go type
// are the caller's mistake, not the server's: an enum value in the wrong
// case (gqlparser checks variables' enum values without regard to case;
// ent's and entgql's enums do not), at the root or in a nested field, in
// a variable or in a list; a Time that is not RFC 3339. Each answers 200
// with a BAD_REQUEST error naming the argument path, as resolvers' field
// errors do, where it used to be an INTERNAL_SERVER_ERROR.
func TestArgumentCoercionErrorsAreClientErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		u := e.NewUser(t, "Publisher")
		gql := func(query string, vars map[string]any) servertest.GraphQLResponse {
			t.Helper()
			r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: e.HTTP.URL + "/graphql", Key: u.Key,
				Body: map[string]any{"query": query, "variables": vars}})
			if r.Status != http.StatusOK {
				t.Fatalf("%s: HTTP %d %s", query, r.Status, r.Body)
			}
			var out servertest.GraphQLResponse
			r.JSON(t, &out)
			return out
		}
		createSource := `mutation($in: CreateSourceInput!) { createSource(input: $in) { id } }`
		source := map[string]any{"title": "Survey", "urlRemote": "postgresql://127.0.0.1:1/survey",
			"options": map[string]any{"username": "reader", "sslVerify": false}}
		withType := func(typ string) map[string]any {
			in := map[string]any{"type": typ}
			for k, v := range source {
				in[k] = v
			}
			return map[string]any{"in": in}
		}
		for name, tc := range map[string]struct {
			query string
			vars  map[string]any
			field string
		}{
			"RootEnum":      {createSource, withType("POSTGRES"), "input.type"},
			"EnumInList":    {`query($t: [SourceType!]) { sourceSearch(input: {types: $t}) { pageInfo { total } } }`, map[string]any{"t": []string{"wfs", "WFS"}}, "input.types[1]"},
			"EntgqlEnum":    {`query($o: GroupOrder) { groups(first: 5, orderBy: $o) { totalCount } }`, map[string]any{"o": map[string]any{"direction": "asc", "field": "NAME"}}, "orderBy.direction"},
			"Time":          {`query($in: GroupSearchInput) { groupSearch(input: $in) { pageInfo { total } } }`, map[string]any{"in": map[string]any{"createdAfter": "yesterday"}}, "input.createdAfter"},
			"GroupTypeCase": {`query($in: GroupSearchInput) { groupSearch(input: $in) { pageInfo { total } } }`, map[string]any{"in": map[string]any{"types": []string{"Members"}}}, "input.types[0]"},
		} {
			t.Run(name, func(t *testing.T) {
				out := gql(tc.query, tc.vars)
				if len(out.Errors) != 1 || out.Errors[0].Code() != "BAD_REQUEST" || !strings.HasPrefix(out.Errors[0].Message, tc.field+": ") {
					t.Fatalf("errors %+v", out.Errors)
				}
				fields, _ := out.Errors[0].Extensions["fields"].(map[string]any)
				if _, ok := fields[tc.field]; !ok {
					t.Fatalf("fields %v, want %s", fields, tc.field)
				}
			})
		}

		// The right case works, and a nested field's argument in the
		// wrong case names that argument.
		out := gql(createSource, withType("postgres"))
		var created struct{ CreateSource struct{ ID string } }
		if len(out.Errors) != 0 || json.Unmarshal(out.Data, &created) != nil || created.CreateSource.ID == "" {
			t.Fatalf("createSource %s %+v", out.Data, out.Errors)
		}
		out = gql(`query($id: ID!, $o: DatasourceOrder) { source(id: $id) { id datasources(first: 5, orderBy: $o) { totalCount } } }`,
			map[string]any{"id": created.CreateSource.ID, "o": map[string]any{"direction": "Desc", "field": "CREATED_AT"}})
		if len(out.Errors) != 1 || out.Errors[0].Code() != "BAD_REQUEST" || !strings.HasPrefix(out.Errors[0].Message, "orderBy.direction: ") {
			t.Fatalf("nested argument: %s %+v", out.Data, out.Errors)
		}

		// A resolver's own error keeps its code.
		out = gql(`query { source(id: "999999") { id } }`, nil)
		if len(out.Errors) != 1 || out.Errors[0].Code() != "NOT_FOUND" {
			t.Fatalf("missing source: %+v", out.Errors)
		}
	})
}
