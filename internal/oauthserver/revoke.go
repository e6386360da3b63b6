package oauthserver

import (
	"context"
	"errors"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/oauthrefreshtoken"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// Revoke is RFC 7009 token revocation by the client the token was issued
// to. A refresh token revokes its whole grant (§2.1: the access tokens of
// the same grant too); an access token is deleted alone. Unknown tokens,
// and tokens of other clients, change nothing and are not an error
// (§2.2), so the answer tells nothing about them.
func (s *Service) Revoke(ctx context.Context, cc ClientCredentials, tok, hint string) error {
	c, err := s.authenticateClient(ctx, cc)
	if err != nil {
		return err
	}
	if tok == "" {
		return oauthErr(ErrInvalidRequest, "token is required.")
	}
	if hint == "access_token" {
		if done, err := s.revokeAccess(ctx, c, tok); done || err != nil {
			return err
		}
		_, err = s.revokeRefresh(ctx, c, tok)
		return err
	}
	if done, err := s.revokeRefresh(ctx, c, tok); done || err != nil {
		return err
	}
	_, err = s.revokeAccess(ctx, c, tok)
	return err
}

func (s *Service) revokeRefresh(ctx context.Context, c *ent.OAuthClient, tok string) (bool, error) {
	rt, err := s.client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.TokenHash(hashSecret(tok))).Only(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, serverErr(err)
	}
	g, err := s.client.OAuthGrant.Get(ctx, rt.GrantID)
	if ent.IsNotFound(err) || (err == nil && g.ClientID != c.ID) {
		return true, nil
	}
	if err != nil {
		return false, serverErr(err)
	}
	if err := s.revokeGrant(ctx, c, g, revokedByClient); err != nil {
		return false, serverErr(err)
	}
	return true, nil
}

func (s *Service) revokeAccess(ctx context.Context, c *ent.OAuthClient, key string) (bool, error) {
	t, err := s.client.Token.Query().Where(token.KeyHash(auth.HashKey(key)), token.OauthGrantIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, serverErr(err)
	}
	g, err := s.client.OAuthGrant.Get(ctx, *t.OauthGrantID)
	if ent.IsNotFound(err) || (err == nil && g.ClientID != c.ID) {
		return true, nil
	}
	if err != nil {
		return false, serverErr(err)
	}
	err = s.auth.DeleteToken(asClient(ctx, c, t.UserID), t)
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return false, serverErr(err)
	}
	return true, nil
}
