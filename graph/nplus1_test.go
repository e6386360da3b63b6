package graph_test

import (
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Nested fields of a list load in batches: 100 groups with their members,
// member counts and the caller's permission cost a constant number of
// statements.
func TestGroupConnectionStatementCountIsBounded(t *testing.T) {
	for _, d := range storetest.Backends {
		t.Run(d, func(t *testing.T) {
			counter := storetest.Counter{Only: servertest.InRequest}
			st := storetest.Open(t, d, storetest.Options{Driver: counter.Wrap})
			e := servertest.New(t, st)
			u := e.NewUser(t, "Ray")
			e.SeedGroups(t, "N", 100, u.User, "admin")

			for name, q := range map[string]string{
				"Connection": `{ groups(first: 100, where: {nameHasPrefix: "N"}) { totalCount edges { node { name membersCount myPermission permissions { id permission user { email } } } } } }`,
				"Search":     `{ groupSearch(input: {q: "N", pageSize: 100}) { items { name membersCount myPermission permissions { id user { email } } } pageInfo { total } } }`,
			} {
				counter.Reset()
				r := e.GraphQL(t, u.Key, q, nil)
				if len(r.Errors) > 0 {
					t.Fatalf("%s: %+v", name, r.Errors)
				}
				if n := counter.Count(); n > 12 {
					t.Fatalf("%s ran %d statements for 100 groups:\n%s", name, n, counter.Statements())
				} else {
					t.Logf("%s: %d statements", name, n)
				}
			}
		})
	}
}
