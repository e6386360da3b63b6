package graph

import (
	"entgo.io/contrib/entgql"

	"github.com/geopub/geopub/ent"
)

// typicalSetSize is the number of members a set's cost assumes: most sets
// hold a few dozen layers at most (sets.MaxItems bounds them).
const typicalSetSize = 25

// costSets prices the list fields of sets: connections and pages by the
// items they may return, members at a typical set's size and versions at
// the default page size.
func costSets(cfg *Config) {
	members := typicalSetSize
	cfg.Complexity.Query.Sets = func(child int, _ *entgql.Cursor[int], first *int, _ *entgql.Cursor[int], last *int, _ *ent.SetOrder, _ *ent.SetWhereInput) int {
		return listCost(child, first, last)
	}
	cfg.Complexity.Query.SetSearch = func(child int, _ *string, _ *bool, _ *SetSort, _ *int, pageSize *int) int {
		return listCost(child, pageSize, nil)
	}
	cfg.Complexity.Query.SetVersions = func(child int, _ int) int { return listCost(child, nil, nil) }
	cfg.Complexity.Set.Items = func(child int) int { return listCost(child, &members, nil) }
	cfg.Complexity.Set.Versions = func(child int) int { return listCost(child, nil, nil) }
	cfg.Complexity.SetVersion.Items = func(child int) int { return listCost(child, &members, nil) }
}
