package searchfeed

import (
	"maps"
	"slices"
)

// Datasets names datasets to (re)index by the table they live in. Layers
// holds layers and tables alike (one table of datasets); Groups and Users
// stand for every dataset they own or published (a rename changes the
// publisher text of each).
type Datasets struct {
	Layers, Sets, Documents, Items, Sources map[int]bool
	Groups, Users                           map[int]bool
}

func add(m *map[int]bool, ids ...int) {
	if len(ids) == 0 {
		return
	}
	if *m == nil {
		*m = map[int]bool{}
	}
	for _, id := range ids {
		if id > 0 {
			(*m)[id] = true
		}
	}
}

// AddLayers adds layers or tables.
func (d *Datasets) AddLayers(ids ...int) { add(&d.Layers, ids...) }

// AddSets adds sets.
func (d *Datasets) AddSets(ids ...int) { add(&d.Sets, ids...) }

// AddDocuments adds documents.
func (d *Datasets) AddDocuments(ids ...int) { add(&d.Documents, ids...) }

// AddItems adds catalog items.
func (d *Datasets) AddItems(ids ...int) { add(&d.Items, ids...) }

// AddSources adds sources.
func (d *Datasets) AddSources(ids ...int) { add(&d.Sources, ids...) }

// AddGroups adds every dataset the groups own.
func (d *Datasets) AddGroups(ids ...int) { add(&d.Groups, ids...) }

// AddUsers adds every dataset the users created.
func (d *Datasets) AddUsers(ids ...int) { add(&d.Users, ids...) }

// Empty reports whether d names nothing.
func (d *Datasets) Empty() bool {
	return len(d.Layers)+len(d.Sets)+len(d.Documents)+len(d.Items)+len(d.Sources)+len(d.Groups)+len(d.Users) == 0
}

// Merge adds everything o names to d.
func (d *Datasets) Merge(o Datasets) {
	add(&d.Layers, keys(o.Layers)...)
	add(&d.Sets, keys(o.Sets)...)
	add(&d.Documents, keys(o.Documents)...)
	add(&d.Items, keys(o.Items)...)
	add(&d.Sources, keys(o.Sources)...)
	add(&d.Groups, keys(o.Groups)...)
	add(&d.Users, keys(o.Users)...)
}

// keys returns m's keys in ascending order.
func keys(m map[int]bool) []int {
	return slices.Sorted(maps.Keys(m))
}

// chunks splits ids into slices of at most n.
func chunks(ids []int, n int) [][]int {
	var out [][]int
	for start := 0; start < len(ids); start += n {
		out = append(out, ids[start:min(start+n, len(ids))])
	}
	return out
}
