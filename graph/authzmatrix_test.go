package graph_test

import (
	"sort"
	"testing"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// TestGraphQLAuthorizationMatrix walks the executable schema: every field
// that returns an entity must have a guard (so a new field fails here and
// at run time until it is given one). Then (issue 11: "for every ...
// GraphQL query field and nested object field that returns an entity, as
// anonymous, outsider, viewer, downloader, editor, admin and site
// administrator, on private and public objects: 0 reads of objects the
// caller may not read") it runs a query generated from the schema for
// every root query field on a private and a public object of every kind,
// as every role, and checks every object of every answer against the
// REST API (runReadMatrix); it fails when an entity field returned
// nothing in any answer, so what the fixtures do not reach is named.
func TestGraphQLAuthorizationMatrix(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	fields := graph.EntityFields(schema)
	rules := graph.FieldGuardRules()
	var missing, stale []string
	for k := range fields {
		if rules[k] == "" {
			missing = append(missing, k)
		}
	}
	for k := range rules {
		if !fields[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("entity fields without a read guard (add them to fieldGuards): %v", missing)
	}
	if len(stale) > 0 {
		t.Errorf("fieldGuards entries for fields the schema no longer has: %v", stale)
	}

	storetest.Each(t, func(t *testing.T, st *store.Store) {
		runReadMatrix(t, schema, fields, st)
	})
}
