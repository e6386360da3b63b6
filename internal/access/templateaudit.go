package access

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/dataservices"
)

// TemplateSpec is an external service template as a site administrator
// saves it, its URLs checked (dataservices.CheckTemplate).
type TemplateSpec struct {
	Title, ShortName, Description string
	URLs                          []schematype.ServiceURL
	Scope                         []string
	Enabled                       bool
	AccessPolicy                  string
}

// templateTarget names template t in the audit log.
func templateTarget(t *ent.ExternalServiceTemplate) audit.Target {
	return audit.Target{Type: "external_service_template", ID: strconv.Itoa(t.ID), Label: t.Title}
}

// templateFields are the audited fields of template t.
func templateFields(t *ent.ExternalServiceTemplate) map[string]any {
	return map[string]any{"title": t.Title, "short_name": t.ShortName, "description": t.Description,
		"template_urls": t.TemplateUrls, "scope": t.Scope, "enabled": t.Enabled, "access_policy": t.AccessPolicy}
}

// CreateTemplate stores a new external service template and records
// external_service_template.create. c must be bound to the caller's
// transaction (store.InTx).
func CreateTemplate(ctx context.Context, c *ent.Client, s TemplateSpec) (*ent.ExternalServiceTemplate, error) {
	t, err := c.ExternalServiceTemplate.Create().SetTitle(s.Title).SetShortName(s.ShortName).
		SetDescription(s.Description).SetTemplateUrls(s.URLs).SetScope(s.Scope).
		SetEnabled(s.Enabled).SetAccessPolicy(s.AccessPolicy).Save(ctx)
	if err != nil {
		return nil, err
	}
	return t, audit.Record(ctx, c, audit.Entry{Action: "external_service_template.create", Target: templateTarget(t),
		After: templateFields(t)})
}

// UpdateTemplate replaces template t's fields with s and records
// external_service_template.update with the fields that changed (no entry
// when none did). Services already attached keep their URLs. c must be
// bound to the caller's transaction.
func UpdateTemplate(ctx context.Context, c *ent.Client, t *ent.ExternalServiceTemplate, s TemplateSpec) (*ent.ExternalServiceTemplate, error) {
	out, err := c.ExternalServiceTemplate.UpdateOne(t).SetTitle(s.Title).SetShortName(s.ShortName).
		SetDescription(s.Description).SetTemplateUrls(s.URLs).SetScope(s.Scope).
		SetEnabled(s.Enabled).SetAccessPolicy(s.AccessPolicy).Save(ctx)
	if err != nil {
		return nil, err
	}
	before, after := audit.Changed(templateFields(t), templateFields(out))
	if len(after) == 0 {
		return out, nil
	}
	return out, audit.Record(ctx, c, audit.Entry{Action: "external_service_template.update", Target: templateTarget(out),
		Before: before, After: after})
}

// DeleteTemplate deletes template t with the services made from it and
// their permissions, and records external_service_template.delete with
// how many services went. c must be bound to the caller's transaction.
func DeleteTemplate(ctx context.Context, c *ent.Client, t *ent.ExternalServiceTemplate) error {
	n, err := DeleteTemplateServices(ctx, c, t.ID)
	if err != nil {
		return err
	}
	if err := c.ExternalServiceTemplate.DeleteOne(t).Exec(ctx); err != nil {
		return err
	}
	before := templateFields(t)
	before["services"] = n
	return audit.Record(ctx, c, audit.Entry{Action: "external_service_template.delete", Target: templateTarget(t), Before: before})
}

// AttachExternalService attaches an external service made from template
// t, its URLs filled for owner o, and records service.attach. c must be
// bound to the caller's transaction.
func AttachExternalService(ctx context.Context, c *ent.Client, o ServiceOwner, t *ent.ExternalServiceTemplate, urls []schematype.ServiceURL, enabled bool) (*ent.DatasetService, error) {
	row, err := c.DatasetService.Create().SetOwnerKind(o.ServiceKind()).SetOwnerID(o.ID).
		SetKey(dataservices.ExternalKey).SetEnabled(enabled).SetTemplateID(t.ID).
		SetTitle(t.Title).SetDescription(t.Description).SetUrls(urls).Save(ctx)
	if err != nil {
		return nil, err
	}
	return row, audit.Record(ctx, c, audit.Entry{Action: "service.attach", Target: serviceTarget(o, strconv.Itoa(row.ID), row.Title),
		After: map[string]any{"template_id": t.ID, "enabled": enabled, "urls": urls}, Groups: ownerGroups(o)})
}
