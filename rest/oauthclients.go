package rest

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/oauthserver"
)

// oauthClientRoutes: the applications registered with the OAuth 2.0
// authorization server, managed by site administrators.
func (a *API) oauthClientRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeUsersRead, auth.ScopeUsersWrite))
	r.Get("/oauth-clients", a.handle(a.listOAuthClients))
	r.Post("/oauth-clients", a.handle(a.createOAuthClient))
	r.Get("/oauth-clients/{cid:[0-9]+}", a.handle(a.getOAuthClient))
	r.Put("/oauth-clients/{cid:[0-9]+}", a.handle(a.updateOAuthClient))
	r.Delete("/oauth-clients/{cid:[0-9]+}", a.handle(a.deleteOAuthClient))
}

// oauthClientJSON is a registered client. ClientSecret is set only in
// the creation answer of a confidential client.
type oauthClientJSON struct {
	ID           int       `json:"id"`
	URL          string    `json:"url"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	Name         string    `json:"name"`
	ClientType   string    `json:"client_type"`
	RedirectURIs []string  `json:"redirect_uris"`
	Scope        string    `json:"scope"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func (a *API) oauthClient(r *http.Request, c *ent.OAuthClient, secret string) oauthClientJSON {
	kind := "public"
	if c.Confidential {
		kind = "confidential"
	}
	uris := c.RedirectUris
	if uris == nil {
		uris = []string{}
	}
	return oauthClientJSON{
		ID: c.ID, URL: a.links(r).api("oauth-clients/%d/", c.ID), ClientID: c.ClientID, ClientSecret: secret,
		Name: c.Name, ClientType: kind, RedirectURIs: uris, Scope: c.Scope, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// oauthClientBody is a client as POST and PUT send it; client_type is
// fixed at creation.
type oauthClientBody struct {
	Name         *string   `json:"name"`
	ClientType   *string   `json:"client_type"`
	RedirectURIs *[]string `json:"redirect_uris"`
	Scope        *string   `json:"scope"`
}

func (a *API) listOAuthClients(w http.ResponseWriter, r *http.Request) error {
	cs, err := a.res.OAuth.Clients(r.Context())
	if err != nil {
		return err
	}
	out := make([]oauthClientJSON, 0, len(cs))
	for _, c := range cs {
		out = append(out, a.oauthClient(r, c, ""))
	}
	return writeList(a, w, r, out)
}

func (a *API) createOAuthClient(w http.ResponseWriter, r *http.Request) error {
	var b oauthClientBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	spec := oauthserver.ClientSpec{}
	if b.Name != nil {
		spec.Name = *b.Name
	}
	if b.RedirectURIs != nil {
		spec.RedirectURIs = *b.RedirectURIs
	}
	if b.Scope != nil {
		spec.Scope = *b.Scope
	}
	if b.ClientType != nil {
		switch *b.ClientType {
		case "public":
		case "confidential":
			spec.Confidential = true
		default:
			return apperr.Field("client_type", "Use public or confidential.")
		}
	}
	created, err := a.res.OAuth.CreateClient(r.Context(), spec)
	if err != nil {
		return err
	}
	out := a.oauthClient(r, created.Client, created.Secret)
	w.Header().Set("Location", out.URL)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (a *API) getOAuthClient(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	c, err := a.res.OAuth.Client(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.oauthClient(r, c, ""))
	return nil
}

func (a *API) updateOAuthClient(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	var b oauthClientBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	c, err := a.res.OAuth.UpdateClient(r.Context(), id, oauthserver.ClientPatch{Name: b.Name, RedirectURIs: b.RedirectURIs, Scope: b.Scope})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.oauthClient(r, c, ""))
	return nil
}

func (a *API) deleteOAuthClient(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	if err := a.res.OAuth.DeleteClient(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}
