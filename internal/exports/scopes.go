package exports

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
)

// The scopes of the export API.
const (
	ScopeRead  = auth.ScopeExportsRead
	ScopeWrite = auth.ScopeExportsWrite
)

// RequireReader returns the signed-in caller who may read exports: a
// session, or a token with exports:read or exports:write. A client allowed
// to create exports must be able to follow and download them, and the
// desktop plugin asks for exports:write alone (api-shapes §1.3). A token
// with neither gets a 401 naming exports:read.
func RequireReader(ctx context.Context) (*ent.User, error) {
	return access.RequireReader(ctx, ScopeRead, ScopeWrite)
}
