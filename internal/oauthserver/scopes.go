package oauthserver

import (
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/auth"
)

// ScopeRead is the OAuth scope desktop clients ask for (api-shapes §1.3):
// every read scope of an API token (auth.DefaultScopes), no write.
const ScopeRead = "read"

// SupportedScopes are the OAuth scopes a client may be registered for:
// read, and each API token scope by its own name.
func SupportedScopes() []string {
	return append([]string{ScopeRead}, auth.KnownScopes...)
}

// parseScope splits an OAuth scope parameter (space-delimited, RFC 6749
// §3.3) into sorted, unique names, refusing unknown ones.
func parseScope(s string) ([]string, bool) {
	known := SupportedScopes()
	var out []string
	for _, f := range strings.Fields(s) {
		if !slices.Contains(known, f) {
			return nil, false
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, true
}

// tokenScope is the API token scope an OAuth scope list grants: read
// stands for the default (read) scopes; other names are token scopes.
func tokenScope(oauthScopes []string) string {
	set := auth.Scopes{}
	for _, sc := range oauthScopes {
		if sc == ScopeRead {
			for k := range auth.DefaultScopes {
				set[k] = struct{}{}
			}
			continue
		}
		set[sc] = struct{}{}
	}
	return set.String()
}

// ScopeDescription says in words what a scope lets a client do, for the
// consent page.
func ScopeDescription(scope string) string {
	if d, ok := scopeWords[scope]; ok {
		return d
	}
	return "Use the " + scope + " part of the API."
}

var scopeWords = map[string]string{
	ScopeRead: "Read, without changing anything, everything your account may see: layers, tables, sets, " +
		"documents, catalogue items, sources, your profile, exports, notifications and feedback, " +
		"through the API, queries, tiles and map services; and make API keys limited to the same.",
	auth.ScopeQuery:             "Run point queries on data you may see.",
	auth.ScopeTiles:             "Load map tiles of data you may see.",
	auth.ScopeCatalog:           "Search and read the catalogue.",
	auth.ScopeWFS:               "Read data you may see through WFS.",
	auth.ScopeWMS:               "Draw maps of data you may see through WMS.",
	auth.ScopeWCS:               "Read coverages you may see through WCS.",
	auth.ScopeDocumentsRead:     "Read documents you may see.",
	auth.ScopeDocumentsWrite:    "Create, change and delete documents in your name.",
	auth.ScopeLayersRead:        "Read layers and tables you may see.",
	auth.ScopeLayersWrite:       "Create, change, publish and delete layers and tables in your name.",
	auth.ScopeItemsWrite:        "Create, change, publish and delete catalogue items in your name.",
	auth.ScopeSetsRead:          "Read sets you may see.",
	auth.ScopeSetsWrite:         "Create, change, publish and delete sets in your name.",
	auth.ScopeSourcesRead:       "Read your data sources.",
	auth.ScopeSourcesWrite:      "Create, change and delete your data sources.",
	auth.ScopeUsersRead:         "Read your profile and the users and groups you may see.",
	auth.ScopeUsersWrite:        "Change your profile, and users and groups you administer.",
	auth.ScopeTokensRead:        "List your API tokens.",
	auth.ScopeTokensWrite:       "Create, change and delete your API tokens.",
	auth.ScopeExportsRead:       "Read your exports and download them.",
	auth.ScopeExportsWrite:      "Create exports in your name.",
	auth.ScopeReposRead:         "Read data repositories you may see.",
	auth.ScopeReposPush:         "Push changes to data repositories in your name.",
	auth.ScopeViewersRead:       "Read who may view your data.",
	auth.ScopeViewersWrite:      "Change who may view your data.",
	auth.ScopeNotificationsRead: "Read your notifications.",
	auth.ScopeFeedbackRead:      "Read feedback you may see.",
	auth.ScopeFeedbackWrite:     "Leave and change feedback in your name.",
	auth.ScopeWebhooksRead:      "Read your webhooks and their deliveries.",
	auth.ScopeWebhooksWrite:     "Create, change and delete your webhooks.",
}
