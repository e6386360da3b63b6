package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	per := 100
	if size != nil {
		per = *size
	}
	h := w.Header()
	h.Set("X-Paginate-By", strconv.Itoa(per))
	h.Set("X-Resource-Range", fmt.Sprintf("0-%d/%d", len(items), page.TotalCount))
	self := l.origin + r.URL.Path
	if !strings.HasSuffix(self, "/") {
		self += "/"
	}
	// The Link URLs carry the parameters the list reads and no others:
	// unknown ones, however long, are dropped.
	with := func(cursor *int) string {
		v := url.Values{}
		if size != nil {
			v.Set("page_size", strconv.Itoa(*size))
		}
		if cursor != nil {
			v.Set("after", strconv.Itoa(*cursor))
		}
		if enc := v.Encode(); enc != "" {
			return self + "?" + enc
		}
		return self
	}
	links := []string{fmt.Sprintf("<%s>; rel=%q", with(nil), "page-first")}
	if page.HasNextPage && page.EndCursor != nil {
		links = append(links, fmt.Sprintf("<%s>; rel=%q", with(page.EndCursor), "page-next"))
	}
	h.Set("Link", strings.Join(links, ", "))
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
