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
// at run time until it is given one), and, over fixtures of a private
// source and a published layer made from it, no caller reads through any
// nested path an object its direct lookup refuses them.
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
