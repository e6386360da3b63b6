package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// The session pair: POST signs in and sets the session cookie, DELETE
// signs out, GET tells who is signed in.
func (a *API) sessionRoutes(r chi.Router) {
	r.Use(scoped("*", "*"))
	r.Post("/session", a.handle(a.login))
	r.Get("/session", a.handle(a.getSession))
	r.Delete("/session", a.handle(a.logout))
	r.Get("/session/providers", a.handle(a.signInProviders))
}

type loginBody struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type sessionJSON struct {
	User      userJSON  `json:"user"`
	CSRFToken string    `json:"csrf_token"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (a *API) login(w http.ResponseWriter, r *http.Request) error {
	var body loginBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	fe := apperr.FieldErrors{}
	if body.Email == "" {
		fe.Add("email", "This field is required.")
	}
	if body.Password == "" {
		fe.Add("password", "This field is required.")
	}
	if err := fe.Err(); err != nil {
		return err
	}
	p, err := a.res.Mutation().Login(r.Context(), body.Email, body.Password)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sessionJSON{User: a.links(r).user(p.User), CSRFToken: p.CsrfToken, ExpiresAt: p.ExpiresAt})
	return nil
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p.Method != auth.SessionAuth {
		return apperr.New(apperr.NotFound, "No session: sign in with POST.")
	}
	writeJSON(w, http.StatusOK, sessionJSON{User: a.links(r).user(p.User), CSRFToken: p.Session.CsrfToken, ExpiresAt: p.Session.ExpiresAt})
	return nil
}

func (a *API) logout(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.res.Mutation().Logout(r.Context()); err != nil {
		return err
	}
	noContent(w)
	return nil
}
