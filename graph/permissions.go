package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
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
	return permTarget{kind: access.KindCatalogItem, id: it.ID, group: it.GroupID}
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
		target = permTarget{kind: access.KindLayer, id: l.ID, group: l.GroupID}
	case DatasetTypeDocument:
		d, err := r.loadDocument(ctx, id, false)
		if err != nil {
			return permTarget{}, err
		}
		target = permTarget{kind: access.KindDocument, id: d.ID, group: d.GroupID}
	case DatasetTypeSet:
		st, err := r.loadSet(ctx, id, false)
		if err != nil {
			return permTarget{}, err
		}
		target = permTarget{kind: access.KindSet, id: st.ID, group: st.GroupID}
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
	if err := r.requireDatasetAdmin(ctx, target.kind, target.id, target.group); err != nil {
		return permTarget{}, err
	}
	return target, nil
}

// Noun names a dataset type in messages: layer, table, catalog item.
func (t DatasetType) Noun() string { return typeNoun(t) }

// typeNoun names a dataset type in messages.
func typeNoun(t DatasetType) string {
	return strings.ReplaceAll(strings.ToLower(string(t)), "_", " ")
}

// grantSubject is who a grant is for.
type grantSubject struct {
	subject datasetpermission.Subject
	id      int
}

// key is the grant's REST id: user.4, group.7, group.everyone,
// group.administrators.
func (g grantSubject) key() string {
	switch g.subject {
	case datasetpermission.SubjectEveryone, datasetpermission.SubjectAdministrators:
		return "group." + string(g.subject)
	}
	return fmt.Sprintf("%s.%d", g.subject, g.id)
}

// subjectOf returns who a stored grant is for.
func subjectOf(p *ent.DatasetPermission) grantSubject {
	return grantSubject{subject: p.Subject, id: p.SubjectID}
}

// parseGrantKey reads a grant id: user.{id}, group.{id}, group.everyone,
// group.administrators, or a bare group id or name as existing clients
// send.
func parseGrantKey(key string) (grantSubject, error) {
	kind, ref, ok := strings.Cut(key, ".")
	if !ok {
		kind, ref = "group", key
	}
	switch kind {
	case "user":
		id, err := strconv.Atoi(ref)
		if err != nil || id <= 0 {
			break
		}
		return grantSubject{subject: datasetpermission.SubjectUser, id: id}, nil
	case "group":
		return parseGroupRef(ref)
	}
	return grantSubject{}, apperr.New(apperr.NotFound, "Permission %q not found: ids look like user.4, group.7 or group.everyone.", key)
}

// parseGroupRef reads a group reference: an id, `everyone` or
// `administrators`.
func parseGroupRef(ref string) (grantSubject, error) {
	switch ref {
	case "everyone":
		return grantSubject{subject: datasetpermission.SubjectEveryone}, nil
	case "administrators":
		return grantSubject{subject: datasetpermission.SubjectAdministrators}, nil
	}
	id, err := strconv.Atoi(ref)
	if err != nil || id <= 0 {
		return grantSubject{}, apperr.Field("group", fmt.Sprintf("%q is not a group: give a group id, everyone or administrators.", ref))
	}
	return grantSubject{subject: datasetpermission.SubjectGroup, id: id}, nil
}

// grantOf validates one grant request.
func (r *Resolver) grantOf(ctx context.Context, in DatasetGrantInput) (grantSubject, error) {
	return r.subjectFrom(ctx, in.User, in.Group)
}

// subjectFrom validates who a grant is for: exactly one of a user and a
// group, naming a user or group that exists.
func (r *Resolver) subjectFrom(ctx context.Context, userID *int, groupRef *string) (grantSubject, error) {
	var g grantSubject
	switch {
	case userID != nil && groupRef != nil:
		return g, apperr.Field("user", "Give a user or a group, not both.")
	case userID != nil:
		g = grantSubject{subject: datasetpermission.SubjectUser, id: *userID}
		ok, err := r.Client.User.Query().Where(user.ID(g.id)).Exist(ctx)
		if err != nil {
			return g, err
		}
		if !ok {
			return g, apperr.Field("user", fmt.Sprintf("User %d does not exist.", g.id))
		}
	case groupRef != nil:
		var err error
		if g, err = parseGroupRef(strings.TrimSpace(*groupRef)); err != nil {
			return g, err
		}
		if g.subject == datasetpermission.SubjectGroup {
			ok, err := r.Client.Group.Query().Where(group.ID(g.id)).Exist(ctx)
			if err != nil {
				return g, err
			}
			if !ok {
				return g, apperr.Field("group", fmt.Sprintf("Group %d does not exist.", g.id))
			}
		}
	default:
		return g, apperr.Field("user", "Give a user or a group.")
	}
	return g, nil
}

// grantQuery selects the grants of one dataset.
func (r *Resolver) grantQuery(c *ent.Client, t permTarget) *ent.DatasetPermissionQuery {
	return c.DatasetPermission.Query().
		Where(datasetpermission.DatasetKindEQ(t.kind), datasetpermission.DatasetID(t.id))
}

// findGrant returns a dataset's grant for a subject, NOT_FOUND if none.
func (r *Resolver) findGrant(ctx context.Context, c *ent.Client, t permTarget, key string) (*ent.DatasetPermission, error) {
	g, err := parseGrantKey(key)
	if err != nil {
		return nil, apperr.New(apperr.NotFound, "Permission %q not found.", key)
	}
	p, err := r.grantQuery(c, t).Where(datasetpermission.SubjectEQ(g.subject), datasetpermission.SubjectID(g.id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Permission %q not found.", key)
	}
	return p, err
}

// listGrants returns a dataset's grants in a stable order (everyone and
// administrators, then groups, then users, each by id), with the users and
// groups they name primed for the per-item resolvers.
func (r *Resolver) listGrants(ctx context.Context, c *ent.Client, t permTarget) ([]*ent.DatasetPermission, error) {
	ps, err := r.grantQuery(c, t).All(ctx)
	if err != nil {
		return nil, err
	}
	rank := map[datasetpermission.Subject]int{
		datasetpermission.SubjectEveryone: 0, datasetpermission.SubjectAdministrators: 1,
		datasetpermission.SubjectGroup: 2, datasetpermission.SubjectUser: 3,
	}
	sort.Slice(ps, func(i, j int) bool {
		if rank[ps[i].Subject] != rank[ps[j].Subject] {
			return rank[ps[i].Subject] < rank[ps[j].Subject]
		}
		return ps[i].SubjectID < ps[j].SubjectID
	})
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

// createGrant stores a new grant; CONFLICT when the subject already holds
// one on the dataset.
func (r *Resolver) createGrant(ctx context.Context, c *ent.Client, t permTarget, g grantSubject, lv datasetpermission.Permission) (*ent.DatasetPermission, error) {
	exists, err := r.grantQuery(c, t).Where(datasetpermission.SubjectEQ(g.subject), datasetpermission.SubjectID(g.id)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, apperr.New(apperr.Conflict, "%s already holds a permission on this dataset; change it instead.", g.key())
	}
	return c.DatasetPermission.Create().SetDatasetKind(t.kind).SetDatasetID(t.id).
		SetSubject(g.subject).SetSubjectID(g.id).SetPermission(lv).Save(ctx)
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
