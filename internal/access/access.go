// Package access holds the rules that decide what a principal may do. Every
// front door (GraphQL, REST, point queries) reaches them through the
// resolvers, so a rule is written once.
package access

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// RequireScope fails with a 401 naming scope when the caller's token lacks
// it. Anonymous callers and sessions pass: scope limits tokens only.
func RequireScope(ctx context.Context, scope string) error {
	if !auth.FromContext(ctx).HasScope(scope) {
		return apperr.MissingScope(scope)
	}
	return nil
}

// RequireUser returns the signed-in user whose credentials carry scope, or
// a 401.
func RequireUser(ctx context.Context, scope string) (*ent.User, error) {
	p := auth.FromContext(ctx)
	if !p.Authenticated() {
		return nil, apperr.ErrNotAuthenticated
	}
	if scope != "" && !p.HasScope(scope) {
		return nil, apperr.MissingScope(scope)
	}
	return p.User, nil
}

// RequireSiteAdmin is RequireUser for site administrators only; other users
// get a 403.
func RequireSiteAdmin(ctx context.Context, scope string) (*ent.User, error) {
	u, err := RequireUser(ctx, scope)
	if err != nil {
		return nil, err
	}
	if !u.IsSiteAdmin {
		return nil, apperr.ErrForbidden
	}
	return u, nil
}

// RequireReader is RequireUser for the reads of an API whose write scope
// also lets a client read (exports: a client allowed to create exports
// must be able to follow and download them). A token with neither scope
// gets a 401 naming read.
func RequireReader(ctx context.Context, read, write string) (*ent.User, error) {
	if auth.FromContext(ctx).HasScope(write) {
		return RequireUser(ctx, "")
	}
	return RequireUser(ctx, read)
}
