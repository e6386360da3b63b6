package rest

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) notificationRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeNotificationsRead, auth.ScopeNotificationsRead))
	r.Get("/notifications", a.handle(a.listNotifications))
	r.Post("/notifications/read", a.handle(a.markNotificationsRead))
}

// notificationJSON is the REST shape of a notification.
type notificationJSON struct {
	ID        int            `json:"id"`
	Kind      string         `json:"kind"`
	Payload   map[string]any `json:"payload"`
	CreatedAt time.Time      `json:"created_at"`
	ReadAt    *time.Time     `json:"read_at"`
	URL       string         `json:"url"`
}

// listNotifications serves the caller's notifications oldest first after
// the `after` cursor; Link rel="page-next" carries the next cursor.
func (a *API) listNotifications(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	after, err := q.intPtr("after")
	if err != nil {
		return err
	}
	size, err := q.intPtr("page_size")
	if err != nil {
		return err
	}
	page, err := a.res.Query().Notifications(r.Context(), after, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	items := make([]notificationJSON, 0, len(page.Nodes))
	for _, n := range page.Nodes {
		items = append(items, l.notification(n))
	}
	// The Link URLs carry the parameters the list reads and no others:
	// unknown ones, however long, are dropped.
	p := cursorPage{carried: url.Values{}, param: "after", per: 100, count: len(items), total: page.TotalCount}
	if size != nil {
		p.per = *size
		p.carried.Set("page_size", strconv.Itoa(*size))
	}
	if page.HasNextPage && page.EndCursor != nil {
		p.next = strconv.Itoa(*page.EndCursor)
	}
	l.setCursorHeaders(w, r, p)
	writeJSON(w, http.StatusOK, items)
	return nil
}

// notification renders n; its url is the list resuming just before it.
func (l links) notification(n *ent.Notification) notificationJSON {
	return notificationJSON{
		ID: n.ID, Kind: n.Kind, Payload: n.Payload, CreatedAt: n.CreatedAt, ReadAt: n.ReadAt,
		URL: l.api("notifications/?after=%d&page_size=1", n.ID-1),
	}
}

func (a *API) markNotificationsRead(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		UpTo *int `json:"up_to"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.UpTo == nil {
		return apperr.Field("up_to", "This field is required.")
	}
	n, err := a.res.Mutation().MarkNotificationsRead(r.Context(), *in.UpTo)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"marked": n})
	return nil
}
