package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
)

func (a *API) permissionRoutes(r chi.Router) {
	for _, b := range datasetBases {
		h := datasetPermissions{api: a, b: b}
		perms := b.member() + "/permissions"
		r := r.With(scoped(b.read, b.write))
		r.Get(perms, a.handle(h.list))
		r.Post(perms, a.handle(h.create))
		r.Put(perms, a.handle(h.replace))
		r.Get(perms+"/{pid}", a.handle(h.get))
		r.Put(perms+"/{pid}", a.handle(h.update))
		r.Delete(perms+"/{pid}", a.handle(h.remove))
	}
}

// datasetPermissions serves the permission list of one dataset type.
type datasetPermissions struct {
	api *API
	b   datasetBase
}

// permissionJSON is a dataset permission: a grant to a user or a group
// (everyone and administrators are special groups with string ids).
type permissionJSON struct {
	ID         string `json:"id"`
	URL        string `json:"url"`
	Permission string `json:"permission"`
	Group      any    `json:"group,omitempty"`
	User       any    `json:"user,omitempty"`
}

// specialGroupJSON renders the everyone and administrators groups.
type specialGroupJSON struct {
	ID      string  `json:"id"`
	URL     *string `json:"url"`
	Name    string  `json:"name"`
	Country *string `json:"country"`
}

// grantBody is one grant as clients send it: a permission for a group (id,
// `everyone` or `administrators`, string or number) or a user (id).
type grantBody struct {
	Permission string          `json:"permission"`
	Group      json.RawMessage `json:"group"`
	User       json.RawMessage `json:"user"`
}

func (h datasetPermissions) ids(r *http.Request) (int, string, error) {
	id, err := h.b.id(r)
	return id, chi.URLParam(r, "pid"), err
}

func (h datasetPermissions) list(w http.ResponseWriter, r *http.Request) error {
	id, _, err := h.ids(r)
	if err != nil {
		return err
	}
	ps, err := h.api.res.Query().DatasetPermissions(r.Context(), h.b.typ, id)
	if err != nil {
		return err
	}
	return h.writeList(w, r, id, ps)
}

func (h datasetPermissions) get(w http.ResponseWriter, r *http.Request) error {
	id, pid, err := h.ids(r)
	if err != nil {
		return err
	}
	p, err := h.api.res.Query().DatasetPermission(r.Context(), h.b.typ, id, pid)
	if err != nil {
		return err
	}
	return h.writeOne(w, r, id, http.StatusOK, p)
}

func (h datasetPermissions) create(w http.ResponseWriter, r *http.Request) error {
	id, _, err := h.ids(r)
	if err != nil {
		return err
	}
	var body grantBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	p, err := h.api.res.Mutation().GrantDatasetPermission(r.Context(), h.b.typ, id, in)
	if err != nil {
		return err
	}
	out, err := h.render(r, id, p)
	if err != nil {
		return err
	}
	w.Header().Set("Location", out[0].URL)
	writeJSON(w, http.StatusCreated, out[0])
	return nil
}

func (h datasetPermissions) replace(w http.ResponseWriter, r *http.Request) error {
	id, _, err := h.ids(r)
	if err != nil {
		return err
	}
	var body []grantBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ins := make([]*graph.DatasetGrantInput, len(body))
	for i, b := range body {
		in, err := b.input()
		if err != nil {
			return err
		}
		ins[i] = &in
	}
	ps, err := h.api.res.Mutation().SetDatasetPermissions(r.Context(), h.b.typ, id, ins)
	if err != nil {
		return err
	}
	return h.writeList(w, r, id, ps)
}

// writeList answers with a dataset's grants.
func (h datasetPermissions) writeList(w http.ResponseWriter, r *http.Request, id int, ps []*ent.DatasetPermission) error {
	out, err := h.render(r, id, ps...)
	if err != nil {
		return err
	}
	return writeList(h.api, w, r, out)
}

func (h datasetPermissions) update(w http.ResponseWriter, r *http.Request) error {
	id, pid, err := h.ids(r)
	if err != nil {
		return err
	}
	var body grantBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	lv, err := permissionOf(body.Permission)
	if err != nil {
		return err
	}
	p, err := h.api.res.Mutation().UpdateDatasetPermission(r.Context(), h.b.typ, id, pid, lv)
	if err != nil {
		return err
	}
	return h.writeOne(w, r, id, http.StatusOK, p)
}

func (h datasetPermissions) remove(w http.ResponseWriter, r *http.Request) error {
	id, pid, err := h.ids(r)
	if err != nil {
		return err
	}
	if _, err := h.api.res.Mutation().RevokeDatasetPermission(r.Context(), h.b.typ, id, pid); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (h datasetPermissions) writeOne(w http.ResponseWriter, r *http.Request, id, status int, p *ent.DatasetPermission) error {
	out, err := h.render(r, id, p)
	if err != nil {
		return err
	}
	writeJSON(w, status, out[0])
	return nil
}

// render turns grants into their REST form, with their users and groups
// embedded.
func (h datasetPermissions) render(r *http.Request, id int, ps ...*ent.DatasetPermission) ([]permissionJSON, error) {
	ctx, l, res := r.Context(), h.api.links(r), h.api.res.DatasetPermission()
	out := make([]permissionJSON, 0, len(ps))
	for _, p := range ps {
		key, _ := res.Key(ctx, p)
		j := permissionJSON{ID: key, URL: l.api("%s/permissions/%s/", h.b.ref(id), key), Permission: string(p.Permission)}
		switch p.Subject {
		case datasetpermission.SubjectUser:
			u, err := res.User(ctx, p)
			if err != nil {
				return nil, err
			}
			j.User = l.userEmbed(u)
		case datasetpermission.SubjectGroup:
			g, err := res.Group(ctx, p)
			if err != nil {
				return nil, err
			}
			j.Group = l.groupEmbed(g)
		case datasetpermission.SubjectEveryone, datasetpermission.SubjectAdministrators:
			j.Group = specialGroup(string(p.Subject))
		}
		out = append(out, j)
	}
	return out, nil
}

// input turns a grant body into the resolver's input.
func (b grantBody) input() (graph.DatasetGrantInput, error) {
	lv, err := permissionOf(b.Permission)
	if err != nil {
		return graph.DatasetGrantInput{}, err
	}
	in := graph.DatasetGrantInput{Permission: lv}
	if ref, ok, err := jsonRef(b.Group, "group"); err != nil {
		return in, err
	} else if ok {
		in.Group = &ref
	}
	if ref, ok, err := jsonRef(b.User, "user"); err != nil {
		return in, err
	} else if ok {
		id, err := strconv.Atoi(ref)
		if err != nil || id <= 0 {
			return in, apperr.Field("user", "Give a user id.")
		}
		in.User = &id
	}
	return in, nil
}

// permissionOf reads a permission level name.
func permissionOf(s string) (datasetpermission.Permission, error) {
	lv, ok := access.ParseLevel(s)
	if !ok {
		return "", apperr.Field("permission", "Give one of view, download, edit, admin.")
	}
	return lv.Permission(), nil
}

// jsonRef reads a reference sent as a JSON string or number; absent and
// null are not given.
func jsonRef(raw json.RawMessage, field string) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), true, nil
	}
	return "", false, apperr.Field(field, "Give an id as a number or a string.")
}
