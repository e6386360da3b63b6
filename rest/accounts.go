package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/accounts"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// accountRoutes are the account lifecycle (internal/accounts): site
// administrators lock, unlock and delete users; users change their
// password and see and end their own sessions.
func (a *API) accountRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeUsersRead, auth.ScopeUsersWrite))
	r.Post("/users/{uid:[0-9]+}/lock", a.handle(a.lockUser))
	r.Post("/users/{uid:[0-9]+}/unlock", a.handle(a.unlockUser))
	r.Delete("/users/{uid:[0-9]+}", a.handle(a.deleteUser))
	r.Put("/users/me/password", a.handle(a.changePassword))
	r.Get("/users/me/sessions", a.handle(a.listSessions))
	r.Delete("/users/me/sessions/{sid:[0-9]+}", a.handle(a.endSession))
	r.Post("/users/me/sessions/end-others", a.handle(a.endOtherSessions))
}

func (a *API) lockUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "uid")
	if err != nil {
		return err
	}
	u, err := a.res.Mutation().LockUser(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).user(u))
	return nil
}

func (a *API) unlockUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "uid")
	if err != nil {
		return err
	}
	u, err := a.res.Mutation().UnlockUser(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).user(u))
	return nil
}

// deletedJSON answers a deletion: who took what.
type deletedJSON struct {
	ID          int            `json:"id"`
	Receiver    *string        `json:"receiver"`
	Transferred map[string]int `json:"transferred"`
}

// deleteUser takes the receiver as the query parameter receiver=user.{id}
// or group.{id}: DELETE requests carry no body through many clients.
func (a *API) deleteUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "uid")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if len(q["receiver"]) > 1 {
		return apperr.Field("receiver", "Give one receiver.")
	}
	to, err := accounts.ParseReceiver(q.Get("receiver"))
	if err != nil {
		return err
	}
	d, err := a.res.DeleteUserTo(r.Context(), id, to)
	if err != nil {
		return err
	}
	out := deletedJSON{ID: d.UserID, Transferred: d.Transferred}
	if s := d.Receiver.String(); s != "" {
		out.Receiver = &s
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

type passwordBody struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

func (a *API) changePassword(w http.ResponseWriter, r *http.Request) error {
	var body passwordBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	n, err := a.res.Mutation().ChangePassword(r.Context(), body.CurrentPassword, body.NewPassword)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"ended_sessions": n})
	return nil
}

// sessionInfoJSON is one of the caller's sessions.
type sessionInfoJSON struct {
	ID         int        `json:"id"`
	URL        string     `json:"url"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	LastSeenAt *time.Time `json:"last_seen_at"`
	ClientAddr string     `json:"client_address"`
	UserAgent  string     `json:"user_agent"`
	Current    bool       `json:"is_current"`
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) error {
	list, err := a.res.Query().MySessions(r.Context())
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]sessionInfoJSON, 0, len(list))
	for _, s := range list {
		out = append(out, sessionInfoJSON{ID: s.ID, URL: l.api("users/me/sessions/%d/", s.ID), CreatedAt: s.CreatedAt,
			ExpiresAt: s.ExpiresAt, LastSeenAt: s.LastSeenAt, ClientAddr: s.ClientAddr, UserAgent: s.UserAgent, Current: s.Current})
	}
	return writeList(a, w, r, out)
}

func (a *API) endSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().EndSession(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) endOtherSessions(w http.ResponseWriter, r *http.Request) error {
	n, err := a.res.Mutation().EndOtherSessions(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"ended_sessions": n})
	return nil
}
