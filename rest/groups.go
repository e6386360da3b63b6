package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) groupRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeUsersRead, auth.ScopeUsersWrite))
	r.Get("/groups", a.handle(a.listGroups))
	r.Get("/groups/{gid:[0-9]+}", a.handle(a.getGroup))
	r.Post("/group", a.handle(a.createGroup))
	r.Get("/group/{gid:[0-9]+}", a.handle(a.getGroup))
	a.memberRoutes(r)
	a.accessRequestRoutes(r)
}

// groupSorts maps the sort parameter's values onto the resolver's.
var groupSorts = map[string]graph.GroupSort{
	"name":        graph.GroupSortName,
	"-name":       graph.GroupSortNameDesc,
	"popularity":  graph.GroupSortPopularity,
	"created_at":  graph.GroupSortCreatedAt,
	"-created_at": graph.GroupSortCreatedAtDesc,
	"updated_at":  graph.GroupSortUpdatedAt,
	"-updated_at": graph.GroupSortUpdatedAtDesc,
}

// groupSortRels are the Link sort relations of the group list.
var groupSortRels = []sortRel{
	{"name", "name"}, {"name-desc", "-name"}, {"most-popular", "popularity"},
	{"recently-added", "-created_at"}, {"recently-updated", "-updated_at"},
}

func (a *API) listGroups(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	in := &graph.GroupSearchInput{Q: q.strPtr("q")}
	var err error
	if in.AccessRequestsEnabled, err = q.boolPtr("access_requests_enabled"); err != nil {
		return err
	}
	types, err := q.oneOf("type", "normal", "members")
	if err != nil {
		return err
	}
	for _, t := range types {
		in.Types = append(in.Types, group.Type(t))
	}
	// The catalogue's date filters (catalogquery.go), over the store.
	for name, dst := range map[string]**time.Time{
		"created_at.after": &in.CreatedAfter, "created_at.before": &in.CreatedBefore,
		"updated_at.after": &in.UpdatedAfter, "updated_at.before": &in.UpdatedBefore,
	} {
		if *dst, err = parseTime(name, q.v.Get(name)); err != nil {
			return err
		}
	}
	if s := q.v.Get("sort"); s != "" {
		gs, ok := groupSorts[s]
		if !ok {
			return apperr.Field("sort", "Select a valid choice: name, -name, popularity, created_at, -created_at, updated_at or -updated_at.")
		}
		in.Sort = &gs
	}
	facets, err := q.boolPtr("facets")
	if err != nil {
		return err
	}
	if in.Page, in.PageSize, err = q.paging(); err != nil {
		return err
	}
	ex, err := expandOf(r, expandGroupList)
	if err != nil {
		return err
	}
	page, err := a.res.Query().GroupSearch(r.Context(), in)
	if err != nil {
		return err
	}
	l := a.links(r)
	pr := pageResult{page: page.PageInfo.Page, size: page.PageInfo.PageSize, total: page.PageInfo.Total, count: len(page.Items)}
	if facets != nil && *facets {
		body := map[string]any{}
		for _, f := range page.Facets {
			body[f.Name] = f.Entries
		}
		a.writePage(w, r, pr, groupSortRels, body)
		return nil
	}
	var body any
	switch {
	case ex["list"] || ex["list.permissions"]:
		full := make([]groupJSON, 0, len(page.Items))
		for _, g := range page.Items {
			var members []*ent.GroupMembership
			if ex["list.permissions"] {
				// Null unless the caller may manage the group's members:
				// the field then stays a URL.
				if members, err = a.res.Group().Permissions(r.Context(), g, nil); err != nil {
					return err
				}
			}
			full = append(full, l.group(g, members))
		}
		body = full
	default:
		items := make([]groupEmbed, 0, len(page.Items))
		for _, g := range page.Items {
			items = append(items, l.groupEmbed(g))
		}
		body = items
	}
	a.writePage(w, r, pr, groupSortRels, body)
	return nil
}

func (a *API) getGroup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	ex, err := expandOf(r, expandGroup)
	if err != nil {
		return err
	}
	g, err := a.res.Query().Group(r.Context(), id)
	if err != nil {
		return err
	}
	var members []*ent.GroupMembership
	if ex["permissions"] {
		if members, err = a.res.Group().Permissions(r.Context(), g, nil); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, a.links(r).group(g, members))
	return nil
}

// groupCreateBody is POST /group/. permissions is accepted (clients send
// null) and ignored: a new group's members are managed afterwards.
type groupCreateBody struct {
	URLSlug               *string `json:"url_slug"`
	Permissions           any     `json:"permissions"`
	Name                  string  `json:"name"`
	DataOwner             *string `json:"data_owner"`
	Country               string  `json:"country"`
	AccessRequestsEnabled *bool   `json:"access_requests_enabled"`
	CatalogFeedsEnabled   *bool   `json:"catalog_feeds_enabled"`
}

func (a *API) createGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupCreateBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.CreateGroupInput{
		Name:                  body.Name,
		Country:               body.Country,
		URLSlug:               body.URLSlug,
		AccessRequestsEnabled: body.AccessRequestsEnabled,
		CatalogFeedsEnabled:   body.CatalogFeedsEnabled,
	}
	if body.DataOwner != nil {
		do := group.DataOwner(*body.DataOwner)
		if group.DataOwnerValidator(do) != nil {
			return apperr.Field("data_owner", "Select a valid choice: site or group.")
		}
		in.DataOwner = &do
	}
	g, err := a.res.Mutation().CreateGroup(r.Context(), in)
	if err != nil {
		return err
	}
	l := a.links(r)
	w.Header().Set("Location", l.api("groups/%d/", g.ID))
	writeJSON(w, http.StatusCreated, l.group(g, nil))
	return nil
}
