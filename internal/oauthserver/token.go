package oauthserver

import (
	"context"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/oauthclient"
	"github.com/geopub/geopub/ent/oauthgrant"
	"github.com/geopub/geopub/ent/oauthrefreshtoken"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// ClientCredentials are how a client identified itself at the token or
// revocation endpoint: HTTP Basic (Basic set) or form parameters.
type ClientCredentials struct {
	ClientID string
	Secret   string
	Basic    bool
}

// TokenResponse is a successful token answer (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// authenticateClient checks the client's credentials (RFC 6749 §2.3):
// a confidential client must give its secret, a public one none.
func (s *Service) authenticateClient(ctx context.Context, cc ClientCredentials) (*ent.OAuthClient, error) {
	if cc.ClientID == "" {
		return nil, oauthErr(ErrInvalidClient, "Client authentication failed: no client_id.")
	}
	c, err := s.client.OAuthClient.Query().Where(oauthclient.ClientID(cc.ClientID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrInvalidClient, "Client authentication failed: unknown client.")
	}
	if err != nil {
		return nil, serverErr(err)
	}
	switch {
	case c.Confidential && cc.Secret == "":
		return nil, oauthErr(ErrInvalidClient, "Client authentication failed: this client must send its secret.")
	case c.Confidential && !sameHash(cc.Secret, c.SecretHash):
		return nil, oauthErr(ErrInvalidClient, "Client authentication failed: wrong secret.")
	case !c.Confidential && cc.Secret != "":
		return nil, oauthErr(ErrInvalidClient, "Client authentication failed: this public client has no secret.")
	}
	return c, nil
}

// ExchangeCode is grant_type=authorization_code (RFC 6749 §4.1.3, RFC
// 7636 §4.6). A code works once: using it again revokes every token it
// issued (§4.1.2).
func (s *Service) ExchangeCode(ctx context.Context, cc ClientCredentials, code, redirectURI, verifier string) (*TokenResponse, error) {
	c, err := s.authenticateClient(ctx, cc)
	if err != nil {
		return nil, err
	}
	if code == "" {
		return nil, oauthErr(ErrInvalidRequest, "code is required.")
	}
	g, err := s.client.OAuthGrant.Query().Where(oauthgrant.CodeHash(hashSecret(code))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrInvalidGrant, "The authorization code is not valid.")
	}
	if err != nil {
		return nil, serverErr(err)
	}
	now := s.clock()
	switch {
	case g.ClientID != c.ID:
		return nil, oauthErr(ErrInvalidGrant, "The authorization code was issued to another client.")
	case g.CodeUsedAt != nil:
		if err := s.revokeGrant(ctx, c, g, revokedCodeReused); err != nil {
			return nil, serverErr(err)
		}
		return nil, oauthErr(ErrInvalidGrant, "The authorization code was already used; the tokens issued with it are revoked.")
	case g.RevokedAt != nil:
		return nil, oauthErr(ErrInvalidGrant, "The authorization was revoked.")
	case !g.CodeExpiresAt.After(now):
		return nil, oauthErr(ErrInvalidGrant, "The authorization code has expired.")
	case g.RedirectURI != "" && g.RedirectURI != redirectURI:
		return nil, oauthErr(ErrInvalidGrant, "redirect_uri does not match the authorization request's.")
	case g.RedirectURI == "" && redirectURI != "" && !redirectMatches(c.RedirectUris, redirectURI):
		return nil, oauthErr(ErrInvalidGrant, "redirect_uri does not match the authorization request's.")
	}
	if err := checkVerifier(g.CodeChallenge, verifier); err != nil {
		return nil, err
	}
	// One use, even for concurrent requests: only one update finds the
	// code unused.
	n, err := s.client.OAuthGrant.Update().Where(oauthgrant.ID(g.ID), oauthgrant.CodeUsedAtIsNil()).
		SetCodeUsedAt(now).Save(ctx)
	if err != nil {
		return nil, serverErr(err)
	}
	if n == 0 {
		if err := s.revokeGrant(ctx, c, g, revokedCodeReused); err != nil {
			return nil, serverErr(err)
		}
		return nil, oauthErr(ErrInvalidGrant, "The authorization code was already used; the tokens issued with it are revoked.")
	}
	return s.issue(ctx, c, g, strings.Fields(g.Scope), true)
}

// checkVerifier checks the PKCE code_verifier against the challenge the
// authorization request sent (S256 only).
func checkVerifier(challenge, verifier string) error {
	switch {
	case challenge == "" && verifier != "":
		return oauthErr(ErrInvalidGrant, "code_verifier sent, but the authorization request had no code_challenge.")
	case challenge == "":
		return nil
	case verifier == "":
		return oauthErr(ErrInvalidGrant, "code_verifier is required: the authorization request had a code_challenge.")
	case !validVerifier(verifier) || pkceS256(verifier) != challenge:
		return oauthErr(ErrInvalidGrant, "The code_verifier does not match the code_challenge.")
	}
	return nil
}

// Refresh is grant_type=refresh_token with rotation (RFC 6749 §6, RFC
// 9700 §4.14.2): the token presented dies and a new one is issued;
// presenting a rotated token again revokes the whole grant. scope, when
// given, may narrow the new access token's scope.
func (s *Service) Refresh(ctx context.Context, cc ClientCredentials, refresh, scope string) (*TokenResponse, error) {
	c, err := s.authenticateClient(ctx, cc)
	if err != nil {
		return nil, err
	}
	if refresh == "" {
		return nil, oauthErr(ErrInvalidRequest, "refresh_token is required.")
	}
	rt, err := s.client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.TokenHash(hashSecret(refresh))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrInvalidGrant, "The refresh token is not valid.")
	}
	if err != nil {
		return nil, serverErr(err)
	}
	g, err := s.client.OAuthGrant.Get(ctx, rt.GrantID)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrInvalidGrant, "The refresh token is not valid.")
	}
	if err != nil {
		return nil, serverErr(err)
	}
	now := s.clock()
	switch {
	case g.ClientID != c.ID:
		return nil, oauthErr(ErrInvalidGrant, "The refresh token was issued to another client.")
	case g.RevokedAt != nil:
		return nil, oauthErr(ErrInvalidGrant, "The refresh token was revoked.")
	case rt.RotatedAt != nil:
		if err := s.revokeGrant(ctx, c, g, revokedRefreshReuse); err != nil {
			return nil, serverErr(err)
		}
		return nil, oauthErr(ErrInvalidGrant, "The refresh token was already used; every token of this authorization is revoked.")
	case !rt.ExpiresAt.After(now):
		return nil, oauthErr(ErrInvalidGrant, "The refresh token has expired.")
	}
	granted := strings.Fields(g.Scope)
	want := granted
	if strings.TrimSpace(scope) != "" {
		names, ok := parseScope(scope)
		if !ok || !subset(names, granted) {
			return nil, oauthErr(ErrInvalidScope, "The scope may only narrow what was granted: %s.", g.Scope)
		}
		want = names
	}
	n, err := s.client.OAuthRefreshToken.Update().
		Where(oauthrefreshtoken.ID(rt.ID), oauthrefreshtoken.RotatedAtIsNil()).SetRotatedAt(now).Save(ctx)
	if err != nil {
		return nil, serverErr(err)
	}
	if n == 0 {
		if err := s.revokeGrant(ctx, c, g, revokedRefreshReuse); err != nil {
			return nil, serverErr(err)
		}
		return nil, oauthErr(ErrInvalidGrant, "The refresh token was already used; every token of this authorization is revoked.")
	}
	return s.issue(ctx, c, g, want, true)
}

func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

// issue makes an access token (a Geopub API token of the grant's user,
// linked to the grant) and, with refresh, a refresh token.
func (s *Service) issue(ctx context.Context, c *ent.OAuthClient, g *ent.OAuthGrant, scope []string, refresh bool) (*TokenResponse, error) {
	u, err := s.client.User.Get(ctx, g.UserID)
	if ent.IsNotFound(err) {
		return nil, oauthErr(ErrInvalidGrant, "The user of this authorization no longer exists.")
	}
	if err != nil {
		return nil, serverErr(err)
	}
	if u.IsLocked {
		return nil, oauthErr(ErrInvalidGrant, "The user's account is locked.")
	}
	now := s.clock()
	expires := now.Add(s.cfg.AccessTokenTTL)
	name := "OAuth: " + c.Name
	if len(name) > auth.MaxTokenNameLength {
		name = name[:auth.MaxTokenNameLength]
	}
	grantID := g.ID
	_, key, err := s.auth.CreateToken(asClient(ctx, c, u.ID), u, auth.TokenSpec{
		Name: name, Scope: tokenScope(scope), ExpiresAt: &expires, OAuthGrantID: &grantID,
	})
	if err != nil {
		return nil, serverErr(err)
	}
	out := &TokenResponse{
		AccessToken: key, TokenType: "Bearer", ExpiresIn: int(s.cfg.AccessTokenTTL / time.Second),
		Scope: strings.Join(scope, " "),
	}
	if refresh {
		rt, err := randomString(32)
		if err != nil {
			return nil, serverErr(err)
		}
		_, err = s.client.OAuthRefreshToken.Create().SetGrantID(g.ID).SetTokenHash(hashSecret(rt)).
			SetCreatedAt(now).SetExpiresAt(now.Add(s.cfg.RefreshTokenTTL)).Save(ctx)
		if err != nil {
			return nil, serverErr(err)
		}
		out.RefreshToken = rt
	}
	return out, nil
}

// revokeGrant ends grant g of client c, for the reason its audit entry
// gives: every token issued under it (access tokens and the keys made
// with them) is deleted and its refresh tokens die. Revoking a revoked
// grant again deletes what may have been issued since and records
// nothing new.
func (s *Service) revokeGrant(ctx context.Context, c *ent.OAuthClient, g *ent.OAuthGrant, reason string) error {
	now := s.clock()
	err := s.inTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.OAuthGrant.Update().Where(oauthgrant.ID(g.ID), oauthgrant.RevokedAtIsNil()).SetRevokedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		tokens, err := tx.Token.Delete().Where(token.OauthGrantID(g.ID)).Exec(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.GrantID(g.ID), oauthrefreshtoken.RotatedAtIsNil()).Exec(ctx); err != nil {
			return err
		}
		if n == 0 && tokens == 0 {
			return nil
		}
		return audit.Record(asClient(ctx, c, g.UserID), tx, audit.Entry{Action: actionGrantRevoke, Target: grantTarget(c, g),
			Before: map[string]any{"client_id": c.ClientID, "user_id": g.UserID, "scope": g.Scope},
			After:  map[string]any{"reason": reason, "tokens_deleted": tokens}})
	})
	s.auth.ForgetKeys()
	return err
}
