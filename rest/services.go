package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogrecords"
)

func (a *API) serviceRoutes(r chi.Router) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeDocument || b.typ == graph.DatasetTypeSource {
			continue // documents and sources have no services
		}
		h := datasetServices{api: a, b: b}
		base := b.member()
		r := r.With(scoped(b.read, b.write))
		r.Get(base+"/services", a.handle(h.list))
		r.Get(base+"/services/{sid}", a.handle(h.get))
		r.Put(base+"/services/{sid}", a.handle(h.setEnabled))
		r.Get(base+"/services/{sid}/permissions", a.handle(h.permissions))
		r.Put(base+"/services/{sid}/permissions", a.handle(h.setPermissions))
		r.Get(base+"/services/{sid}/permissions/{role}/access", a.handle(h.access))
		r.Post(base+"/external-services", a.handle(h.attach))
		r.Get(base+"/external-services/{sid:[0-9]+}", a.handle(h.getExternal))
		r.Put(base+"/external-services/{sid:[0-9]+}", a.handle(h.setEnabled))
		r.Delete(base+"/external-services/{sid:[0-9]+}", a.handle(h.detach))
	}
}

// datasetServices serves the services of one dataset type.
type datasetServices struct {
	api *API
	b   datasetBase
}

// serviceJSON is a service of a dataset. External services add kind
// `external`, a title, a description, their filled URLs and their
// template.
type serviceJSON struct {
	ID           string                  `json:"id"`
	Key          string                  `json:"key"`
	ServiceID    string                  `json:"service_id"`
	URL          string                  `json:"url"`
	Kind         string                  `json:"kind"`
	Enabled      bool                    `json:"enabled"`
	Configurable bool                    `json:"configurable"`
	Requires     string                  `json:"requires"`
	Accessible   bool                    `json:"accessible"`
	Permissions  *string                 `json:"permissions"`
	Title        *string                 `json:"title,omitempty"`
	Description  *string                 `json:"description,omitempty"`
	URLs         []schematype.ServiceURL `json:"urls,omitempty"`
	TemplateID   *int                    `json:"template_id,omitempty"`
}

// servicePermissionJSON is one role allowed to use a service.
type servicePermissionJSON struct {
	ID         string `json:"id"`
	Permission string `json:"permission"`
	Group      any    `json:"group,omitempty"`
	User       any    `json:"user,omitempty"`
}

func (h datasetServices) ids(r *http.Request) (int, string, error) {
	id, err := h.b.id(r)
	return id, chi.URLParam(r, "sid"), err
}

func (h datasetServices) list(w http.ResponseWriter, r *http.Request) error {
	id, _, err := h.ids(r)
	if err != nil {
		return err
	}
	ss, err := h.api.res.Query().DatasetServices(r.Context(), h.b.typ, id)
	if err != nil {
		return err
	}
	out := make([]serviceJSON, len(ss))
	for i, s := range ss {
		if out[i], err = h.render(r, id, s); err != nil {
			return err
		}
	}
	return writeList(h.api, w, r, out)
}

func (h datasetServices) get(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	s, err := h.api.res.Query().DatasetService(r.Context(), h.b.typ, id, sid)
	if err != nil {
		return err
	}
	return h.write(w, r, id, http.StatusOK, s)
}

func (h datasetServices) getExternal(w http.ResponseWriter, r *http.Request) error {
	if err := h.api.res.ExternalServicesOn(r.Context()); err != nil {
		return err
	}
	return h.get(w, r)
}

func (h datasetServices) setEnabled(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Enabled == nil {
		return apperr.Field("enabled", "This field is required: true or false.")
	}
	s, err := h.api.res.Mutation().SetServiceEnabled(r.Context(), h.b.typ, id, sid, *body.Enabled)
	if err != nil {
		return err
	}
	return h.write(w, r, id, http.StatusOK, s)
}

func (h datasetServices) permissions(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	ps, err := h.api.res.Query().ServicePermissions(r.Context(), h.b.typ, id, sid)
	if err != nil {
		return err
	}
	return h.writePermissions(w, r, ps)
}

func (h datasetServices) setPermissions(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	var body []grantBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ins := make([]*graph.ServicePermissionInput, len(body))
	for i, b := range body {
		if b.Permission != "access" {
			return apperr.Field("permission", "Service permissions are `access`.")
		}
		b.Permission = "view" // only the subject is read below
		in, err := b.input()
		if err != nil {
			return err
		}
		ins[i] = &graph.ServicePermissionInput{User: in.User, Group: in.Group}
	}
	ps, err := h.api.res.Mutation().SetServicePermissions(r.Context(), h.b.typ, id, sid, ins)
	if err != nil {
		return err
	}
	return h.writePermissions(w, r, ps)
}

func (h datasetServices) access(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	role := chi.URLParam(r, "role")
	ok, err := h.api.res.Query().ServiceAccess(r.Context(), h.b.typ, id, sid, role)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"role": role, "service": sid, "access": ok})
	return nil
}

func (h datasetServices) attach(w http.ResponseWriter, r *http.Request) error {
	id, _, err := h.ids(r)
	if err != nil {
		return err
	}
	if err := h.api.res.ExternalServicesOn(r.Context()); err != nil {
		return err
	}
	var body struct {
		TemplateID *int  `json:"template_id"`
		Enabled    *bool `json:"enabled"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.TemplateID == nil {
		return apperr.Field("template_id", "This field is required.")
	}
	s, err := h.api.res.Mutation().AttachExternalService(r.Context(), h.b.typ, id, *body.TemplateID, body.Enabled)
	if err != nil {
		return err
	}
	out, err := h.render(r, id, s)
	if err != nil {
		return err
	}
	w.Header().Set("Location", h.api.links(r).api("%s/external-services/%s/", h.b.ref(id), s.ID))
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (h datasetServices) detach(w http.ResponseWriter, r *http.Request) error {
	id, sid, err := h.ids(r)
	if err != nil {
		return err
	}
	if _, err := h.api.res.Mutation().DeleteExternalService(r.Context(), h.b.typ, id, sid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (h datasetServices) write(w http.ResponseWriter, r *http.Request, id, status int, s *graph.Service) error {
	out, err := h.render(r, id, s)
	if err != nil {
		return err
	}
	writeJSON(w, status, out)
	return nil
}

// render turns a service into its REST form.
func (h datasetServices) render(r *http.Request, id int, s *graph.Service) (serviceJSON, error) {
	ctx, l, res := r.Context(), h.api.links(r), h.api.res.Service()
	kind, _ := res.Kind(ctx, s)
	accessible, err := res.Accessible(ctx, s)
	if err != nil {
		return serviceJSON{}, err
	}
	self := l.api("%s/services/%s/", h.b.ref(id), s.ID)
	if s.External != nil {
		self = l.api("%s/external-services/%s/", h.b.ref(id), s.ID)
	}
	out := serviceJSON{
		ID: s.ID, Key: s.Service.Key, ServiceID: s.ID, URL: self, Kind: kind, Enabled: s.Enabled,
		Configurable: s.Service.Configurable, Requires: s.Required().String(), Accessible: accessible,
	}
	if s.Service.Configurable {
		p := l.api("%s/services/%s/permissions/", h.b.ref(id), s.ID)
		out.Permissions = &p
	}
	if e := s.External; e != nil {
		out.Title, out.Description, out.URLs, out.TemplateID = &e.Title, &e.Description, e.Urls, e.TemplateID
	}
	if s.External == nil && s.Service.Key == "csw" {
		if t, ok := recordTypes[h.b.typ]; ok {
			// The dataset's own CSW endpoint (ogc/csw.go).
			out.URLs = []schematype.ServiceURL{{ServiceURL: l.origin + "/services/csw/" + catalogrecords.Identifier(t, id) + "/",
				Name: "CSW 2.0.2 and 3.0"}}
		}
	}
	return out, nil
}

// recordTypes are the catalogue record types of the dataset types with a
// csw service.
var recordTypes = map[graph.DatasetType]catalogrecords.Type{graph.DatasetTypeLayer: catalogrecords.Layer,
	graph.DatasetTypeTable: catalogrecords.Table, graph.DatasetTypeSet: catalogrecords.Set,
	graph.DatasetTypeCatalogItem: catalogrecords.Item}

func (h datasetServices) writePermissions(w http.ResponseWriter, r *http.Request, ps []*ent.ServicePermission) error {
	ctx, l, res := r.Context(), h.api.links(r), h.api.res.ServicePermission()
	out := make([]servicePermissionJSON, 0, len(ps))
	for _, p := range ps {
		key, _ := res.Key(ctx, p)
		j := servicePermissionJSON{ID: key, Permission: "access"}
		if u, err := res.User(ctx, p); err != nil {
			return err
		} else if u != nil {
			j.User = l.userEmbed(u)
		}
		if g, err := res.Group(ctx, p); err != nil {
			return err
		} else if g != nil {
			j.Group = l.groupEmbed(g)
		}
		if j.User == nil && j.Group == nil {
			j.Group = specialGroup(strings.TrimPrefix(key, "group."))
		}
		out = append(out, j)
	}
	return writeList(h.api, w, r, out)
}

// specialGroup renders the everyone and administrators groups.
func specialGroup(alias string) specialGroupJSON {
	name := map[string]string{"everyone": "Everyone", "administrators": "Site Administrators"}[alias]
	if name == "" {
		name = fmt.Sprintf("Group %s", alias)
	}
	return specialGroupJSON{ID: alias, Name: name}
}
