package auth

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// What a request authenticated by an API token may change on a token (its
// own or a sibling of the same user). A token is a delegated, limited
// credential: it must never be able to make a credential that is stronger
// than itself, or a stolen short-lived, narrow key could be turned into a
// permanent, all-powerful one. So a token-authenticated change may not give
// any token
//
//   - a later expiry than the token has now (clearing the expiry is the
//     latest of all), unless the calling token itself lives at least that
//     long; a token therefore never extends its own life;
//   - a scope it does not have now, unless the calling token holds that
//     scope; a token therefore never widens its own scope;
//   - looser referrer rules (removing all rules, or adding a pattern)
//     than it has now, unless the calling token is itself used under those
//     rules (it has none, or the new rules are a subset of its own).
//
// Keeping or narrowing a setting is always allowed, so a REST PUT that
// sends a token back unchanged succeeds. Sessions (a signed-in person) are
// not limited. New tokens are made only by the password grant, whose
// credential is the password, so they are not limited either.

// tokenChange is a validated change to one token: the values it will have
// for the settings the change touches.
type tokenChange struct {
	scope     *Scopes
	setExpiry bool
	expiresAt *time.Time // nil with setExpiry: no expiry
	referrers *[]string
}

// checkTokenChange refuses, with 403, a change by the token-authenticated
// principal p to tok that would make tok stronger than both tok is now and
// p's own token is. Other principals may make any change.
func checkTokenChange(p Principal, tok *ent.Token, c tokenChange) error {
	if p.Method != TokenAuth || p.Token == nil {
		return nil
	}
	caller := p.Token
	callerScopes := p.Scopes
	if caller.ID == tok.ID {
		// The stored row is the authority on the caller's own settings.
		caller, callerScopes = tok, ParseScopes(tok.Scope)
	}
	if c.setExpiry && expiresLater(c.expiresAt, tok.ExpiresAt) && expiresLater(c.expiresAt, caller.ExpiresAt) {
		if caller.ID == tok.ID {
			return apperr.New(apperr.PermissionDenied,
				"A token cannot extend or remove its own expiry; sign in to do that.")
		}
		return apperr.New(apperr.PermissionDenied,
			"A token cannot give a token a later expiry than its own; sign in to do that.")
	}
	if c.scope != nil && !callerScopes.Covers(added(*c.scope, ParseScopes(tok.Scope))) {
		return apperr.New(apperr.PermissionDenied,
			"A token cannot grant scopes it does not hold itself.")
	}
	if c.referrers != nil && !narrowerReferrers(*c.referrers, tok.Referrers) && !narrowerReferrers(*c.referrers, caller.Referrers) {
		return apperr.New(apperr.PermissionDenied,
			"A token cannot loosen referrer rules beyond its own; sign in to do that.")
	}
	return nil
}

// added returns the scopes of want that had lacks.
func added(want, had Scopes) Scopes {
	out := Scopes{}
	for sc := range want {
		if !had.Has(sc) {
			out[sc] = struct{}{}
		}
	}
	return out
}

// expiresLater reports whether expiry a ends after expiry b, nil meaning
// never.
func expiresLater(a, b *time.Time) bool {
	switch {
	case b == nil:
		return false
	case a == nil:
		return true
	default:
		return a.After(*b)
	}
}

// narrowerReferrers reports whether the referrer rules want allow no more
// than have: have is unrestricted (no rules), or want is a non-empty subset
// of have. Rules are compared as normalised by ValidateReferrers.
func narrowerReferrers(want, have []string) bool {
	if len(have) == 0 {
		return true
	}
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// CreateDelegatedToken makes a token for the already authenticated
// principal of ctx (a session or an API token), without a password: the
// desktop plugin's POST /tokens/ with `Authorization: Bearer`
// (api-shapes §1.3). A session may make any token, as a password grant
// may. A token may make only a token no stronger than itself (the rules
// above): unset settings default to the calling token's own (its expiry,
// its referrers; for scopes, the default scopes it holds), and asking for
// a scope it lacks, a later expiry or looser referrers is refused with 403.
// An OAuth access token (one linked to a grant) is narrowed instead of
// refused on scope (narrowToCaller), and the key it makes belongs to the
// same grant, so revoking the grant deletes it too.
func (s *Service) CreateDelegatedToken(ctx context.Context, spec TokenSpec) (*ent.Token, string, error) {
	p := FromContext(ctx)
	if !p.Authenticated() {
		return nil, "", apperr.ErrNotAuthenticated
	}
	if p.Method == TokenAuth && p.Token != nil {
		caller := p.Token
		if strings.TrimSpace(spec.Scope) == "" {
			var held []string
			for sc := range DefaultScopes {
				if p.Scopes.Has(sc) {
					held = append(held, sc)
				}
			}
			slices.Sort(held)
			if len(held) == 0 {
				return nil, "", apperr.New(apperr.PermissionDenied, "This token holds none of the default scopes: name the scopes to grant.")
			}
			spec.Scope = strings.Join(held, " ")
		}
		if spec.ExpiresAt == nil {
			spec.ExpiresAt = caller.ExpiresAt
		}
		if spec.Referrers == nil {
			spec.Referrers = caller.Referrers
		}
		if caller.OauthGrantID != nil {
			narrowed, err := narrowToCaller(spec.Scope, p.Scopes)
			if err != nil {
				return nil, "", err
			}
			spec.Scope, spec.OAuthGrantID = narrowed, caller.OauthGrantID
		}
		sc := ParseScopes(strings.ReplaceAll(spec.Scope, ",", " "))
		refs := spec.Referrers
		// The new token is compared with the calling token alone: a
		// stand-in with the caller's settings and no scope of its own.
		standIn := &ent.Token{ID: -1, ExpiresAt: caller.ExpiresAt, Referrers: caller.Referrers}
		change := tokenChange{scope: &sc, setExpiry: true, expiresAt: spec.ExpiresAt, referrers: &refs}
		if err := checkTokenChange(p, standIn, change); err != nil {
			return nil, "", err
		}
	}
	return s.CreateToken(ctx, p.User, spec)
}

// narrowToCaller is the scope of a key made with an OAuth access token:
// the scopes asked for that the access token holds, as an authorization
// server may grant less than asked (RFC 6749 §3.3). The desktop plugin
// asks for write scopes with a read-only access token, and gets a
// read-only key rather than a refusal; the key's scope field says what
// it got. Unknown names are refused; a request of which the access token
// holds nothing gets 403.
func narrowToCaller(requested string, held Scopes) (string, error) {
	want, err := ValidateScopes(requested)
	if err != nil {
		return "", err
	}
	out := Scopes{}
	for sc := range want {
		if held.Has(sc) {
			out[sc] = struct{}{}
		}
	}
	if len(out) == 0 {
		return "", apperr.New(apperr.PermissionDenied, "This access token holds none of the scopes asked for.")
	}
	return out.String(), nil
}
