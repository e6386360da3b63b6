package access

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/auth"
)

// Level is a dataset permission level. Levels are ordered, each including
// the ones before it: view (see the published version and its data),
// download (export and download it), edit (see and change drafts, import,
// publish), admin (delete it, manage its permissions and services).
type Level int

// The dataset permission levels, lowest first.
const (
	None Level = iota
	View
	Download
	Edit
	Admin
)

var levelNames = [...]string{"", "view", "download", "edit", "admin"}

// String returns the level's API name ("" for None).
func (l Level) String() string {
	if l < None || l > Admin {
		return ""
	}
	return levelNames[l]
}

// ParseLevel returns the level named s (view, download, edit or admin).
func ParseLevel(s string) (Level, bool) {
	for l := View; l <= Admin; l++ {
		if levelNames[l] == s {
			return l, true
		}
	}
	return None, false
}

// LevelOf converts a stored permission to its level.
func LevelOf(p datasetpermission.Permission) Level {
	l, _ := ParseLevel(string(p))
	return l
}

// Permission converts a level to its stored form.
func (l Level) Permission() datasetpermission.Permission {
	return datasetpermission.Permission(l.String())
}

// atLeast lists the stored permissions that include l.
func (l Level) atLeast() []any {
	var out []any
	for x := max(l, View); x <= Admin; x++ {
		out = append(out, x.String())
	}
	return out
}

// Kind is the kind of a dataset as permissions name it. Layers and tables
// share one kind: they are one table of datasets.
type Kind = datasetpermission.DatasetKind

// The dataset kinds.
const (
	KindLayer       = datasetpermission.DatasetKindLayer
	KindSet         = datasetpermission.DatasetKindSet
	KindDocument    = datasetpermission.DatasetKindDocument
	KindCatalogItem = datasetpermission.DatasetKindCatalogItem
	// KindSource is not a dataset, but sources take the same levels: view
	// (see it and its datasources), download (make datasets from its
	// data), edit (change and scan it, see its URL, options and scan
	// logs), admin (delete it, manage its permissions).
	KindSource = datasetpermission.DatasetKindSource
)

// Viewer is a principal resolved for dataset access: who they are and the
// groups they belong to, loaded once per decision.
type Viewer struct {
	// UserID is 0 for anonymous callers.
	UserID    int
	SiteAdmin bool
	// groups maps each group the user belongs to onto their level there.
	groups map[int]groupmembership.Permission
}

// NewViewer resolves p: one query for its group memberships, or none when
// ctx carries a viewer memo (WithViewerMemo) that already holds them.
func NewViewer(ctx context.Context, c *ent.Client, p auth.Principal) (*Viewer, error) {
	v := &Viewer{groups: map[int]groupmembership.Permission{}}
	if !p.Authenticated() {
		return v, nil
	}
	memo := memoOf(ctx)
	if memo != nil {
		if known := memo.get(p.User.ID); known != nil && known.SiteAdmin == p.User.IsSiteAdmin {
			return known, nil
		}
	}
	v.UserID, v.SiteAdmin = p.User.ID, p.User.IsSiteAdmin
	ms, err := c.GroupMembership.Query().Where(groupmembership.UserID(p.User.ID)).
		Select(groupmembership.FieldGroupID, groupmembership.FieldPermission).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading memberships: %w", err)
	}
	for _, m := range ms {
		v.groups[m.GroupID] = m.Permission
	}
	if memo != nil {
		memo.put(v)
	}
	return v, nil
}

// ownerLevel is what membership of a dataset's owning group gives: data
// editors (edit_data, edit_users) edit its datasets, group admins
// administer them; plain members get nothing from ownership alone.
func ownerLevel(have groupmembership.Permission) Level {
	switch {
	case AtLeast(&have, groupmembership.PermissionAdmin):
		return Admin
	case AtLeast(&have, groupmembership.PermissionEditData):
		return Edit
	}
	return None
}

// ownerGroups lists the groups whose datasets v holds at least min on by
// ownership.
func (v *Viewer) ownerGroups(min Level) []any {
	var out []any
	for g, have := range v.groups {
		if ownerLevel(have) >= min {
			out = append(out, g)
		}
	}
	return out
}

// subjectTerm is one kind of grant that applies to a viewer: grants to
// subject, and when ids is not empty, only those naming one of ids.
type subjectTerm struct {
	subject datasetpermission.Subject
	ids     []any
}

// subjectTerms lists the grants that apply to v: everyone's, the user's
// own, their groups', and the administrators' for site administrators.
// Both renderings of the rule (Filter for Ent queries, VisibleSQL for
// hand-written SQL) are built from this one list.
func (v *Viewer) subjectTerms() []subjectTerm {
	out := []subjectTerm{{subject: datasetpermission.SubjectEveryone}}
	if v.UserID != 0 {
		out = append(out, subjectTerm{subject: datasetpermission.SubjectUser, ids: []any{v.UserID}})
	}
	if len(v.groups) > 0 {
		ids := make([]any, 0, len(v.groups))
		for g := range v.groups {
			ids = append(ids, g)
		}
		out = append(out, subjectTerm{subject: datasetpermission.SubjectGroup, ids: ids})
	}
	if v.SiteAdmin {
		out = append(out, subjectTerm{subject: datasetpermission.SubjectAdministrators})
	}
	return out
}

// subjects is the SQL condition matching the grants that apply to v, on
// the permission columns named by col.
func (v *Viewer) subjects(col func(string) string) *sql.Predicate {
	var ps []*sql.Predicate
	for _, t := range v.subjectTerms() {
		p := sql.EQ(col(datasetpermission.FieldSubject), t.subject)
		if len(t.ids) > 0 {
			p = sql.And(p, sql.In(col(datasetpermission.FieldSubjectID), t.ids...))
		}
		ps = append(ps, p)
	}
	return sql.Or(ps...)
}

// Filter narrows a query of datasets of kind (a table with `id` and
// `group_id` columns) to those v holds at least min on, by a grant or by
// owning-group membership. Site administrators hold admin on everything.
func (v *Viewer) Filter(kind Kind, min Level) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if v.SiteAdmin {
			// Always true, so that the filter still combines in Or/And.
			s.Where(sql.ExprP("1 = 1"))
			return
		}
		t := sql.Table(datasetpermission.Table)
		granted := sql.Select(t.C(datasetpermission.FieldDatasetID)).From(t).Where(sql.And(
			sql.EQ(t.C(datasetpermission.FieldDatasetKind), kind),
			sql.In(t.C(datasetpermission.FieldPermission), min.atLeast()...),
			v.subjects(t.C),
		))
		ps := []*sql.Predicate{sql.In(s.C("id"), granted)}
		if groups := v.ownerGroups(min); len(groups) > 0 {
			ps = append(ps, sql.In(s.C("group_id"), groups...))
		}
		s.Where(sql.Or(ps...))
	}
}

// Visible narrows a query of datasets of kind (a table with the columns
// every dataset kind has: id, group_id, published_version_id) to those v
// may know exist, as Sees has it: published ones v holds view on, and
// those v may edit.
func (v *Viewer) Visible(kind Kind) func(*sql.Selector) {
	return sql.OrPredicates(
		sql.AndPredicates(sql.FieldNotNull("published_version_id"), v.Filter(kind, View)),
		v.Filter(kind, Edit),
	)
}

// Sees reports whether a viewer holding lv on a dataset may know it
// exists: view on a published one; edit on one never published (until
// it is, it is its editors' alone). Those who may not see a dataset get
// the answer an absent one gets.
func Sees(lv Level, published bool) bool {
	return lv >= Edit || published && lv >= View
}

// Level returns what v holds on one dataset, whose owning group is
// ownerGroup (nil when a user owns it).
func (v *Viewer) Level(ctx context.Context, c *ent.Client, kind Kind, id int, ownerGroup *int) (Level, error) {
	if v.SiteAdmin {
		return Admin, nil
	}
	best := None
	if ownerGroup != nil {
		if have, ok := v.groups[*ownerGroup]; ok {
			best = ownerLevel(have)
		}
	}
	var perms []datasetpermission.Permission
	err := c.DatasetPermission.Query().
		Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(id),
			func(s *sql.Selector) { s.Where(v.subjects(s.C)) }).
		Select(datasetpermission.FieldPermission).Scan(ctx, &perms)
	if err != nil {
		return None, fmt.Errorf("loading dataset permissions: %w", err)
	}
	for _, p := range perms {
		best = max(best, LevelOf(p))
	}
	return best, nil
}

// GrantDefaults gives a new dataset its initial permissions: its creator
// administers it and everyone may view and download what is published.
// Owners change these through the permissions endpoints.
func GrantDefaults(ctx context.Context, c *ent.Client, kind Kind, id, creatorID int) error {
	if err := GrantCreator(ctx, c, kind, id, creatorID); err != nil {
		return err
	}
	return c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id).
		SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionDownload).Exec(ctx)
}

// GrantCreator makes the creator of a dataset or source its administrator,
// and no one else: what a new source starts with, since sources are
// private until their administrators share them.
func GrantCreator(ctx context.Context, c *ent.Client, kind Kind, id, creatorID int) error {
	return c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id).
		SetSubject(datasetpermission.SubjectUser).SetSubjectID(creatorID).SetPermission(datasetpermission.PermissionAdmin).Exec(ctx)
}

// GrantAtLeast makes sure user userID holds at least level l on a dataset
// through a user grant: it creates the grant, raises a lower one and
// leaves a higher one as it is. It returns the grant as it then stands.
// Approving a request for access to a dataset grants through it.
func GrantAtLeast(ctx context.Context, c *ent.Client, kind Kind, id, userID int, l Level) (*ent.DatasetPermission, error) {
	p, err := c.DatasetPermission.Query().Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(id),
		datasetpermission.SubjectEQ(datasetpermission.SubjectUser), datasetpermission.SubjectID(userID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id).
			SetSubject(datasetpermission.SubjectUser).SetSubjectID(userID).SetPermission(l.Permission()).Save(ctx)
	case err != nil:
		return nil, fmt.Errorf("loading the user's grant: %w", err)
	case LevelOf(p.Permission) >= l:
		return p, nil
	}
	return p.Update().SetPermission(l.Permission()).Save(ctx)
}

// DeleteGrants removes every permission on a dataset, when it is deleted.
func DeleteGrants(ctx context.Context, c *ent.Client, kind Kind, id int) error {
	_, err := c.DatasetPermission.Delete().
		Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(id)).Exec(ctx)
	return err
}

// Subject names one holder of grants: a subject kind and, for users and
// groups, its id.
type Subject struct {
	Kind datasetpermission.Subject
	ID   int
}

// GrantHolders lists the subjects besides everyone whose grants apply to
// v: the user, their groups and, for site administrators, the
// administrators. It is the list VisibleSQL and Filter are built from, for
// evaluators that hold the grants in memory (the catalogue's search view).
func (v *Viewer) GrantHolders() []Subject {
	var out []Subject
	for _, t := range v.subjectTerms() {
		if t.subject == datasetpermission.SubjectEveryone {
			continue
		}
		if len(t.ids) == 0 {
			out = append(out, Subject{Kind: t.subject})
			continue
		}
		for _, id := range t.ids {
			out = append(out, Subject{Kind: t.subject, ID: id.(int)})
		}
	}
	return out
}

// OwnerLevels maps each group whose datasets v holds a level on by
// membership onto that level.
func (v *Viewer) OwnerLevels() map[int]Level {
	out := map[int]Level{}
	for g, have := range v.groups {
		if l := ownerLevel(have); l > None {
			out[g] = l
		}
	}
	return out
}
