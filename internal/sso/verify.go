package sso

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/geopub/geopub/internal/apperr"
)

// identity is what a checked sign-in says of the user.
type identity struct {
	Subject               string
	Email                 string
	EmailVerified         bool
	GivenName, FamilyName string
	// Groups is the groups claim's values; HasGroups tells whether the
	// provider sent the claim at all.
	Groups    []string
	HasGroups bool
}

// refused is the message of an ID token that fails a check; the reason
// goes to the log only.
func refused(reason string, args ...any) error {
	return apperr.Wrap(fmt.Errorf(reason, args...), apperr.Unauthenticated,
		"The identity provider's answer could not be verified, so you are not signed in. Sign in again, or ask the site's operator.")
}

// verify checks the ID token of tok: its signature by a key of the
// provider's JWKS, issuer, audience (and azp), nonce, expiry and issue time
// (ClockSkew either way); then reads the claims, from the ID token and,
// for what it lacks, the UserInfo endpoint (whose subject must match).
func (s *Service) verify(ctx context.Context, p *provider, op *oidc.Provider, tok *oauth2.Token, nonce string) (*identity, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, refused("the token response has no id_token")
	}
	v := op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID, SkipExpiryCheck: true, Now: s.now})
	idt, err := v.Verify(ctx, raw)
	if err != nil {
		return nil, refused("id token: %v", err)
	}
	now := s.now()
	if idt.Expiry.IsZero() || now.After(idt.Expiry.Add(ClockSkew)) {
		return nil, refused("id token expired at %s", idt.Expiry)
	}
	if idt.IssuedAt.IsZero() || idt.IssuedAt.After(now.Add(ClockSkew)) {
		return nil, refused("id token issued in the future (%s)", idt.IssuedAt)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return nil, refused("id token nonce does not match the sign-in's")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return nil, refused("id token claims: %v", err)
	}
	// OIDC Core 3.1.3.7: with several audiences azp must be present; when
	// present it must be this client.
	azp, hasAZP := claims["azp"].(string)
	if (len(idt.Audience) > 1 && !hasAZP) || (hasAZP && azp != p.cfg.ClientID) {
		return nil, refused("id token azp %q is not client %q", azp, p.cfg.ClientID)
	}
	if tok.AccessToken != "" && idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			return nil, refused("at_hash: %v", err)
		}
	}
	if p.needsUserInfo(claims) && op.UserInfoEndpoint() != "" && tok.AccessToken != "" {
		if err := s.mergeUserInfo(ctx, op, tok, idt.Subject, claims); err != nil {
			return nil, err
		}
	}
	return p.identityOf(claims)
}

// needsUserInfo reports whether the ID token lacks a claim Geopub reads.
func (p *provider) needsUserInfo(claims map[string]any) bool {
	c := p.cfg.Claims
	for _, k := range []string{c.Subject, c.Email, c.EmailVerified, p.cfg.GroupsClaim} {
		if _, ok := claims[k]; k != "" && !ok {
			return true
		}
	}
	_, given := claims[c.GivenName]
	_, name := claims[c.Name]
	return !given && !name
}

// mergeUserInfo adds the UserInfo endpoint's claims the ID token lacks.
func (s *Service) mergeUserInfo(ctx context.Context, op *oidc.Provider, tok *oauth2.Token, sub string, claims map[string]any) error {
	ui, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The identity provider did not answer with your profile. Try again later.")
	}
	if ui.Subject != sub { // OIDC Core 5.3.4: a mismatch must not be used
		return refused("userinfo subject %q is not the id token's %q", ui.Subject, sub)
	}
	extra := map[string]any{}
	if err := ui.Claims(&extra); err != nil {
		return refused("userinfo claims: %v", err)
	}
	for k, v := range extra {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
	return nil
}

// identityOf reads the configured claims.
func (p *provider) identityOf(claims map[string]any) (*identity, error) {
	c := p.cfg.Claims
	id := &identity{Subject: str(claims[c.Subject]), Email: strings.TrimSpace(str(claims[c.Email])),
		GivenName: str(claims[c.GivenName]), FamilyName: str(claims[c.FamilyName])}
	if id.Subject == "" {
		return nil, refused("claim %q (subject) is missing or empty", c.Subject)
	}
	if len(id.Subject) > 255 {
		return nil, refused("claim %q (subject) is longer than 255 bytes", c.Subject)
	}
	switch v := claims[c.EmailVerified].(type) {
	case bool:
		id.EmailVerified = v
	case string: // some providers send "true"
		id.EmailVerified = v == "true"
	}
	if id.GivenName == "" && id.FamilyName == "" {
		id.GivenName, id.FamilyName = splitName(str(claims[c.Name]))
	}
	if p.cfg.GroupsClaim != "" {
		v, ok := claims[p.cfg.GroupsClaim]
		id.HasGroups = ok
		switch g := v.(type) {
		case string:
			id.Groups = []string{g}
		case []any:
			for _, e := range g {
				if s, ok := e.(string); ok {
					id.Groups = append(id.Groups, s)
				}
			}
		}
	}
	return id, nil
}

func str(v any) string { s, _ := v.(string); return s }

// splitName takes a full name apart at its last space.
func splitName(n string) (given, family string) {
	n = strings.TrimSpace(n)
	if i := strings.LastIndexByte(n, ' '); i > 0 {
		return n[:i], n[i+1:]
	}
	return n, ""
}
