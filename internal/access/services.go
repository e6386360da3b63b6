package access

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/ent/externalservicetemplate"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/site"
)

// ServiceOwner is a dataset that services attach to.
type ServiceOwner struct {
	Kind Kind
	// Type is the owner type of the service catalogue (layer and table
	// are both KindLayer).
	Type dataservices.Owner
	ID   int
	// Group is the owning group, nil when a user owns it.
	Group *int
	// Published reports whether the dataset has a published version:
	// until it has, only its editors use its services.
	Published bool
}

// ServiceKind is the stored owner kind of an owner.
func (o ServiceOwner) ServiceKind() datasetservice.OwnerKind {
	return datasetservice.OwnerKind(o.Kind)
}

// ServiceState is one service of one owner as it stands.
type ServiceState struct {
	// ID is the service's id in URLs: its key, or the row id of an
	// external service.
	ID      string
	Service dataservices.Service
	Enabled bool
	// External is the row of an external service, nil for built-in ones.
	External *ent.DatasetService
}

// Required is the owner permission the service needs (rule 1): download
// for download-class services, view for the others and external ones.
func (s ServiceState) Required() Level {
	if s.External == nil && s.Service.Class == dataservices.DownloadClass {
		return Download
	}
	return View
}

// LoadServices returns every service of o in the catalogue's order,
// external ones last: three queries whatever their number.
func LoadServices(ctx context.Context, c *ent.Client, o ServiceOwner) ([]ServiceState, error) {
	rows, err := c.DatasetService.Query().Where(datasetservice.OwnerKindEQ(o.ServiceKind()),
		datasetservice.OwnerID(o.ID)).Order(datasetservice.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := site.All(ctx, c)
	if err != nil {
		return nil, err
	}
	switched := map[string]bool{}
	var external []*ent.DatasetService
	var templateIDs []int
	for _, row := range rows {
		if row.Key == dataservices.ExternalKey {
			external = append(external, row)
			if row.TemplateID != nil {
				templateIDs = append(templateIDs, *row.TemplateID)
			}
			continue
		}
		switched[row.Key] = row.Enabled
	}
	var out []ServiceState
	for _, svc := range dataservices.For(o.Type) {
		key := svc.Key
		if svc.UI {
			key = svc.Follows
		}
		on, ok := switched[key]
		if !ok {
			on = true
		}
		if svc.SiteSetting {
			on = settings[site.EsriMap]
		}
		out = append(out, ServiceState{ID: svc.Key, Service: svc, Enabled: on})
	}
	if len(external) == 0 {
		return out, nil
	}
	live, err := c.ExternalServiceTemplate.Query().
		Where(externalservicetemplate.IDIn(templateIDs...), externalservicetemplate.Enabled(true)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, row := range external {
		on := row.Enabled && settings[site.ExternalServices] && row.TemplateID != nil && slices.Contains(live, *row.TemplateID)
		out = append(out, ServiceState{ID: strconv.Itoa(row.ID), Service: dataservices.External, Enabled: on, External: row})
	}
	return out, nil
}

// LoadService returns the current state of one service of o; ok is false
// when o's type has no such service.
func LoadService(ctx context.Context, c *ent.Client, o ServiceOwner, id string) (ServiceState, bool, error) {
	all, err := LoadServices(ctx, c, o)
	if err != nil {
		return ServiceState{}, false, err
	}
	for _, st := range all {
		if st.ID == id {
			return st, true, nil
		}
	}
	return ServiceState{}, false, nil
}

// MayUseService answers "may v use service id of owner o?", the one rule
// every consumer of a service (point queries, exports, data services)
// asks. The spec's service-permission rules: the service must be enabled;
// with an empty permission list, the owner permission of rule 1 decides
// (download for kart, export, wfs, wfs-changesets; view for the others);
// with a non-empty list, only listed users and groups use it, and each
// must also hold that owner permission (rule 3), while owner admins always
// may (rule 2). An unpublished dataset's services serve its editors only.
func (v *Viewer) MayUseService(ctx context.Context, c *ent.Client, o ServiceOwner, id string) (bool, error) {
	st, ok, err := LoadService(ctx, c, o, id)
	if err != nil || !ok {
		return false, err
	}
	return v.MayUseServiceState(ctx, c, o, st)
}

func (v *Viewer) mayUse(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState) (bool, error) {
	lv, err := v.Level(ctx, c, o.Kind, o.ID, o.Group)
	if err != nil {
		return false, err
	}
	if ok, decided := byLevel(lv, o, st); decided {
		return ok, nil
	}
	listed, err := ServicePermissions(c, o, st.ID).Count(ctx)
	if err != nil || listed == 0 {
		return err == nil, err
	}
	return ServicePermissions(c, o, st.ID).
		Where(func(s *sql.Selector) { s.Where(v.subjects(s.C)) }).Exist(ctx)
}

// byLevel is the part of the service rule that the caller's level on the
// owner decides alone: owner admins always use a service; below its
// owner permission, or below edit on an unpublished owner, never. When
// decided is false, the service's permission list decides.
func byLevel(lv Level, o ServiceOwner, st ServiceState) (ok, decided bool) {
	switch {
	case lv == Admin:
		return true, true
	case lv < st.Required(), !o.Published && lv < Edit:
		return false, true
	}
	return false, false
}

// ServicePermissions selects the permission list of one service of o.
func ServicePermissions(c *ent.Client, o ServiceOwner, serviceID string) *ent.ServicePermissionQuery {
	return c.ServicePermission.Query().Where(ServicePermissionOf(o.Kind, o.ID, serviceID))
}

// ServicePermissionOf matches the permission list of one service of an
// owner.
func ServicePermissionOf(kind Kind, ownerID int, serviceID string) predicate.ServicePermission {
	return servicepermission.And(servicepermission.OwnerKindEQ(servicepermission.OwnerKind(kind)),
		servicepermission.OwnerID(ownerID), servicepermission.ServiceID(serviceID))
}

// RoleViewer is the viewer standing for a role in access checks: a group's
// members by that membership alone (groupID), everyone (anonymous), or the
// site administrators.
func RoleViewer(groupID int, administrators bool) *Viewer {
	v := &Viewer{SiteAdmin: administrators, groups: map[int]groupmembership.Permission{}}
	if groupID != 0 {
		v.groups[groupID] = groupmembership.PermissionMember
	}
	return v
}

// MayUseServiceState is MayUseService for a service already loaded. A
// service within another (wfs-changesets within wfs) also needs v to
// may use that one: switched off, the other takes this one with it.
func (v *Viewer) MayUseServiceState(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState) (bool, error) {
	if !st.Enabled {
		return false, nil
	}
	ok, err := v.mayUse(ctx, c, o, st)
	if err != nil {
		return false, fmt.Errorf("deciding service access: %w", err)
	}
	if ok && st.External == nil && st.Service.Within != "" {
		return v.MayUseService(ctx, c, o, st.Service.Within)
	}
	return ok, nil
}

// ForgetDataset removes everything kept about who may use a deleted
// dataset: its permissions, its service settings and service permissions;
// and records the deletion in the audit log (RecordDeleted). Call it in
// the deletion's transaction.
func ForgetDataset(ctx context.Context, c *ent.Client, on GrantedOn) error {
	if err := forgetDataset(ctx, c, on.Kind, on.ID); err != nil {
		return err
	}
	return RecordDeleted(ctx, c, on)
}

func forgetDataset(ctx context.Context, c *ent.Client, kind Kind, id int) error {
	if err := DeleteGrants(ctx, c, kind, id); err != nil {
		return err
	}
	if _, err := c.ServicePermission.Delete().Where(servicepermission.OwnerKindEQ(servicepermission.OwnerKind(kind)),
		servicepermission.OwnerID(id)).Exec(ctx); err != nil {
		return err
	}
	_, err := c.DatasetService.Delete().Where(datasetservice.OwnerKindEQ(datasetservice.OwnerKind(kind)),
		datasetservice.OwnerID(id)).Exec(ctx)
	return err
}
