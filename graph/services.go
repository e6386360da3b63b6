package graph

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/site"
)

// Service is one service of one dataset, as GraphQL and REST show it.
type Service struct {
	access.ServiceState
	Owner access.ServiceOwner
}

// SiteSettings are the site-wide switches.
type SiteSettings struct {
	ExternalServices bool
	EsriMap          bool
}

// serviceOwner loads a dataset the caller may see as a service owner,
// with the read or write scope of its type.
func (r *Resolver) serviceOwner(ctx context.Context, t DatasetType, id int, write bool) (access.ServiceOwner, error) {
	read, wscope := datasetScopes(t)
	if write {
		if _, err := access.RequireUser(ctx, wscope); err != nil {
			return access.ServiceOwner{}, err
		}
	} else if err := access.RequireScope(ctx, read); err != nil {
		return access.ServiceOwner{}, err
	}
	switch t {
	case DatasetTypeLayer, DatasetTypeTable:
		l, err := r.loadLayer(ctx, id, false)
		if err != nil {
			return access.ServiceOwner{}, err
		}
		if (l.Type == layer.TypeTable) != (t == DatasetTypeTable) {
			return access.ServiceOwner{}, apperr.New(apperr.NotFound, "%s %d not found.", typeNoun(t), id)
		}
		return layerServiceOwner(l), nil
	case DatasetTypeSet:
		st, err := r.loadSet(ctx, id, false)
		if err != nil {
			return access.ServiceOwner{}, err
		}
		return setServiceOwner(st), nil
	case DatasetTypeCatalogItem:
		it, err := r.loadItem(ctx, ItemPublicID(id), itemRead)
		if err != nil {
			return access.ServiceOwner{}, err
		}
		return itemServiceOwner(it), nil
	}
	return access.ServiceOwner{}, apperr.New(apperr.Invalid, "%s datasets have no services.", typeNoun(t))
}

// layerServiceOwner describes a layer or table as a service owner.
func layerServiceOwner(l *ent.Layer) access.ServiceOwner {
	typ := dataservices.Layer
	if l.Type == layer.TypeTable {
		typ = dataservices.Table
	}
	return access.ServiceOwner{Kind: access.KindLayer, Type: typ, ID: l.ID, Group: l.GroupID, Published: l.PublishedVersionID != nil}
}

// setServiceOwner describes a set as a service owner.
func setServiceOwner(s *ent.Set) access.ServiceOwner {
	return access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: s.ID, Group: s.GroupID, Published: s.PublishedVersionID != nil}
}

// itemServiceOwner describes a catalog item as a service owner.
func itemServiceOwner(it *ent.CatalogItem) access.ServiceOwner {
	return access.ServiceOwner{Kind: access.KindCatalogItem, Type: dataservices.CatalogItem, ID: it.ID, Group: it.GroupID,
		Published: it.PublishedVersionID != nil}
}

// ownerRef is an owner's id as its URLs name it: 12, or c12 for a
// catalog item. External service templates fill {id} with it.
func ownerRef(o access.ServiceOwner) string {
	if o.Kind == access.KindCatalogItem {
		return ItemPublicID(o.ID)
	}
	return itoa(o.ID)
}

// ownerServices lists an owner's services.
func (r *Resolver) ownerServices(ctx context.Context, o access.ServiceOwner) ([]*Service, error) {
	states, err := access.LoadServices(ctx, r.Client, o)
	if err != nil {
		return nil, err
	}
	out := make([]*Service, len(states))
	for i, st := range states {
		out[i] = &Service{ServiceState: st, Owner: o}
	}
	return out, nil
}

// ownerService returns one service of an owner, NOT_FOUND when its type
// has none with that id.
func (r *Resolver) ownerService(ctx context.Context, o access.ServiceOwner, id string) (*Service, error) {
	st, ok, err := access.LoadService(ctx, r.Client, o, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.New(apperr.NotFound, "Service %q not found on this dataset.", id)
	}
	return &Service{ServiceState: st, Owner: o}, nil
}

// configurableService loads a service its owner's administrator is
// changing: METHOD_NOT_ALLOWED unless it is configurable.
func (r *Resolver) configurableService(ctx context.Context, t DatasetType, id int, serviceID string) (*Service, error) {
	o, err := r.serviceOwner(ctx, t, id, true)
	if err != nil {
		return nil, err
	}
	if err := r.requireDatasetAdmin(ctx, o.Kind, o.ID, o.Group); err != nil {
		return nil, err
	}
	s, err := r.ownerService(ctx, o, serviceID)
	if err != nil {
		return nil, err
	}
	if !s.Service.Configurable {
		return nil, apperr.New(apperr.NotAllowed,
			"Service %q cannot be enabled, disabled or given permissions; only kart, export, wfs, wfs-changesets, tiles, data-table, spatial-query-vector, spatial-query-tiles, spatial-query-grid and external services can.", serviceID)
	}
	return s, nil
}

// setEnabled switches a configurable service.
func (r *Resolver) setEnabled(ctx context.Context, s *Service, enabled bool) error {
	if s.External != nil {
		return s.External.Update().SetEnabled(enabled).Exec(ctx)
	}
	o := s.Owner
	n, err := r.Client.DatasetService.Update().Where(datasetservice.OwnerKindEQ(o.ServiceKind()),
		datasetservice.OwnerID(o.ID), datasetservice.Key(s.Service.Key)).SetEnabled(enabled).Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	return r.Client.DatasetService.Create().SetOwnerKind(o.ServiceKind()).SetOwnerID(o.ID).
		SetKey(s.Service.Key).SetEnabled(enabled).Exec(ctx)
}

// servicePermissionList returns who may use a service, users and groups
// primed for their resolvers.
func (r *Resolver) servicePermissionList(ctx context.Context, c *ent.Client, o access.ServiceOwner, serviceID string) ([]*ent.ServicePermission, error) {
	ps, err := access.ServicePermissions(c, o, serviceID).
		Order(servicepermission.BySubject(), servicepermission.BySubjectID()).All(ctx)
	if err != nil {
		return nil, err
	}
	grants := make([]*ent.DatasetPermission, len(ps))
	for i, p := range ps {
		grants[i] = &ent.DatasetPermission{Subject: datasetpermission.Subject(p.Subject), SubjectID: p.SubjectID}
	}
	return ps, r.primeGrantSubjects(ctx, grants)
}

// roleViewer returns the viewer a role key stands for: user.{id},
// group.{id}, group.everyone or group.administrators (group aliases as
// well as ids).
func (r *Resolver) roleViewer(ctx context.Context, role string) (*access.Viewer, error) {
	g, err := access.ParseGrantKey(role)
	if err != nil || (!strings.HasPrefix(role, "user.") && !strings.HasPrefix(role, "group.")) {
		return nil, apperr.New(apperr.NotFound, "Role %q not found: give user.{id}, group.{id}, group.everyone or group.administrators.", role)
	}
	switch g.Kind {
	case datasetpermission.SubjectUser:
		u, err := r.Client.User.Query().Where(user.ID(g.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "User %d not found.", g.ID)
		}
		if err != nil {
			return nil, err
		}
		return access.NewViewer(ctx, r.Client, auth.Principal{User: u})
	case datasetpermission.SubjectGroup:
		if _, err := r.Client.Group.Get(ctx, g.ID); ent.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "Group %d not found.", g.ID)
		} else if err != nil {
			return nil, err
		}
		return access.RoleViewer(g.ID, false), nil
	case datasetpermission.SubjectAdministrators:
		return access.RoleViewer(0, true), nil
	}
	return access.RoleViewer(0, false), nil
}

// externalGate applies the external-services rules: NOT_FOUND while the
// site has them off; with siteAdmin, the caller must be a site
// administrator (FORBIDDEN otherwise).
func (r *Resolver) externalGate(ctx context.Context, siteAdmin bool) error {
	on, err := site.Enabled(ctx, r.Client, site.ExternalServices)
	if err != nil {
		return err
	}
	if !on {
		return apperr.New(apperr.NotFound, "External services are not enabled on this site.")
	}
	if siteAdmin {
		_, err = access.RequireSiteAdmin(ctx, "")
	}
	return err
}

// templateScopes are the values a template's scope may hold.
var templateScopes = []string{"all", "layer", "table", "set", "catalog_item"}

// checkTemplate validates a template request and returns its URLs.
func checkTemplate(in ExternalServiceTemplateInput) ([]schematype.ServiceURL, error) {
	if strings.TrimSpace(in.Title) == "" {
		return nil, apperr.Field("title", "This field is required.")
	}
	if n := len(in.TemplateURLs); n < 1 || n > 3 {
		return nil, apperr.Field("template_urls", fmt.Sprintf("Give 1 to 3 template URLs, not %d.", n))
	}
	urls := make([]schematype.ServiceURL, len(in.TemplateURLs))
	for i, u := range in.TemplateURLs {
		if err := dataservices.CheckTemplateURL(u.ServiceURL); err != nil {
			return nil, apperr.Field("template_urls", err.Error()+".")
		}
		urls[i] = schematype.ServiceURL{ServiceURL: strings.TrimSpace(u.ServiceURL), Name: ptrOr(u.Name, "")}
	}
	if len(in.Scope) == 0 {
		return nil, apperr.Field("scope", "Give the dataset types it attaches to, or all.")
	}
	for _, s := range in.Scope {
		if !slices.Contains(templateScopes, s) {
			return nil, apperr.Field("scope", fmt.Sprintf("%q is not one of %s.", s, strings.Join(templateScopes, ", ")))
		}
	}
	if p := ptrOr(in.AccessPolicy, "all-users"); p != "all-users" {
		return nil, apperr.Field("access_policy", fmt.Sprintf("%q is not supported: all-users (whoever may use the dataset) is.", p))
	}
	return urls, nil
}

// templateFits reports whether a template attaches to an owner type.
func templateFits(scope []string, o access.ServiceOwner) bool {
	return slices.Contains(scope, "all") || slices.Contains(scope, string(o.Type))
}

// datasetTitle is the name an owner's external services are filled with:
// its published version's, else its latest's.
func (r *Resolver) datasetTitle(ctx context.Context, o access.ServiceOwner) (string, error) {
	switch o.Kind {
	case access.KindLayer:
		l, err := r.Client.Layer.Get(ctx, o.ID)
		if err != nil {
			return "", err
		}
		return l.Name, nil
	case access.KindSet:
		st, err := r.Client.Set.Get(ctx, o.ID)
		if err != nil {
			return "", err
		}
		return st.Title, nil
	case access.KindCatalogItem:
		it, err := r.Client.CatalogItem.Get(ctx, o.ID)
		if err != nil {
			return "", err
		}
		return it.Title, nil
	}
	return "", apperr.New(apperr.Invalid, "%s datasets have no external services.", o.Kind)
}

// deleteExternalServices removes the services made from a template, with
// their permissions.
func deleteExternalServices(ctx context.Context, c *ent.Client, templateID int) error {
	rows, err := c.DatasetService.Query().Where(datasetservice.TemplateID(templateID)).All(ctx)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := c.ServicePermission.Delete().Where(access.ServicePermissionOf(access.Kind(row.OwnerKind), row.OwnerID, itoa(row.ID))).Exec(ctx); err != nil {
			return err
		}
	}
	_, err = c.DatasetService.Delete().Where(datasetservice.TemplateID(templateID)).Exec(ctx)
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }

// ExternalServicesOn fails with NOT_FOUND while the site has external
// services off: every external service endpoint answers so.
func (r *Resolver) ExternalServicesOn(ctx context.Context) error {
	return r.externalGate(ctx, false)
}
