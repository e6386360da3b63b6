package rest

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) tokenRoutes(r chi.Router) {
	r.With(scoped("*", "*")).Post("/tokens", a.handle(a.createToken))
	r.Group(func(r chi.Router) {
		r.Use(scoped(auth.ScopeTokensRead, auth.ScopeTokensWrite))
		r.Get("/tokens", a.handle(a.listTokens))
		r.Get("/tokens/{tid:[0-9]+}", a.handle(a.getToken))
		r.Put("/tokens/{tid:[0-9]+}", a.handle(a.updateToken))
		r.Delete("/tokens/{tid:[0-9]+}", a.handle(a.deleteToken))
	})
}

// tokenJSON is the API token resource. Key is set only in the creation
// response.
type tokenJSON struct {
	ID        int        `json:"id"`
	URL       string     `json:"url"`
	Name      string     `json:"name"`
	Key       string     `json:"key,omitempty"`
	KeyHint   string     `json:"key_hint"`
	Site      string     `json:"site"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	Scope     string     `json:"scope"`
	Referrers []string   `json:"referrers"`
}

func (a *API) token(r *http.Request, t *ent.Token, key string) tokenJSON {
	l := a.links(r)
	site := strings.TrimPrefix(strings.TrimPrefix(l.origin, "https://"), "http://")
	refs := t.Referrers
	if refs == nil {
		refs = []string{}
	}
	return tokenJSON{
		ID: t.ID, URL: l.api("tokens/%d/", t.ID), Name: t.Name, Key: key, KeyHint: t.KeyHint,
		Site: site, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, Scope: t.Scope, Referrers: refs,
	}
}

// tokenRequest is the password grant, as a form or as JSON.
type tokenRequest struct {
	GrantType string   `json:"grant_type"`
	Username  string   `json:"username"`
	Password  string   `json:"password"`
	Name      *string  `json:"name"`
	Scope     *string  `json:"scope"`
	ExpiresAt *string  `json:"expires_at"`
	Referrers []string `json:"referrers"`
}

func readTokenRequest(r *http.Request) (tokenRequest, error) {
	var tr tokenRequest
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
		f, err := decodeForm(r)
		if err != nil {
			return tr, err
		}
		tr.GrantType, tr.Username, tr.Password = f.Get("grant_type"), f.Get("username"), f.Get("password")
		for k, dst := range map[string]**string{"name": &tr.Name, "scope": &tr.Scope, "expires_at": &tr.ExpiresAt} {
			if f.Has(k) {
				v := f.Get(k)
				*dst = &v
			}
		}
		for _, v := range f["referrers"] {
			tr.Referrers = append(tr.Referrers, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })...)
		}
		return tr, nil
	}
	return tr, decodeJSON(r, &tr)
}

// parseTime reads an ISO 8601 timestamp; one without a zone is UTC.
func parseTime(field, s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	// RFC 3339 lets a space stand for the T (Python's str(datetime) writes one).
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, apperr.Field(field, "Use an ISO 8601 date and time, such as 2027-01-31T00:00:00Z.")
}

func (a *API) createToken(w http.ResponseWriter, r *http.Request) error {
	tr, err := readTokenRequest(r)
	if err != nil {
		return err
	}
	if tr.GrantType == "" && tr.Username == "" && tr.Password == "" && auth.FromContext(r.Context()).Authenticated() {
		return a.createDelegatedToken(w, r, tr)
	}
	fe := apperr.FieldErrors{}
	switch {
	case tr.GrantType == "":
		fe.Add("grant_type", "This field is required: use password.")
	case tr.GrantType != "password":
		fe.Add("grant_type", "Unsupported grant type \""+tr.GrantType+"\": use password.")
	}
	if tr.Username == "" {
		fe.Add("username", "This field is required.")
	}
	if tr.Password == "" {
		fe.Add("password", "This field is required.")
	}
	var expires *time.Time
	if tr.ExpiresAt != nil {
		if expires, err = parseTime("expires_at", *tr.ExpiresAt); err != nil {
			fe.Add("expires_at", apperr.As(err).Fields["expires_at"][0])
		}
	}
	if err := fe.Err(); err != nil {
		return err
	}
	created, err := a.res.Mutation().CreateToken(r.Context(), graph.CreateTokenInput{
		Username: tr.Username, Password: tr.Password, Name: tr.Name, Scope: tr.Scope,
		ExpiresAt: expires, Referrers: tr.Referrers,
	})
	if err != nil {
		return err
	}
	// No Location header: clients that follow one would GET the token
	// without credentials and lose the key, which is shown only here.
	writeJSON(w, http.StatusCreated, a.token(r, created.Token, created.Key))
	return nil
}

// createDelegatedToken is POST /tokens/ by a caller already signed in (a
// session, or a token sent as Bearer or key) without a password grant:
// the desktop plugin exchanges its access token for an API key this way
// (api-shapes §1.3: form body with scope, name and site=*).
func (a *API) createDelegatedToken(w http.ResponseWriter, r *http.Request, tr tokenRequest) error {
	in := graph.DelegatedTokenInput{Name: tr.Name, Scope: tr.Scope, Referrers: tr.Referrers}
	if tr.ExpiresAt != nil {
		exp, err := parseTime("expires_at", *tr.ExpiresAt)
		if err != nil {
			return err
		}
		in.ExpiresAt = exp
	}
	created, err := a.res.CreateDelegatedToken(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, a.token(r, created.Token, created.Key))
	return nil
}

func (a *API) listTokens(w http.ResponseWriter, r *http.Request) error {
	toks, err := a.res.Query().Tokens(r.Context())
	if err != nil {
		return err
	}
	out := make([]tokenJSON, 0, len(toks))
	for _, t := range toks {
		out = append(out, a.token(r, t, ""))
	}
	return writeList(a, w, r, out)
}

func (a *API) getToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	t, err := a.res.Query().Token(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.token(r, t, ""))
	return nil
}

// tokenUpdate is PUT /tokens/{id}/: a token representation; the key and
// read-only fields are ignored. expires_at null clears the expiry.
type tokenUpdate struct {
	Name      *string         `json:"name"`
	Scope     *string         `json:"scope"`
	ExpiresAt json.RawMessage `json:"expires_at"`
	Referrers []string        `json:"referrers"`
}

func (a *API) updateToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	var body tokenUpdate
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.UpdateTokenInput{Name: body.Name, Scope: body.Scope, Referrers: body.Referrers}
	switch raw := strings.TrimSpace(string(body.ExpiresAt)); {
	case raw == "null":
		clear := true
		in.ClearExpiresAt = &clear
	case raw != "":
		var s string
		if json.Unmarshal(body.ExpiresAt, &s) != nil {
			return apperr.Field("expires_at", "Use an ISO 8601 date and time or null.")
		}
		if in.ExpiresAt, err = parseTime("expires_at", s); err != nil {
			return err
		}
	}
	t, err := a.res.Mutation().UpdateToken(r.Context(), id, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.token(r, t, ""))
	return nil
}

func (a *API) deleteToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteToken(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}
