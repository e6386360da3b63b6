package access

import (
	"context"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/audit"
)

// serviceTarget names service st of o in the audit log: its id is
// OWNER_TYPE/OWNER_ID/SERVICE_ID, such as layer/4/wfs.
func serviceTarget(o ServiceOwner, serviceID, label string) audit.Target {
	return audit.Target{Type: "service", ID: fmt.Sprintf("%s/%d/%s", o.Type, o.ID, serviceID), Label: label}
}

func serviceLabel(st ServiceState) string {
	if st.External != nil {
		return st.External.Title
	}
	return st.Service.Key
}

func ownerGroups(o ServiceOwner) []int {
	if o.Group == nil {
		return nil
	}
	return []int{*o.Group}
}

// SwitchServiceAudited switches a service as SwitchService does and
// records service.enable or service.disable. c must be bound to the
// caller's transaction (store.InTx).
func SwitchServiceAudited(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState, enabled bool) error {
	action := "service.disable"
	if enabled {
		action = "service.enable"
	}
	if err := SwitchService(ctx, c, o, st, enabled); err != nil {
		return err
	}
	return audit.Record(ctx, c, audit.Entry{Action: action, Target: serviceTarget(o, st.ID, serviceLabel(st)),
		Before: map[string]any{"enabled": st.Enabled}, After: map[string]any{"enabled": enabled}, Groups: ownerGroups(o)})
}

// ReplaceServicePermissionsAudited replaces a service's permission list as
// ReplaceServicePermissions does and records one service.permissions
// entry with the lists before and after. Run it in a transaction.
func ReplaceServicePermissionsAudited(ctx context.Context, c *ent.Client, o ServiceOwner, serviceID string, subjects []Subject) error {
	old, err := c.ServicePermission.Query().Where(ServicePermissionOf(o.Kind, o.ID, serviceID)).All(ctx)
	if err != nil {
		return err
	}
	before, after := []string{}, []string{}
	groups := ownerGroups(o)
	for _, p := range old {
		s := Subject{Kind: datasetpermission.Subject(p.Subject), ID: p.SubjectID}
		before = append(before, s.Key())
	}
	for _, s := range subjects {
		after = append(after, s.Key())
	}
	if err := ReplaceServicePermissions(ctx, c, o, serviceID, subjects); err != nil {
		return err
	}
	return audit.Record(ctx, c, audit.Entry{Action: "service.permissions", Target: serviceTarget(o, serviceID, serviceID),
		Before: map[string]any{"grants": before}, After: map[string]any{"grants": after}, Groups: groups})
}

// DeleteExternalServiceAudited deletes an external service as
// DeleteExternalService does and records service.delete. Run it in a
// transaction.
func DeleteExternalServiceAudited(ctx context.Context, c *ent.Client, o ServiceOwner, st ServiceState) error {
	if err := DeleteExternalService(ctx, c, o, st); err != nil {
		return err
	}
	return audit.Record(ctx, c, audit.Entry{Action: "service.delete", Target: serviceTarget(o, st.ID, serviceLabel(st)),
		Before: map[string]any{"enabled": st.Enabled}, Groups: ownerGroups(o)})
}
