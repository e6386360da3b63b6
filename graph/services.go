package graph

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
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
	// SSOPasswordDisabled refuses password sign-in to users linked to a
	// single sign-on provider.
	SSOPasswordDisabled bool
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
		return access.LayerOwner(l), nil
	case DatasetTypeSet:
		st, err := r.loadSet(ctx, id, false)
		if err != nil {
			return access.ServiceOwner{}, err
		}
		return access.SetOwner(st), nil
	case DatasetTypeCatalogItem:
		it, err := r.loadItem(ctx, ItemPublicID(id), itemRead)
		if err != nil {
			return access.ServiceOwner{}, err
		}
		return access.CatalogItemOwner(it), nil
	}
	return access.ServiceOwner{}, apperr.New(apperr.Invalid, "%s datasets have no services.", typeNoun(t))
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

// templateOf is a template input as dataservices.CheckTemplate reads it.
func templateOf(in ExternalServiceTemplateInput) dataservices.Template {
	urls := make([]schematype.ServiceURL, len(in.TemplateURLs))
	for i, u := range in.TemplateURLs {
		urls[i] = schematype.ServiceURL{ServiceURL: u.ServiceURL, Name: ptrOr(u.Name, "")}
	}
	return dataservices.Template{Title: in.Title, URLs: urls, Scope: in.Scope,
		AccessPolicy: ptrOr(in.AccessPolicy, dataservices.AllUsers)}
}

// templateSpec is a template input, its URLs checked, as access saves it.
func templateSpec(in ExternalServiceTemplateInput, urls []schematype.ServiceURL) access.TemplateSpec {
	return access.TemplateSpec{Title: in.Title, ShortName: ptrOr(in.ShortName, ""), Description: ptrOr(in.Description, ""),
		URLs: urls, Scope: in.Scope, Enabled: ptrOr(in.Enabled, true), AccessPolicy: ptrOr(in.AccessPolicy, dataservices.AllUsers)}
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

func itoa(n int) string { return strconv.Itoa(n) }

// ExternalServicesOn fails with NOT_FOUND while the site has external
// services off: every external service endpoint answers so.
func (r *Resolver) ExternalServicesOn(ctx context.Context) error {
	return r.externalGate(ctx, false)
}
