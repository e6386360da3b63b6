package access

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/audit"
)

// GrantedOn names the dataset whose grants change: what the audit entry
// of a grant names as its target, and the groups it concerns.
type GrantedOn struct {
	// Type is the dataset's type as the API names it (layer, table,
	// set, document, item, source); Kind's name when empty.
	Type  string
	Kind  Kind
	ID    int
	Group *int
	Label string
}

func (on GrantedOn) target() audit.Target {
	id := strconv.Itoa(on.ID)
	if on.Kind == KindCatalogItem {
		id = "c" + id // catalog items' public ids, as the API gives them
	}
	return audit.Target{Type: on.typeName(), ID: id, Label: on.Label}
}

func (on GrantedOn) typeName() string {
	if on.Type != "" {
		return on.Type
	}
	if on.Kind == KindCatalogItem {
		return "item"
	}
	return string(on.Kind)
}

// RecordDeleted writes the TYPE.delete entry of the dataset on (a
// dataset's deletion is one entry, whatever else goes with it).
func RecordDeleted(ctx context.Context, c *ent.Client, on GrantedOn) error {
	return audit.Record(ctx, c, audit.Entry{Action: on.typeName() + ".delete", Target: on.target(),
		Before: map[string]any{"title": on.Label}, Groups: on.groups()})
}

// groups are the dataset's owning group and the group a grant names.
func (on GrantedOn) groups(s ...Subject) []int {
	var out []int
	if on.Group != nil {
		out = append(out, *on.Group)
	}
	for _, sub := range s {
		if sub.Kind == datasetpermission.SubjectGroup {
			out = append(out, sub.ID)
		}
	}
	return out
}

func grantFields(s Subject, p datasetpermission.Permission) map[string]any {
	return map[string]any{"subject": s.Key(), "permission": string(p)}
}

// Grant stores a new grant, as CreateGrant does, and records
// permission.grant. c must be bound to the caller's transaction
// (store.InTx), so that the grant and its entry commit together.
func Grant(ctx context.Context, c *ent.Client, on GrantedOn, s Subject, p datasetpermission.Permission) (*ent.DatasetPermission, error) {
	out, err := CreateGrant(ctx, c, on.Kind, on.ID, s, p)
	if err != nil {
		return nil, err
	}
	return out, audit.Record(ctx, c, audit.Entry{Action: "permission.grant", Target: on.target(),
		After: grantFields(s, p), Groups: on.groups(s)})
}

// ChangeGrant sets the level of grant g and records permission.change. c
// must be bound to the caller's transaction.
func ChangeGrant(ctx context.Context, c *ent.Client, on GrantedOn, g *ent.DatasetPermission, p datasetpermission.Permission) (*ent.DatasetPermission, error) {
	s := SubjectOf(g)
	out, err := c.DatasetPermission.UpdateOneID(g.ID).SetPermission(p).Save(ctx)
	if err != nil {
		return nil, err
	}
	return out, audit.Record(ctx, c, audit.Entry{Action: "permission.change", Target: on.target(),
		Before: grantFields(s, g.Permission), After: grantFields(s, p), Groups: on.groups(s)})
}

// RevokeGrant deletes grant g and records permission.revoke. c must be
// bound to the caller's transaction.
func RevokeGrant(ctx context.Context, c *ent.Client, on GrantedOn, g *ent.DatasetPermission) error {
	s := SubjectOf(g)
	if err := c.DatasetPermission.DeleteOneID(g.ID).Exec(ctx); err != nil {
		return err
	}
	return audit.Record(ctx, c, audit.Entry{Action: "permission.revoke", Target: on.target(),
		Before: grantFields(s, g.Permission), Groups: on.groups(s)})
}

// ReplaceGrants replaces every grant of a dataset with the given ones
// (subjects[i] holding perms[i]) and records one permission.replace with
// the lists before and after. c should be bound to the caller's
// transaction.
func ReplaceGrants(ctx context.Context, c *ent.Client, on GrantedOn, subjects []Subject, perms []datasetpermission.Permission) error {
	old, err := ListGrants(ctx, c, on.Kind, on.ID)
	if err != nil {
		return err
	}
	before := make(map[string]any, len(old))
	var touched []Subject
	for _, g := range old {
		before[SubjectOf(g).Key()] = string(g.Permission)
		touched = append(touched, SubjectOf(g))
	}
	if err := DeleteGrants(ctx, c, on.Kind, on.ID); err != nil {
		return err
	}
	after := make(map[string]any, len(subjects))
	for i, s := range subjects {
		if _, err := CreateGrant(ctx, c, on.Kind, on.ID, s, perms[i]); err != nil {
			return err
		}
		after[s.Key()] = string(perms[i])
		touched = append(touched, s)
	}
	return audit.Record(ctx, c, audit.Entry{Action: "permission.replace", Target: on.target(),
		Before: map[string]any{"grants": before}, After: map[string]any{"grants": after}, Groups: on.groups(touched...)})
}
