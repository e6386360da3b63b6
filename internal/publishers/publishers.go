package publishers

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
)

// Publisher is a site group or a user with published datasets.
// DatasetCount counts the published datasets (layers, tables, sets,
// documents, catalog items) the viewer may see; publishers with none the
// viewer may see are not publishers to them.
type Publisher struct {
	Group        *ent.Group
	User         *ent.User
	DatasetCount int
}

// Name is the group's name or the user's full name.
func (p Publisher) Name() string {
	if p.Group != nil {
		return p.Group.Name
	}
	return strings.TrimSpace(p.User.FirstName + " " + p.User.LastName)
}

// Sort orders publishers: popularity (most datasets first, the default),
// name or -name.
type Sort string

// The kinds of publisher List filters by.
const (
	KindSite = "site"
	KindUser = "user"
)

// List lists the publishers v may see, filtered by q (any word in the
// name) and by kind (KindSite for groups, KindUser; none: both), in
// order. It reads the store, not the search index: one grouped count per
// dataset type under v's live visibility, then the groups and users
// named.
func List(ctx context.Context, c *ent.Client, v *access.Viewer, q string, kinds []string, by Sort) ([]Publisher, error) {
	groupCounts, userCounts, err := countPublished(ctx, c, v)
	if err != nil {
		return nil, err
	}
	want := func(k string) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	var out []Publisher
	if want(KindSite) && len(groupCounts) > 0 {
		gs, err := c.Group.Query().Where(group.IDIn(slices.Sorted(maps.Keys(groupCounts))...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, Publisher{Group: g, DatasetCount: groupCounts[g.ID]})
		}
	}
	if want(KindUser) && len(userCounts) > 0 {
		us, err := c.User.Query().Where(user.IDIn(slices.Sorted(maps.Keys(userCounts))...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			out = append(out, Publisher{User: u, DatasetCount: userCounts[u.ID]})
		}
	}
	out = named(out, q)
	sortBy(out, by)
	return out, nil
}

// ownerCount is one grouped count of published datasets by owner.
type ownerCount struct {
	UserID  int  `json:"user_id"`
	GroupID *int `json:"group_id"`
	Count   int  `json:"count"`
}

// countPublished counts the published datasets v may see, per owning
// group and, for those without one, per owning user.
func countPublished(ctx context.Context, c *ent.Client, v *access.Viewer) (groups, users map[int]int, err error) {
	counts := []func(*[]ownerCount) error{
		func(out *[]ownerCount) error {
			return c.Layer.Query().Where(layer.PublishedVersionIDNotNil(), v.Filter(access.KindLayer, access.View)).
				GroupBy(layer.FieldUserID, layer.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, out)
		},
		func(out *[]ownerCount) error {
			return c.Set.Query().Where(set.PublishedVersionIDNotNil(), v.Filter(access.KindSet, access.View)).
				GroupBy(set.FieldUserID, set.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, out)
		},
		func(out *[]ownerCount) error {
			return c.Document.Query().Where(document.PublishedVersionIDNotNil(), v.Filter(access.KindDocument, access.View)).
				GroupBy(document.FieldUserID, document.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, out)
		},
		func(out *[]ownerCount) error {
			return c.CatalogItem.Query().Where(catalogitem.PublishedVersionIDNotNil(), v.Filter(access.KindCatalogItem, access.View)).
				GroupBy(catalogitem.FieldUserID, catalogitem.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, out)
		},
	}
	var rows []ownerCount
	for _, count := range counts {
		var part []ownerCount
		if err := count(&part); err != nil {
			return nil, nil, err
		}
		rows = append(rows, part...)
	}
	groups, users = map[int]int{}, map[int]int{}
	for _, r := range rows {
		if r.GroupID != nil {
			groups[*r.GroupID] += r.Count
		} else {
			users[r.UserID] += r.Count
		}
	}
	return groups, users, nil
}

// named keeps the publishers whose name holds any word of q, case
// apart; all of them when q has none.
func named(ps []Publisher, q string) []Publisher {
	terms := strings.Fields(strings.ToLower(q))
	if len(terms) == 0 {
		return ps
	}
	kept := ps[:0]
	for _, p := range ps {
		name := strings.ToLower(p.Name())
		for _, t := range terms {
			if strings.Contains(name, t) {
				kept = append(kept, p)
				break
			}
		}
	}
	return kept
}

// sortBy orders publishers by name, by name descending (-name), or
// otherwise most datasets first, then by name.
func sortBy(ps []Publisher, by Sort) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		switch by {
		case "name":
			return strings.ToLower(a.Name()) < strings.ToLower(b.Name())
		case "-name":
			return strings.ToLower(a.Name()) > strings.ToLower(b.Name())
		}
		if a.DatasetCount != b.DatasetCount {
			return a.DatasetCount > b.DatasetCount
		}
		return strings.ToLower(a.Name()) < strings.ToLower(b.Name())
	})
}
