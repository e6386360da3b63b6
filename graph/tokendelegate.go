package graph

import (
	"context"
	"time"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
)

// DelegatedTokenInput is a token request from a caller who is already
// authenticated (a session, or an API token sent as Bearer or key).
type DelegatedTokenInput struct {
	Name      *string
	Scope     *string
	ExpiresAt *time.Time
	Referrers []string
}

// CreateDelegatedToken makes a token for the caller without a password
// (the desktop plugin's POST /tokens/, api-shapes §1.3). A token caller
// needs the tokens:write scope and gets nothing stronger than itself
// (auth.Service.CreateDelegatedToken); anonymous callers get 401. An
// OAuth access token needs no tokens:write: the key it makes is bound to
// its grant and its scope.
func (r *Resolver) CreateDelegatedToken(ctx context.Context, in DelegatedTokenInput) (*CreatedToken, error) {
	need := auth.ScopeTokensWrite
	if p := auth.FromContext(ctx); p.Method == auth.TokenAuth && p.Token != nil && p.Token.OauthGrantID != nil {
		// An OAuth access token exchanges itself for a key of its own
		// grant and no more scope (the plugin's step 3; docs/decisions.md).
		need = ""
	}
	if _, err := access.RequireUser(ctx, need); err != nil {
		return nil, err
	}
	spec := auth.TokenSpec{ExpiresAt: in.ExpiresAt, Referrers: in.Referrers}
	if in.Name != nil {
		spec.Name = *in.Name
	}
	if in.Scope != nil {
		spec.Scope = *in.Scope
	}
	tok, key, err := r.Auth.CreateDelegatedToken(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &CreatedToken{Token: tok, Key: key}, nil
}
