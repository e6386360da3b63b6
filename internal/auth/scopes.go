package auth

import (
	"sort"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// The token scopes, by name.
const (
	ScopeQuery             = "query"
	ScopeTiles             = "tiles"
	ScopeCatalog           = "catalog"
	ScopeWFS               = "wxs:wfs"
	ScopeWMS               = "wxs:wms"
	ScopeWCS               = "wxs:wcs"
	ScopeDocumentsRead     = "documents:read"
	ScopeDocumentsWrite    = "documents:write"
	ScopeLayersRead        = "layers:read"
	ScopeLayersWrite       = "layers:write"
	ScopeItemsWrite        = "items:write"
	ScopeSetsRead          = "sets:read"
	ScopeSetsWrite         = "sets:write"
	ScopeSourcesRead       = "sources:read"
	ScopeSourcesWrite      = "sources:write"
	ScopeUsersRead         = "users:read"
	ScopeUsersWrite        = "users:write"
	ScopeTokensRead        = "tokens:read"
	ScopeTokensWrite       = "tokens:write"
	ScopeExportsRead       = "exports:read"
	ScopeExportsWrite      = "exports:write"
	ScopeReposRead         = "repos:read"
	ScopeReposPush         = "repos:push"
	ScopeViewersRead       = "viewers:read"
	ScopeViewersWrite      = "viewers:write"
	ScopeNotificationsRead = "notifications:read"
	ScopeFeedbackRead      = "feedback:read"
	ScopeFeedbackWrite     = "feedback:write"
	// Webhook endpoints: see and manage them (webhooks:read lists them
	// and their delivery logs; webhooks:write creates, changes, rotates,
	// redelivers and deletes).
	ScopeWebhooksRead  = "webhooks:read"
	ScopeWebhooksWrite = "webhooks:write"
)

// KnownScopes are the token scopes the service understands: the
// specification's names plus those existing clients request.
var KnownScopes = []string{
	ScopeQuery, ScopeTiles, ScopeCatalog,
	ScopeWFS, ScopeWMS, ScopeWCS,
	ScopeDocumentsRead, ScopeDocumentsWrite,
	ScopeLayersRead, ScopeLayersWrite,
	// Catalog items are read with the specification's catalog scope and
	// written (created, edited, published, deleted) with items:write.
	ScopeItemsWrite,
	ScopeSetsRead, ScopeSetsWrite,
	ScopeSourcesRead, ScopeSourcesWrite,
	ScopeUsersRead, ScopeUsersWrite,
	ScopeTokensRead, ScopeTokensWrite,
	ScopeExportsRead, ScopeExportsWrite,
	ScopeReposRead, ScopeReposPush,
	ScopeViewersRead, ScopeViewersWrite,
	ScopeNotificationsRead,
	ScopeFeedbackRead, ScopeFeedbackWrite,
	ScopeWebhooksRead, ScopeWebhooksWrite,
}

// DefaultScopes are given to a token created without a scope: every read
// scope and the data-consumption scopes, none that writes.
var DefaultScopes = Scopes{
	ScopeQuery: {}, ScopeTiles: {}, ScopeCatalog: {},
	ScopeWFS: {}, ScopeWMS: {}, ScopeWCS: {},
	ScopeDocumentsRead: {}, ScopeLayersRead: {}, ScopeSetsRead: {}, ScopeSourcesRead: {},
	ScopeUsersRead: {}, ScopeExportsRead: {}, ScopeReposRead: {}, ScopeViewersRead: {},
	ScopeNotificationsRead: {}, ScopeFeedbackRead: {}, ScopeWebhooksRead: {},
}

// Scopes is a set of scope names.
type Scopes map[string]struct{}

// Has reports whether s holds scope.
func (s Scopes) Has(scope string) bool {
	_, ok := s[scope]
	return ok
}

// String renders the set space-delimited, sorted.
func (s Scopes) String() string {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// ParseScopes reads a space-delimited scope string, as stored on a token.
// Unknown names are kept, so a scope retired later does not break old
// tokens; use ValidateScopes on input.
func ParseScopes(s string) Scopes {
	out := Scopes{}
	for _, f := range strings.Fields(s) {
		out[f] = struct{}{}
	}
	return out
}

// ValidateScopes parses a requested scope string: every name must be known,
// and an empty request gets DefaultScopes.
func ValidateScopes(requested string) (Scopes, error) {
	fields := strings.Fields(strings.ReplaceAll(requested, ",", " "))
	if len(fields) == 0 {
		out := Scopes{}
		for k := range DefaultScopes {
			out[k] = struct{}{}
		}
		return out, nil
	}
	known := map[string]bool{}
	for _, k := range KnownScopes {
		known[k] = true
	}
	out := Scopes{}
	for _, f := range fields {
		if !known[f] {
			return nil, apperr.Field("scope", "Unknown scope "+quote(f)+".")
		}
		out[f] = struct{}{}
	}
	return out, nil
}

func quote(s string) string { return "\"" + s + "\"" }

// Covers reports whether s holds every scope of other. A token may only
// grant scopes it holds itself (see checkTokenChange).
func (s Scopes) Covers(other Scopes) bool {
	for k := range other {
		if !s.Has(k) {
			return false
		}
	}
	return true
}
