package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// permTarget is a dataset loaded for permission work.
type permTarget struct {
	kind  access.Kind
	id    int
	group *int
	label string // the dataset's title, for the audit log
}

// grantedOn is t as the audited grant writes name it.
func (t permTarget) grantedOn() access.GrantedOn {
	return access.GrantedOn{Kind: t.kind, ID: t.id, Group: t.group, Label: t.label}
}

// datasetScopes returns the token scopes that read and write a type of
// dataset.
func datasetScopes(t DatasetType) (read, write string) {
	switch t {
	case DatasetTypeDocument:
		return auth.ScopeDocumentsRead, auth.ScopeDocumentsWrite
	case DatasetTypeSet:
		return auth.ScopeSetsRead, auth.ScopeSetsWrite
	case DatasetTypeCatalogItem:
		return auth.ScopeCatalog, auth.ScopeItemsWrite
	case DatasetTypeSource:
		return auth.ScopeSourcesRead, auth.ScopeSourcesWrite
	default:
		return auth.ScopeLayersRead, auth.ScopeLayersWrite
	}
}

// itemPermTarget is a catalog item as a permission target.
func itemPermTarget(it *ent.CatalogItem) permTarget {
	return permTarget{kind: access.KindCatalogItem, id: it.ID, group: it.GroupID, label: it.Title}
}

// adminTarget loads a dataset the caller administers: NOT_FOUND when they
// cannot see it, FORBIDDEN when they see it without admin. write selects
// the write scope.
func (r *Resolver) adminTarget(ctx context.Context, t DatasetType, id int, write bool) (permTarget, error) {
	read, wscope := datasetScopes(t)
	scope := read
	if write {
		scope = wscope
	}
	if _, err := access.RequireUser(ctx, scope); err != nil {
		return permTarget{}, err
	}
	target, err := r.datasetTarget(ctx, t, id, scope)
	if err != nil {
		return permTarget{}, err
	}
	if err := r.requireDatasetAdmin(ctx, target.kind, target.id, target.group); err != nil {
		return permTarget{}, err
	}
	return target, nil
}

// datasetTarget loads a dataset the caller may see (NOT_FOUND otherwise),
// a source as its scope allows.
func (r *Resolver) datasetTarget(ctx context.Context, t DatasetType, id int, scope string) (permTarget, error) {
	var target permTarget
	switch t {
	case DatasetTypeLayer, DatasetTypeTable:
		l, err := r.loadLayer(ctx, id, false)
		if err != nil {
			return permTarget{}, err
		}
		if (l.Type == layer.TypeTable) != (t == DatasetTypeTable) {
			return permTarget{}, apperr.New(apperr.NotFound, "%s %d not found.", typeNoun(t), id)
		}
		target = permTarget{kind: access.KindLayer, id: l.ID, group: l.GroupID, label: l.Name}
	case DatasetTypeDocument:
		d, err := r.loadDocument(ctx, id, false)
		if err != nil {
			return permTarget{}, err
		}
		target = permTarget{kind: access.KindDocument, id: d.ID, group: d.GroupID, label: d.Name}
	case DatasetTypeSet:
		st, err := r.loadSet(ctx, id, false)
		if err != nil {
			return permTarget{}, err
		}
		target = permTarget{kind: access.KindSet, id: st.ID, group: st.GroupID, label: st.Title}
	case DatasetTypeCatalogItem:
		it, err := r.loadItem(ctx, ItemPublicID(id), itemRead)
		if err != nil {
			return permTarget{}, err
		}
		target = itemPermTarget(it)
	case DatasetTypeSource:
		s, err := r.loadSource(ctx, id, scope, access.View)
		if err != nil {
			return permTarget{}, err
		}
		target = sourcePermTarget(s)
	default:
		return permTarget{}, apperr.New(apperr.Invalid, "Permissions of %s datasets are not available.", typeNoun(t))
	}
	return target, nil
}

// Noun names a dataset type in messages: layer, table, catalog item.
func (t DatasetType) Noun() string { return typeNoun(t) }

// typeNoun names a dataset type in messages.
func typeNoun(t DatasetType) string {
	return strings.ReplaceAll(strings.ToLower(string(t)), "_", " ")
}

// grantRefs names the holders of grant requests for access.CheckSubjects.
func grantRefs(in []*DatasetGrantInput) []access.SubjectRef {
	out := make([]access.SubjectRef, len(in))
	for i, g := range in {
		out[i] = access.SubjectRef{User: g.User, Group: g.Group}
	}
	return out
}

// listGrants returns a dataset's grants in access.ListGrants' order, with
// the users and groups they name primed for the per-item resolvers.
func (r *Resolver) listGrants(ctx context.Context, c *ent.Client, t permTarget) ([]*ent.DatasetPermission, error) {
	ps, err := access.ListGrants(ctx, c, t.kind, t.id)
	if err != nil {
		return nil, err
	}
	return ps, r.primeGrantSubjects(ctx, ps)
}

// primeGrantSubjects loads the users and groups grants name, two queries
// for the whole list.
func (r *Resolver) primeGrantSubjects(ctx context.Context, ps []*ent.DatasetPermission) error {
	var users, groups []int
	for _, p := range ps {
		switch p.Subject {
		case datasetpermission.SubjectUser:
			users = append(users, p.SubjectID)
		case datasetpermission.SubjectGroup:
			groups = append(groups, p.SubjectID)
		}
	}
	l := loadersFrom(ctx)
	if len(users) > 0 {
		us, err := r.Client.User.Query().Where(user.IDIn(users...)).All(ctx)
		if err != nil {
			return err
		}
		l.primeUsers(us)
	}
	if len(groups) > 0 {
		gs, err := r.Client.Group.Query().Where(group.IDIn(groups...)).All(ctx)
		if err != nil {
			return err
		}
		l.primeGroups(gs)
	}
	return nil
}

// grantsIfAdmin lists a dataset's grants for its administrators, nil for
// everyone else (the field stays hidden, as REST keeps it a URL).
func (r *Resolver) grantsIfAdmin(ctx context.Context, t permTarget) ([]*ent.DatasetPermission, error) {
	lv, err := r.datasetLevel(ctx, t.kind, t.id, t.group)
	if err != nil || lv < access.Admin {
		return nil, err
	}
	return r.listGrants(ctx, r.Client, t)
}

// myPermission is the caller's own level on a dataset, nil for none.
func (r *Resolver) myPermission(ctx context.Context, t permTarget) (*datasetpermission.Permission, error) {
	lv, err := r.datasetLevel(ctx, t.kind, t.id, t.group)
	if err != nil || lv == access.None {
		return nil, err
	}
	p := lv.Permission()
	return &p, nil
}
