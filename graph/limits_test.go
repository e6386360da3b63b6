package graph_test

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Operations are bounded: nesting deeper than limits.Default.MaxDepth and estimated cost
// above MaxComplexity are refused before anything runs.
func TestOperationLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		u := e.NewUser(t, "Quinn")

		deep := "{ me { access { on { permissions { group { permissions { group { permissions { user { access { on { permissions { id } } } } } } } } } } } } }"
		r := e.GraphQL(t, u.Key, deep, nil)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" || string(r.Data) != "null" && r.Data != nil {
			t.Fatalf("deep operation: %s %+v", r.Data, r.Errors)
		}

		// 200 groups × 200 groups of users is far past the budget.
		costly := "{ groups(first: 200) { edges { node { permissions { user { id } } } } } a: groups(first: 200) { totalCount } b: users(first: 200) { totalCount } }"
		var many []string
		for i := 0; i < 30; i++ {
			many = append(many, strings.Replace(costly[2:len(costly)-2], "groups(", "g"+string(rune('a'+i%26))+string(rune('a'+i/26))+": groups(", 1))
		}
		r = e.GraphQL(t, u.Key, "{ "+strings.Join(many, " ")+" }", nil)
		if len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "complexity") {
			t.Fatalf("costly operation: %+v", r.Errors)
		}

		// Within the limits, the same shapes work.
		r = e.GraphQL(t, u.Key, "{ me { access { on { name } } } groups(first: 10) { totalCount edges { node { name myPermission } } } }", nil)
		if len(r.Errors) != 0 {
			t.Fatalf("ordinary operation: %+v", r.Errors)
		}
		// Relay connections are capped like the REST lists.
		r = e.GraphQL(t, u.Key, "{ groups(first: 201) { totalCount } }", nil)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" {
			t.Fatalf("first: 201: %+v", r.Errors)
		}
	})
}
