package access

import (
	"context"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// SwitchService turns one configurable service of o on or off: an
// external service's own row, or the switch row of a built-in one,
// created the first time it is switched.
func SwitchService(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState, enabled bool) error {
	if st.External != nil {
		// Through c: the entity's own client is outside the caller's
		// transaction (on SQLite it would wait on that transaction's lock).
		return c.DatasetService.UpdateOne(st.External).SetEnabled(enabled).Exec(ctx)
	}
	n, err := c.DatasetService.Update().Where(datasetservice.OwnerKindEQ(o.ServiceKind()),
		datasetservice.OwnerID(o.ID), datasetservice.Key(st.Service.Key)).SetEnabled(enabled).Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	return c.DatasetService.Create().SetOwnerKind(o.ServiceKind()).SetOwnerID(o.ID).
		SetKey(st.Service.Key).SetEnabled(enabled).Exec(ctx)
}

// ReplaceServicePermissions makes subjects the whole permission list of
// service serviceID of o. Run it in a transaction: it deletes, then
// creates.
func ReplaceServicePermissions(ctx context.Context, c *ent.Client, o ServiceOwner, serviceID string, subjects []Subject) error {
	if _, err := c.ServicePermission.Delete().Where(ServicePermissionOf(o.Kind, o.ID, serviceID)).Exec(ctx); err != nil {
		return err
	}
	for _, s := range subjects {
		if err := c.ServicePermission.Create().SetOwnerKind(servicepermission.OwnerKind(o.Kind)).SetOwnerID(o.ID).
			SetServiceID(serviceID).SetSubject(servicepermission.Subject(s.Kind)).SetSubjectID(s.ID).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// DeleteExternalService removes an external service of o with its
// permission list. Run it in a transaction.
func DeleteExternalService(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState) error {
	if _, err := c.ServicePermission.Delete().Where(ServicePermissionOf(o.Kind, o.ID, st.ID)).Exec(ctx); err != nil {
		return err
	}
	return c.DatasetService.DeleteOne(st.External).Exec(ctx)
}

// DeleteTemplateServices removes the services made from an external
// service template, with their permissions, when the template goes. Run
// it in a transaction. It returns how many services went.
func DeleteTemplateServices(ctx context.Context, c *ent.Client, templateID int) (int, error) {
	rows, err := c.DatasetService.Query().Where(datasetservice.TemplateID(templateID)).All(ctx)
	if err != nil {
		return 0, err
	}
	for _, row := range rows {
		if _, err := c.ServicePermission.Delete().Where(ServicePermissionOf(Kind(row.OwnerKind), row.OwnerID, strconv.Itoa(row.ID))).Exec(ctx); err != nil {
			return 0, err
		}
	}
	return c.DatasetService.Delete().Where(datasetservice.TemplateID(templateID)).Exec(ctx)
}

// ViewerOfRole returns the viewer a role key stands for in service access
// questions: user.{id} (that user as they are), group.{id} (the group's
// members by that membership alone), group.everyone or
// group.administrators (group aliases as well as ids). An unknown user or
// group is NOT_FOUND.
func ViewerOfRole(ctx context.Context, c *ent.Client, role string) (*Viewer, error) {
	s, err := ParseGrantKey(role)
	if err != nil || (!strings.HasPrefix(role, "user.") && !strings.HasPrefix(role, "group.")) {
		return nil, apperr.New(apperr.NotFound, "Role %q not found: give user.{id}, group.{id}, group.everyone or group.administrators.", role)
	}
	switch s.Kind {
	case datasetpermission.SubjectUser:
		u, err := c.User.Query().Where(user.ID(s.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "User %d not found.", s.ID)
		}
		if err != nil {
			return nil, err
		}
		return NewViewer(ctx, c, auth.Principal{User: u})
	case datasetpermission.SubjectGroup:
		if _, err := c.Group.Get(ctx, s.ID); ent.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "Group %d not found.", s.ID)
		} else if err != nil {
			return nil, err
		}
		return RoleViewer(s.ID, false), nil
	case datasetpermission.SubjectAdministrators:
		return RoleViewer(0, true), nil
	}
	return RoleViewer(0, false), nil
}
