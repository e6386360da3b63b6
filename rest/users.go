package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) userRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeUsersRead, auth.ScopeUsersWrite))
	r.Get("/users", a.handle(a.listUsers))
	r.Get("/users/me", a.handle(a.getMe))
	r.Get("/users/{uid:[0-9]+}", a.handle(a.getUser))
	r.Get("/users/{uid:[0-9]+}/access", a.handle(a.getUserAccess))
}

func (a *API) listUsers(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	in := &graph.UserSearchInput{Q: q.strPtr("q"), Groups: q.all("group")}
	seats, err := q.oneOf("seat_type", "paid", "none")
	if err != nil {
		return err
	}
	if len(seats) > 1 {
		return apperr.Field("seat_type", "Give one seat type.")
	}
	if len(seats) == 1 {
		st := user.SeatType(seats[0])
		in.SeatType = &st
	}
	if in.Page, in.PageSize, err = q.paging(); err != nil {
		return err
	}
	page, err := a.res.Query().UserSearch(r.Context(), in)
	if err != nil {
		return err
	}
	l := a.links(r)
	items := make([]userJSON, 0, len(page.Items))
	for _, u := range page.Items {
		items = append(items, l.user(u))
	}
	a.writePage(w, r, pageResult{page: page.PageInfo.Page, size: page.PageInfo.PageSize, total: page.PageInfo.Total, count: len(items)}, nil, items)
	return nil
}

func (a *API) getMe(w http.ResponseWriter, r *http.Request) error {
	u, err := a.res.Query().Me(r.Context())
	if err != nil {
		return err
	}
	if u == nil {
		return apperr.ErrNotAuthenticated
	}
	l := a.links(r)
	writeJSON(w, http.StatusOK, meJSON{
		userJSON:     l.user(u),
		Capabilities: map[string]bool{},
		Contexts:     l.contexts(),
	})
	return nil
}

func (a *API) getUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "uid")
	if err != nil {
		return err
	}
	u, err := a.res.Query().User(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).user(u))
	return nil
}

func (a *API) getUserAccess(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "uid")
	if err != nil {
		return err
	}
	u, err := a.res.Query().User(r.Context(), id)
	if err != nil {
		return err
	}
	entries, err := a.res.User().Access(r.Context(), u)
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]accessJSON, 0, len(entries))
	for _, e := range entries {
		out = append(out, l.access(u.ID, e))
	}
	return writeList(a, w, r, out)
}

// contextJSON is one of the desktop plugin's browsing contexts
// (api-shapes §10.2): a user context lists /users/me/data/, a site context
// switches the API host to its domain.
type contextJSON struct {
	Name            string     `json:"name"`
	Type            string     `json:"type"`
	Domain          string     `json:"domain"`
	Logo            *string    `json:"logo"`
	BackgroundColor string     `json:"background_color"`
	Org             contextOrg `json:"org"`
}

type contextOrg struct {
	LogoSquareURL   *string `json:"logo_square_url"`
	LogoOwnerURL    *string `json:"logo_owner_url"`
	BackgroundColor string  `json:"background_color"`
}

// contexts are the caller's browsing contexts: their own data, and this
// site (the plugin adds its own "All data" context before them).
func (l links) contexts() []contextJSON {
	site := l.siteName()
	return []contextJSON{
		{Name: "My data", Type: "user", Domain: site},
		{Name: site, Type: "site", Domain: site},
	}
}
