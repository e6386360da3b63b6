// Package site holds the site-wide settings that site administrators
// switch: which optional features the site offers.
package site

import (
	"context"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/sitesetting"
	"github.com/geopub/geopub/internal/audit"
)

// The settings, by name.
const (
	// ExternalServices enables external service templates and attaching
	// them to datasets. Off by default.
	ExternalServices = "external_services"
	// EsriMap offers the esri-map service on datasets. On by default.
	EsriMap = "esri_map"
	// SSOPasswordDisabled refuses password sign-in (POST /session and the
	// password grant) to users linked to an OpenID Connect provider; they
	// sign in through the provider. Off by default.
	SSOPasswordDisabled = "sso_password_disabled"
)

// defaults are the settings of a site that never changed them.
var defaults = map[string]bool{ExternalServices: false, EsriMap: true, SSOPasswordDisabled: false}

// Names lists the settings.
func Names() []string { return []string{ExternalServices, EsriMap, SSOPasswordDisabled} }

// Known reports whether name is a setting.
func Known(name string) bool { _, ok := defaults[name]; return ok }

// Enabled reports whether a setting is on.
func Enabled(ctx context.Context, c *ent.Client, name string) (bool, error) {
	s, err := c.SiteSetting.Query().Where(sitesetting.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return defaults[name], nil
	}
	if err != nil {
		return false, fmt.Errorf("reading site setting %s: %w", name, err)
	}
	return s.Enabled, nil
}

// All returns every setting's state.
func All(ctx context.Context, c *ent.Client) (map[string]bool, error) {
	out := make(map[string]bool, len(defaults))
	for k, v := range defaults {
		out[k] = v
	}
	rows, err := c.SiteSetting.Query().All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading site settings: %w", err)
	}
	for _, r := range rows {
		if Known(r.Name) {
			out[r.Name] = r.Enabled
		}
	}
	return out, nil
}

// Set switches a setting.
func Set(ctx context.Context, c *ent.Client, name string, enabled bool) error {
	if !Known(name) {
		return fmt.Errorf("unknown site setting %q", name)
	}
	return c.SiteSetting.Create().SetName(name).SetEnabled(enabled).
		OnConflictColumns(sitesetting.FieldName).UpdateEnabled().UpdateUpdatedAt().Exec(ctx)
}

// Update switches the settings changes names, in one transaction with one
// site.settings entry of the audit log holding the settings before and
// after (t is the store: store.Store.InTx). Nothing is written when
// changes is empty.
func Update(ctx context.Context, t audit.Transactor, changes map[string]bool) error {
	if len(changes) == 0 {
		return nil
	}
	return audit.Atomically(ctx, t, func(ctx context.Context, c *ent.Client) error {
		before, after := map[string]any{}, map[string]any{}
		for name, on := range changes {
			was, err := Enabled(ctx, c, name)
			if err != nil {
				return err
			}
			if err := Set(ctx, c, name, on); err != nil {
				return err
			}
			before[name], after[name] = was, on
		}
		return audit.Record(ctx, c, audit.Entry{Action: "site.settings",
			Target: audit.Target{Type: "site", ID: "settings", Label: "Site settings"}, Before: before, After: after})
	})
}
