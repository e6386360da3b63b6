package graph

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
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/textrules"
)

// Publisher is who publishes datasets (api-shapes §10.3): a site group
// (the datasets it owns) or a user (the datasets they own without a
// group). DatasetCount counts the published datasets (layers, tables,
// sets, documents, catalog items) the caller may see; publishers with
// none the caller may see are not publishers to them.
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

// PublisherSort orders publishers: popularity (most datasets first, the
// default), name or -name.
type PublisherSort string

// Publishers lists the publishers the caller may see, filtered by q (any
// word in the name) and by kind ("site" for groups, "user"), in order.
// It reads the store, not the search index: one grouped count per dataset
// type under the caller's live visibility, then the groups and users
// named.
func (r *Resolver) Publishers(ctx context.Context, q string, kinds []string, sortBy PublisherSort) ([]Publisher, error) {
	if err := access.RequireScope(ctx, auth.ScopeCatalog); err != nil {
		return nil, err
	}
	if err := textrules.Query("q", &q); err != nil {
		return nil, err
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	type row struct {
		UserID  int  `json:"user_id"`
		GroupID *int `json:"group_id"`
		Count   int  `json:"count"`
	}
	var rows []row
	scan := func(rs []row, err error) error {
		rows = append(rows, rs...)
		return err
	}
	var part []row
	err = r.Client.Layer.Query().Where(layer.PublishedVersionIDNotNil(), v.Filter(access.KindLayer, access.View)).
		GroupBy(layer.FieldUserID, layer.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, &part)
	if err = scan(part, err); err != nil {
		return nil, err
	}
	part = nil
	err = r.Client.Set.Query().Where(set.PublishedVersionIDNotNil(), v.Filter(access.KindSet, access.View)).
		GroupBy(set.FieldUserID, set.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, &part)
	if err = scan(part, err); err != nil {
		return nil, err
	}
	part = nil
	err = r.Client.Document.Query().Where(document.PublishedVersionIDNotNil(), v.Filter(access.KindDocument, access.View)).
		GroupBy(document.FieldUserID, document.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, &part)
	if err = scan(part, err); err != nil {
		return nil, err
	}
	part = nil
	err = r.Client.CatalogItem.Query().Where(catalogitem.PublishedVersionIDNotNil(), v.Filter(access.KindCatalogItem, access.View)).
		GroupBy(catalogitem.FieldUserID, catalogitem.FieldGroupID).Aggregate(ent.Count()).Scan(ctx, &part)
	if err = scan(part, err); err != nil {
		return nil, err
	}
	groupCounts, userCounts := map[int]int{}, map[int]int{}
	for _, rw := range rows {
		if rw.GroupID != nil {
			groupCounts[*rw.GroupID] += rw.Count
		} else {
			userCounts[rw.UserID] += rw.Count
		}
	}
	want := func(k string) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	var out []Publisher
	if want("site") && len(groupCounts) > 0 {
		gs, err := r.Client.Group.Query().Where(group.IDIn(slices.Sorted(maps.Keys(groupCounts))...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, Publisher{Group: g, DatasetCount: groupCounts[g.ID]})
		}
	}
	if want("user") && len(userCounts) > 0 {
		us, err := r.Client.User.Query().Where(user.IDIn(slices.Sorted(maps.Keys(userCounts))...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			out = append(out, Publisher{User: u, DatasetCount: userCounts[u.ID]})
		}
	}
	if terms := strings.Fields(strings.ToLower(q)); len(terms) > 0 {
		kept := out[:0]
		for _, p := range out {
			name := strings.ToLower(p.Name())
			for _, t := range terms {
				if strings.Contains(name, t) {
					kept = append(kept, p)
					break
				}
			}
		}
		out = kept
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch sortBy {
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
	return out, nil
}

// RequireCatalog checks that the caller may read the catalogue (the
// catalog scope; anonymous callers and sessions pass): the explore
// sections' list, which names no dataset, checks it too.
func (r *Resolver) RequireCatalog(ctx context.Context) error {
	return access.RequireScope(ctx, auth.ScopeCatalog)
}
