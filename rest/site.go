package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/graph"
)

func (a *API) siteRoutes(r chi.Router) {
	r.Get("/site/settings", a.handle(a.getSiteSettings))
	r.Put("/site/settings", a.handle(a.updateSiteSettings))
	r.Get("/site/external-service-templates", a.handle(a.listTemplates))
	r.Post("/site/external-service-templates", a.handle(a.createTemplate))
	r.Get("/site/external-service-templates/{tid:[0-9]+}", a.handle(a.getTemplate))
	r.Put("/site/external-service-templates/{tid:[0-9]+}", a.handle(a.updateTemplate))
	r.Delete("/site/external-service-templates/{tid:[0-9]+}", a.handle(a.deleteTemplate))
}

// siteSettingsJSON are the site-wide switches.
type siteSettingsJSON struct {
	ExternalServices *bool `json:"external_services"`
	EsriMap          *bool `json:"esri_map"`
	// SSOPasswordDisabled refuses password sign-in to users linked to a
	// single sign-on provider.
	SSOPasswordDisabled *bool `json:"sso_password_disabled"`
}

// templateJSON is an external service template.
type templateJSON struct {
	ID           int                     `json:"id"`
	URL          string                  `json:"url"`
	Title        string                  `json:"title"`
	ShortName    string                  `json:"short_name"`
	Description  string                  `json:"description"`
	TemplateURLs []schematype.ServiceURL `json:"template_urls"`
	Scope        []string                `json:"scope"`
	Enabled      bool                    `json:"enabled"`
	AccessPolicy string                  `json:"access_policy"`
}

// templateBody is a template as clients send it.
type templateBody struct {
	Title        string                  `json:"title"`
	ShortName    *string                 `json:"short_name"`
	Description  *string                 `json:"description"`
	TemplateURLs []schematype.ServiceURL `json:"template_urls"`
	Scope        []string                `json:"scope"`
	Enabled      *bool                   `json:"enabled"`
	AccessPolicy *string                 `json:"access_policy"`
}

func (b templateBody) input() graph.ExternalServiceTemplateInput {
	urls := make([]*graph.ServiceURLInput, len(b.TemplateURLs))
	for i, u := range b.TemplateURLs {
		name := u.Name
		urls[i] = &graph.ServiceURLInput{ServiceURL: u.ServiceURL, Name: &name}
	}
	return graph.ExternalServiceTemplateInput{Title: b.Title, ShortName: b.ShortName, Description: b.Description,
		TemplateURLs: urls, Scope: b.Scope, Enabled: b.Enabled, AccessPolicy: b.AccessPolicy}
}

func (a *API) getSiteSettings(w http.ResponseWriter, r *http.Request) error {
	s, err := a.res.Query().SiteSettings(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, siteSettingsJSON{ExternalServices: &s.ExternalServices, EsriMap: &s.EsriMap, SSOPasswordDisabled: &s.SSOPasswordDisabled})
	return nil
}

func (a *API) updateSiteSettings(w http.ResponseWriter, r *http.Request) error {
	var body siteSettingsJSON
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	s, err := a.res.Mutation().UpdateSiteSettings(r.Context(), graph.SiteSettingsInput{ExternalServices: body.ExternalServices, EsriMap: body.EsriMap,
		SsoPasswordDisabled: body.SSOPasswordDisabled})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, siteSettingsJSON{ExternalServices: &s.ExternalServices, EsriMap: &s.EsriMap, SSOPasswordDisabled: &s.SSOPasswordDisabled})
	return nil
}

func (a *API) listTemplates(w http.ResponseWriter, r *http.Request) error {
	ts, err := a.res.Query().ExternalServiceTemplates(r.Context())
	if err != nil {
		return err
	}
	out := make([]templateJSON, len(ts))
	for i, t := range ts {
		out[i] = a.links(r).template(t)
	}
	return writeList(a, w, r, out)
}

func (a *API) getTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	t, err := a.res.Query().ExternalServiceTemplate(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).template(t))
	return nil
}

func (a *API) createTemplate(w http.ResponseWriter, r *http.Request) error {
	// The feature switch and the caller's role come before the body.
	if _, err := a.res.Query().ExternalServiceTemplates(r.Context()); err != nil {
		return err
	}
	var body templateBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	t, err := a.res.Mutation().CreateExternalServiceTemplate(r.Context(), body.input())
	if err != nil {
		return err
	}
	out := a.links(r).template(t)
	w.Header().Set("Location", out.URL)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (a *API) updateTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	if _, err := a.res.Query().ExternalServiceTemplate(r.Context(), id); err != nil {
		return err
	}
	var body templateBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	t, err := a.res.Mutation().UpdateExternalServiceTemplate(r.Context(), id, body.input())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).template(t))
	return nil
}

func (a *API) deleteTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteExternalServiceTemplate(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (l links) template(t *ent.ExternalServiceTemplate) templateJSON {
	urls := t.TemplateUrls
	if urls == nil {
		urls = []schematype.ServiceURL{}
	}
	return templateJSON{ID: t.ID, URL: l.api("site/external-service-templates/%d/", t.ID), Title: t.Title,
		ShortName: t.ShortName, Description: t.Description, TemplateURLs: urls, Scope: t.Scope,
		Enabled: t.Enabled, AccessPolicy: t.AccessPolicy}
}
