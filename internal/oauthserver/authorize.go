package oauthserver

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/oauthclient"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// AuthorizeRequest is the query of GET /o/authorize/ (RFC 6749 §4.1.1,
// RFC 7636 §4.3).
type AuthorizeRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	Scope               string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	ResponseMode        string
}

// Authorization is a checked authorization request, waiting for the
// user's consent.
type Authorization struct {
	Client *ent.OAuthClient
	// RedirectURI is where the answer goes; Requested is the redirect_uri
	// the request named ("" when it named none, and the registered one
	// was used), which the token request must repeat.
	RedirectURI, Requested string
	Scope                  []string
	State                  string
	CodeChallenge          string
}

// AuthorizeError is a refused authorization request. With RedirectURI
// set, the client is told by a redirect (RFC 6749 §4.1.2.1); without,
// the client or its redirect URI could not be trusted and the user is
// shown the error instead.
type AuthorizeError struct {
	Code, Description  string
	RedirectURI, State string
	cause              error
}

func (e *AuthorizeError) Error() string { return e.Code + ": " + e.Description }

func (e *AuthorizeError) Unwrap() error { return e.cause }

// refused is the AuthorizeError of e, told to the client at redirectURI
// (none: shown to the user).
func refused(e *Error, redirectURI, state string) *AuthorizeError {
	return &AuthorizeError{Code: e.Code, Description: e.Description, RedirectURI: redirectURI, State: state, cause: e.cause}
}

// RedirectTo is the redirect that tells the client of the error.
func (e *AuthorizeError) RedirectTo() string {
	q := url.Values{"error": {e.Code}, "error_description": {e.Description}}
	if e.State != "" {
		q.Set("state", e.State)
	}
	return withQuery(e.RedirectURI, q)
}

// withQuery adds q to the query of uri, keeping what it has (RFC 6749
// §3.1.2).
func withQuery(uri string, q url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	have := u.Query()
	for k, v := range q {
		have[k] = v
	}
	u.RawQuery = have.Encode()
	return u.String()
}

// CheckAuthorization validates an authorization request before the user
// is asked: first the client and redirect URI (errors shown to the user),
// then the rest (errors sent to the client).
func (s *Service) CheckAuthorization(ctx context.Context, req AuthorizeRequest) (*Authorization, error) {
	shown := func(format string, args ...any) error {
		return refused(oauthErr(ErrInvalidRequest, format, args...), "", "")
	}
	if req.ClientID == "" {
		return nil, shown("The request names no client (client_id).")
	}
	c, err := s.client.OAuthClient.Query().Where(oauthclient.ClientID(req.ClientID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, shown("No application is registered with this client_id.")
	}
	if err != nil {
		return nil, refused(serverErr(err), "", "")
	}
	a := &Authorization{Client: c, Requested: req.RedirectURI, State: req.State}
	switch {
	case req.RedirectURI != "":
		if !redirectMatches(c.RedirectUris, req.RedirectURI) {
			return nil, shown("The redirect_uri is not one registered for %s.", c.Name)
		}
		a.RedirectURI = req.RedirectURI
	case len(c.RedirectUris) == 1:
		a.RedirectURI = c.RedirectUris[0]
	default:
		return nil, shown("The request names no redirect_uri, and %s has several.", c.Name)
	}
	told := func(code, format string, args ...any) error {
		return refused(oauthErr(code, format, args...), a.RedirectURI, req.State)
	}
	if req.ResponseMode != "" && req.ResponseMode != "query" {
		return nil, told(ErrInvalidRequest, "Only response_mode=query is supported.")
	}
	switch req.ResponseType {
	case "code":
	case "":
		return nil, told(ErrInvalidRequest, "response_type is required: use code.")
	default:
		return nil, told(ErrUnsupportedResponseType, "Only response_type=code is supported.")
	}
	if a.Scope, err = s.requestedScope(c, req.Scope); err != nil {
		return nil, told(ErrInvalidScope, "%s", err.(*Error).Description)
	}
	switch {
	case req.CodeChallenge == "" && req.CodeChallengeMethod != "":
		return nil, told(ErrInvalidRequest, "code_challenge_method without a code_challenge.")
	case req.CodeChallenge == "" && !c.Confidential:
		return nil, told(ErrInvalidRequest, "This application must use PKCE: send code_challenge with code_challenge_method=S256.")
	case req.CodeChallenge != "" && req.CodeChallengeMethod != "S256":
		return nil, told(ErrInvalidRequest, "Only code_challenge_method=S256 is supported; plain is refused.")
	case req.CodeChallenge != "" && (len(req.CodeChallenge) != 43 || !validPKCEString(req.CodeChallenge)):
		return nil, told(ErrInvalidRequest, "code_challenge must be the 43-character base64url SHA-256 of the verifier.")
	}
	a.CodeChallenge = req.CodeChallenge
	return a, nil
}

// requestedScope checks the scope parameter against what the client may
// ask for; none asks for all of it.
func (s *Service) requestedScope(c *ent.OAuthClient, scope string) ([]string, error) {
	allowed := strings.Fields(c.Scope)
	if strings.TrimSpace(scope) == "" {
		return allowed, nil
	}
	names, ok := parseScope(scope)
	if !ok {
		return nil, oauthErr(ErrInvalidScope, "Unknown scope; this server supports: %s.", strings.Join(SupportedScopes(), " "))
	}
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			return nil, oauthErr(ErrInvalidScope, "%s may not ask for scope %q.", c.Name, n)
		}
	}
	return names, nil
}

// Deny is the answer when the user refuses: access_denied to the client.
func (a *Authorization) Deny() string {
	e := refused(oauthErr(ErrAccessDenied, "The user did not allow access."), a.RedirectURI, a.State)
	return e.RedirectTo()
}

// Approve records the consent of sess's user (sess.Edges.User loaded) and
// returns the redirect that hands the client its authorization code (RFC
// 6749 §4.1.2).
func (s *Service) Approve(ctx context.Context, sess *ent.Session, a *Authorization) (string, error) {
	user := sess.Edges.User
	code, err := randomString(32)
	if err != nil {
		return "", serverErr(err)
	}
	now := s.clock()
	scope := strings.Join(a.Scope, " ")
	err = s.inTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		g, err := tx.OAuthGrant.Create().SetClientID(a.Client.ID).SetUserID(user.ID).
			SetScope(scope).SetCodeHash(hashSecret(code)).SetCodeChallenge(a.CodeChallenge).
			SetRedirectURI(a.Requested).SetCodeExpiresAt(now.Add(s.cfg.CodeTTL)).SetCreatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Action: actionConsent, Target: grantTarget(a.Client, g), Actor: auth.SessionActor(user, sess),
			After: map[string]any{"client_id": a.Client.ClientID, "user_id": user.ID, "scope": scope}})
	})
	if err != nil {
		return "", serverErr(err)
	}
	q := url.Values{"code": {code}}
	if a.State != "" {
		q.Set("state", a.State)
	}
	return withQuery(a.RedirectURI, q), nil
}
