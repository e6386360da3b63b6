package oauthpages

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"

	"github.com/geopub/geopub/internal/oauthserver"
)

// writeJSON writes v with status; token answers are never stored.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// errorBody is RFC 6749 §5.2's error answer.
type errorBody struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// writeError answers an OAuth error: 401 for a client that failed to
// authenticate (with a Basic challenge when it tried Basic), 500 for
// the server's own failure, 400 otherwise.
func (p *Pages) writeError(w http.ResponseWriter, r *http.Request, err error, basic bool) {
	e := oauthserver.AsError(err)
	status := http.StatusBadRequest
	switch e.Code {
	case oauthserver.ErrInvalidClient:
		status = http.StatusUnauthorized
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="geopub", charset="UTF-8"`)
		}
	case oauthserver.ErrServerError:
		status = http.StatusInternalServerError
		p.logger.ErrorContext(r.Context(), "oauth endpoint failed", "path", r.URL.Path, "err", err)
	}
	noStore(w)
	writeJSON(w, status, errorBody{Error: e.Code, ErrorDescription: e.Description})
}

// LimitFailure answers a request refused by a rate limit (the server's
// ratelimit middleware) as RFC 6749 answers errors, with the code it
// names for an overloaded server: temporarily_unavailable.
func LimitFailure(w http.ResponseWriter, _ *http.Request, status int, detail string) {
	noStore(w)
	writeJSON(w, status, errorBody{Error: "temporarily_unavailable", ErrorDescription: detail})
}

func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// readForm parses a token or revocation request: a form body
// (RFC 6749 §3.2), no parameter repeated (§3.1), and the client's
// credentials by HTTP Basic or form fields, not both (§2.3.1).
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, oauthserver.ClientCredentials, error) {
	var cc oauthserver.ClientCredentials
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return nil, cc, invalid("Send the parameters as application/x-www-form-urlencoded.")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, cc, invalid("The request body is too large.")
		}
		return nil, cc, invalid("The request body is not a valid form.")
	}
	f := r.PostForm
	for k, v := range f {
		if len(v) > 1 {
			return nil, cc, invalid("The parameter " + k + " is repeated.")
		}
	}
	cc.ClientID, cc.Secret = f.Get("client_id"), f.Get("client_secret")
	if user, pass, ok := r.BasicAuth(); ok {
		if cc.Secret != "" {
			return nil, cc, invalid("Authenticate the client one way: HTTP Basic or client_secret, not both.")
		}
		id, err1 := url.QueryUnescape(user)
		secret, err2 := url.QueryUnescape(pass)
		if err1 != nil || err2 != nil {
			return nil, cc, &oauthserver.Error{Code: oauthserver.ErrInvalidClient, Description: "Client authentication failed: malformed Basic credentials."}
		}
		if cc.ClientID != "" && cc.ClientID != id {
			return nil, cc, invalid("client_id differs from the Basic credentials' client.")
		}
		cc.ClientID, cc.Secret, cc.Basic = id, secret, true
	}
	return f, cc, nil
}

func invalid(msg string) error {
	return &oauthserver.Error{Code: oauthserver.ErrInvalidRequest, Description: msg}
}

// token is POST /o/token/ (RFC 6749 §3.2).
func (p *Pages) token(w http.ResponseWriter, r *http.Request) {
	f, cc, err := readForm(w, r)
	if err != nil {
		p.writeError(w, r, err, cc.Basic)
		return
	}
	var out *oauthserver.TokenResponse
	switch gt := f.Get("grant_type"); gt {
	case "authorization_code":
		out, err = p.svc.ExchangeCode(r.Context(), cc, f.Get("code"), f.Get("redirect_uri"), f.Get("code_verifier"))
	case "refresh_token":
		out, err = p.svc.Refresh(r.Context(), cc, f.Get("refresh_token"), f.Get("scope"))
	case "":
		err = invalid("grant_type is required.")
	default:
		err = &oauthserver.Error{Code: oauthserver.ErrUnsupportedGrantType,
			Description: "Use grant_type authorization_code or refresh_token."}
	}
	if err != nil {
		p.writeError(w, r, err, cc.Basic)
		return
	}
	noStore(w)
	writeJSON(w, http.StatusOK, out)
}

// revoke is POST /o/revoke_token/ (RFC 7009 §2): 200 with an empty body
// whether or not the token was known.
func (p *Pages) revoke(w http.ResponseWriter, r *http.Request) {
	f, cc, err := readForm(w, r)
	if err == nil {
		err = p.svc.Revoke(r.Context(), cc, f.Get("token"), f.Get("token_type_hint"))
	}
	if err != nil {
		p.writeError(w, r, err, cc.Basic)
		return
	}
	noStore(w)
	w.WriteHeader(http.StatusOK)
}
