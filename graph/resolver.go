// Package graph is the one implementation of every Geopub operation,
// authorization included. gqlgen serves it at /graphql, and the REST adapter
// (package rest) calls the same resolver methods, then renders the REST
// shapes.
package graph

import (
	"log/slog"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/accounts"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/follows"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/oauthserver"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/searchfeed"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/sso"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/tilearchives"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/webhooks"
)

// Resolver is the root of the resolvers; it holds only the dependencies.
type Resolver struct {
	Client *ent.Client
	Auth   *auth.Service
	// Fetch downloads remote sources through the address guard.
	Fetch *fetch.Client
	// Notify stores notifications and serves subscriptions to them.
	Notify *notify.Hub
	// Store is the database, for work that spans a transaction with jobs.
	Store *store.Store
	// Jobs enqueues durable jobs (scans, imports, publishes, exports).
	Jobs *jobs.Jobs
	// Blobs holds uploads and exports.
	Blobs *blob.Store
	// Exports holds the rules and the job of bulk exports.
	Exports *exports.Service
	// Scanner materializes sources (documents copy their files from them).
	Scanner *scanning.Scanner
	// Popularity counts views and downloads of datasets (nil counts
	// nothing).
	Popularity *popularity.Counter
	// Usage counts what the data services serve, per dataset, service
	// and token (nil counts nothing).
	Usage  *usage.Counter
	Logger *slog.Logger
	// Search is the catalogue's search index, kept current by Feed.
	Search search.Index
	Feed   *searchfeed.Feed
	// ChangeFeed records the catalogue's change feed (internal/changefeed).
	ChangeFeed *changefeed.Feed
	// WebhookService delivers the change feed to registered endpoints.
	WebhookService *webhooks.Service
	// Follows sends followed datasets' events to their followers.
	Follows *follows.Service
	// Secrets seals the credentials of sources before they are stored.
	Secrets *secrets.Box
	// Accounts locks, unlocks and deletes users and changes passwords and
	// sessions (internal/accounts).
	Accounts *accounts.Service
	// TileArchives are the PMTiles and MBTiles archives of published
	// layers and sets (nil lists none).
	TileArchives *tilearchives.Service
	// SSO signs users in through OpenID Connect providers (nil when none
	// is configured).
	SSO *sso.Service
	// OAuth is Geopub's OAuth 2.0 authorization server: registered
	// clients, grants and their tokens.
	OAuth *oauthserver.Service
}

// NewSchema returns the executable schema over r, with list fields costed
// by the number of items they may return.
func NewSchema(r *Resolver) graphql.ExecutableSchema {
	cfg := Config{Resolvers: r}
	cfg.Complexity.Query.Groups = func(child int, _ *entgql.Cursor[int], first *int, _ *entgql.Cursor[int], last *int, _ *ent.GroupOrder, _ *ent.GroupWhereInput) int {
		return listCost(child, first, last)
	}
	cfg.Complexity.Query.Users = func(child int, _ *entgql.Cursor[int], first *int, _ *entgql.Cursor[int], last *int, _ *ent.UserOrder, _ *ent.UserWhereInput) int {
		return listCost(child, first, last)
	}
	cfg.Complexity.Query.GroupSearch = func(child int, in *GroupSearchInput) int {
		if in == nil {
			return listCost(child, nil, nil)
		}
		return listCost(child, in.PageSize, nil)
	}
	cfg.Complexity.Query.UserSearch = func(child int, in *UserSearchInput) int {
		if in == nil {
			return listCost(child, nil, nil)
		}
		return listCost(child, in.PageSize, nil)
	}
	cfg.Complexity.Query.Search = func(child int, _ *SearchInput, first *int, _ *string) int {
		n := defaultSearchFirst
		if first != nil {
			n = *first
		}
		return listCost(child, &n, nil)
	}
	costSets(&cfg)
	return NewExecutableSchema(cfg)
}

// listCost is the complexity of a list field: its items' cost times the
// number of items it may return (the default page size when not given).
func listCost(child int, first, last *int) int {
	n := paging.DefaultSize
	switch {
	case first != nil:
		n = *first
	case last != nil:
		n = *last
	}
	if n < 1 {
		n = 1
	}
	return 1 + child*n
}
