// Package server assembles Geopub's HTTP service: the store, the
// resolvers, GraphQL at /graphql (its SDL at /graphql/schema.graphql), the
// REST API under /services/api/ (its OpenAPI document at openapi.json),
// the explorer at /graphiql and the health checks. cmd/geopub runs it, and
// end-to-end tests start it on a free port with a temporary data
// directory.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/graph/explorer"
	"github.com/geopub/geopub/internal/accounts"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/croplayers"
	"github.com/geopub/geopub/internal/datatable"
	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/follows"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/metrics"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/oauthserver"
	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/publishing"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/schedule"
	"github.com/geopub/geopub/internal/scratch"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/searchfeed"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/site"
	"github.com/geopub/geopub/internal/smalldata"
	"github.com/geopub/geopub/internal/sso"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/tilearchives"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/vectortiles"
	"github.com/geopub/geopub/internal/webhooks"
	"github.com/geopub/geopub/internal/wfsserver"
	"github.com/geopub/geopub/ogc"
	"github.com/geopub/geopub/queryapi"
	"github.com/geopub/geopub/rest"
	"github.com/geopub/geopub/web/dcatfeed"
	"github.com/geopub/geopub/web/frontpage"
	"github.com/geopub/geopub/web/htmlview"
	"github.com/geopub/geopub/web/mappreview"
	"github.com/geopub/geopub/web/oauthpages"
	"github.com/geopub/geopub/web/signin"
)

// Config is what `geopub serve` is told.
type Config struct {
	// Addr is the listen address; default 127.0.0.1:8080.
	Addr string
	// DataDir holds the embedded database and blobs; default ./data.
	DataDir string
	// DatabaseURL selects PostgreSQL (postgres://...); empty is the
	// embedded SQLite file in DataDir.
	DatabaseURL string
	// BaseURL is the public origin used in absolute URLs; empty means the
	// request's own.
	BaseURL string
	// SitemapURLs caps the URLs of one sitemap file (/sitemap.xml
	// becomes an index past it); 0 is the protocol's sitemap.MaxURLs.
	// Tests lower it to exercise the index.
	SitemapURLs int
	// Auth tunes sessions and throttling.
	Auth auth.Config
	// OAuth sets the lifetimes of the OAuth authorization server's codes
	// and tokens.
	OAuth oauthserver.Config
	// FetchAllow lists private addresses remote sources may reach anyway
	// (the operator's allow-list); by default only public addresses are.
	FetchAllow []netip.Prefix
	// SecretKey is the key credentials of sources are sealed under at
	// rest (package secrets, 32 bytes); when nil, the key in
	// DataDir/secret.key, generated there on first start.
	SecretKey []byte
	// FetchTimeout is the total budget of one remote download, and
	// FetchStallTimeout how long it may receive nothing (fetch's
	// defaults when zero).
	FetchTimeout, FetchStallTimeout time.Duration
	// Limits bound what scans unpack and the rasters scans and imports
	// accept (ingest's defaults for zero fields).
	Limits ingest.Limits
	// BlobURL selects blob storage: empty for DataDir/blobs, file:///path,
	// or s3://bucket?endpoint=...&region=...
	BlobURL string
	// MaxUploadBytes bounds one multipart upload; 0 is
	// rest.DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// SmallDataMaxFileBytes is the largest attached file the small-data
	// service serves; 0 is smalldata.DefaultMaxFileBytes (50 MiB).
	SmallDataMaxFileBytes int64
	// TrustedProxies are the peers whose Forwarded and X-Forwarded-*
	// headers name the client (internal/forwarded); none by default.
	TrustedProxies forwarded.Proxies
	// RateLimits are the operator's rate-limit policies by route class
	// (internal/ratelimit); none by default.
	RateLimits ratelimit.Config
	// RequestTimeout is the time budget of one request's work (budget.go);
	// 0 is DefaultRequestTimeout, negative none.
	RequestTimeout time.Duration
	// Query tunes the point-query service (index memory budget).
	Query queryapi.Config
	// Tiles tunes the vector tile service (cache size, freshness).
	Tiles vectortiles.Config
	// RasterTileCacheBytes bounds the raster tile cache
	// (rastertiles.DefaultCacheBytes when zero).
	RasterTileCacheBytes int64
	// WarmQueryIndexes builds the point-query indexes of published layers
	// in the background at Start.
	WarmQueryIndexes bool
	// SkipSearchRebuild leaves the search index as it is at Start (tests
	// that build the index themselves); by default Start rebuilds it in the
	// background when it is empty or was built by older code.
	SkipSearchRebuild bool
	// ExternalServices turns the external-services site setting on at
	// start (site administrators can switch it later).
	ExternalServices bool
	// ImportProgressEvery is how often running imports record and
	// announce their progress (importing.DefaultProgressEvery when zero).
	ImportProgressEvery time.Duration
	// MetricsAddr, when set, is a second listen address that serves
	// /metrics to anyone who reaches it (a scraper on a private network);
	// the main address serves /metrics to site administrators only.
	MetricsAddr string
	// HealthAddr, when set, is a second listen address that serves only
	// /healthz and /readyz, for a process without the API (geopub
	// worker) or probes kept off the public address.
	HealthAddr string
	// PopularityFlushEvery is how often counted views and downloads are
	// written (popularity.DefaultInterval when zero; never when negative);
	// they are also written at Stop.
	PopularityFlushEvery time.Duration
	// UsageFlushEvery is how often the usage figures counted are added
	// to the database (usage.DefaultInterval when zero; never when
	// negative); they are also written at Stop.
	UsageFlushEvery time.Duration
	// Exports are the operator's limits on exports (exports' defaults for
	// zero fields: features, zipped bytes, raster cells, running exports
	// per user, and how long a file is kept).
	Exports exports.Limits
	// TileArchives are the operator's limits on tile archives
	// (tilearchives' defaults for zero fields: zoom ranges, tiles, bytes).
	TileArchives tilearchives.Limits
	// ExportSweepEvery is how often expired exports are turned gone
	// (exports.DefaultSweepEvery when zero; never when negative), and
	// ExportProgressEvery how often running exports record their progress.
	ExportSweepEvery, ExportProgressEvery time.Duration
	// ScheduleTick is how often scheduled scans and auto-updates are
	// looked for (schedule.DefaultTick when zero).
	ScheduleTick time.Duration
	// Jobs configures the durable job client. InsertOnly makes a process
	// that serves requests without working jobs (a `geopub worker` does).
	Jobs jobs.Config
	// StreamHeartbeat is how often idle subscriptions (websockets and
	// server-sent events) send a heartbeat (graph.DefaultHeartbeat when
	// zero).
	StreamHeartbeat time.Duration
	// SSO are the OpenID Connect providers users may sign in with
	// (sso.LoadConfig); none by default.
	SSO    sso.Config
	Logger *slog.Logger
}

// Server is a configured, migrated Geopub service: the HTTP handler and
// the job workers over one store.
type Server struct {
	cfg      Config
	Store    *store.Store
	Resolver *graph.Resolver
	// Query serves the point-query APIs.
	Query *queryapi.Service
	// Tiles makes the vector tiles of published layers and sets.
	Tiles *vectortiles.Service
	// Rasters makes their raster tiles (and WMTS).
	Rasters *rastertiles.Service
	// Archives builds and serves their PMTiles and MBTiles archives.
	Archives *tilearchives.Service
	// DataTable reads the rows of published layers and tables (its JSON
	// and CSV door and the HTML table pages).
	DataTable *datatable.Service
	// Metrics is this process's Prometheus registry.
	Metrics *metrics.Metrics
	// RateLimits counts requests by the rate-limit policies and shares
	// the counts through the store; nil when nothing is limited.
	RateLimits *ratelimit.Limiter
	// metricsSrv serves MetricsAddr, healthSrv HealthAddr, between Start
	// and Stop.
	metricsSrv, healthSrv *http.Server
	handler               http.Handler
	logger                *slog.Logger
	// scratch is this process's temporary area, DataDir/tmp/<process>.
	scratch *scratch.Area
	// stopSweep stops the expiry sweep of exports (nil before Start).
	stopSweep func()
	// stopRebuild cancels the search index rebuild Start began and waits
	// for it (nil when none was begun).
	stopRebuild func()
}

// New opens and migrates the database and builds the handler.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8080"
	}
	if cfg.DataDir == "" {
		cfg.DataDir = "data"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	st, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return nil, err
	}
	// River's tables come with the schema, so jobs can be enqueued (and
	// worked, once the owner wires jobs.StartWorking in) from the start.
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
		st.Close()
		return nil, err
	}
	srv, err := NewWithStore(ctx, cfg, st)
	if err != nil {
		st.Close()
		return nil, err
	}
	return srv, nil
}

// NewWithStore builds the service over an open store whose Geopub and River
// migrations are applied: blob storage, the job client with every worker
// registered, the notification hub and the resolvers.
func NewWithStore(ctx context.Context, cfg Config, st *store.Store) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Jobs.Logger == nil {
		cfg.Jobs.Logger = cfg.Logger
	}
	box, err := secretBox(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkSecretKey(ctx, st, box); err != nil {
		return nil, err
	}
	if cfg.ExternalServices {
		if err := site.Set(ctx, st.Client, site.ExternalServices, true); err != nil {
			return nil, err
		}
	}
	// Every temporary file of this process lives in its folder of the
	// data directory's temporary area; folders left by dead processes
	// are removed here.
	tmp, err := scratch.Open(filepath.Join(cfg.DataDir, "tmp"))
	if err != nil {
		return nil, err
	}
	blobs, err := blob.OpenLogged(ctx, cfg.BlobURL, cfg.DataDir, cfg.Logger)
	if err != nil {
		tmp.Close()
		return nil, fmt.Errorf("opening blob storage: %w", err)
	}
	if !cfg.Jobs.InsertOnly {
		cfg.Jobs.Periodic = append(slices.Clone(cfg.Jobs.Periodic), schedule.Periodic(cfg.ScheduleTick))
	}
	j, err := jobs.New(st, cfg.Jobs)
	if err != nil {
		tmp.Close()
		blobs.Close()
		return nil, err
	}
	res := &graph.Resolver{
		Client:  st.Client,
		Auth:    auth.NewService(st.Client, st, cfg.Auth),
		Fetch:   &fetch.Client{Guard: &fetch.Guard{Allow: cfg.FetchAllow}, Timeout: cfg.FetchTimeout, StallTimeout: cfg.FetchStallTimeout},
		Notify:  notify.New(st, cfg.Logger),
		Store:   st,
		Jobs:    j,
		Blobs:   blobs,
		Logger:  cfg.Logger,
		Search:  search.New(st),
		Secrets: box,
	}
	res.Accounts = accounts.New(st, res.Auth, blobs, cfg.Logger)
	if len(cfg.SSO.Providers) > 0 {
		res.SSO = sso.New(st.Client, st, cfg.SSO, sso.Options{Logger: cfg.Logger})
	}
	res.OAuth = oauthserver.New(st, res.Auth, cfg.OAuth)
	res.Popularity = popularity.New(st, cfg.Logger)
	res.Usage = usage.New(st, cfg.Logger)
	res.Feed = searchfeed.Install(st, res.Search, cfg.Logger)
	res.Popularity.AfterFlush = res.Feed.PopularityChanged
	res.ChangeFeed = changefeed.Install(st, j, cfg.Logger)
	// Payload URLs are absolute under BaseURL; without one, paths.
	origin := strings.TrimRight(cfg.BaseURL, "/")
	res.WebhookService = &webhooks.Service{Store: st, Jobs: j, Guard: res.Fetch.Guard, Secrets: box, Notify: res.Notify,
		Logger: cfg.Logger, API: origin + "/services/api/v1.x/", Site: origin + "/"}
	res.WebhookService.Install(res.ChangeFeed)
	res.Follows = &follows.Service{Store: st, Jobs: j, Notify: res.Notify,
		API: origin + "/services/api/v1.x/", Site: origin + "/"}
	res.Follows.Install(res.ChangeFeed)
	res.Exports = &exports.Service{Store: st, Jobs: j, Blobs: blobs, Notify: res.Notify, Popularity: res.Popularity,
		Logger: cfg.Logger, Limits: cfg.Exports, WorkDir: tmp.Dir(), ProgressEvery: cfg.ExportProgressEvery,
		CropFeature: croplayers.New(st).FeatureByURL}
	res.Scanner = &scanning.Scanner{Store: st, Blobs: blobs, Fetch: res.Fetch, Notify: res.Notify, Logger: cfg.Logger,
		WorkDir: tmp.Dir(), Limits: cfg.Limits, Secrets: box}
	if !cfg.Jobs.InsertOnly {
		if err := registerWorkers(j, res, cfg.ImportProgressEvery); err != nil {
			j.Close()
			blobs.Close()
			tmp.Close()
			return nil, err
		}
	}
	sampler := grids.NewSampler(blobs, filepath.Join(cfg.DataDir, "cache", "grids"))
	query := queryapi.New(st, sampler, cfg.Query, cfg.Logger)
	// Vector tiles read the point queries' feature indexes once built.
	tiles := cfg.Tiles
	tiles.Indexes = query.Indexes()
	s := &Server{cfg: cfg, Store: st, Resolver: res, Query: query, logger: cfg.Logger,
		Tiles: vectortiles.New(st, tiles, cfg.Logger), scratch: tmp}
	s.Rasters = rastertiles.New(s.Tiles, sampler, cfg.RasterTileCacheBytes, cfg.Logger)
	s.Archives = &tilearchives.Service{Store: st, Jobs: j, Blobs: blobs, Notify: res.Notify, Tiles: s.Tiles,
		Rasters: s.Rasters, Limits: cfg.TileArchives, WorkDir: tmp.Dir(), Logger: cfg.Logger, ProgressEvery: cfg.ExportProgressEvery}
	s.Archives.Install()
	res.TileArchives = s.Archives
	if !cfg.Jobs.InsertOnly {
		if err := jobs.Register(j, &tilearchives.Worker{S: s.Archives}); err != nil {
			j.Close()
			blobs.Close()
			tmp.Close()
			return nil, err
		}
	}
	tableFresh := cfg.Query.Fresh
	if tableFresh <= 0 {
		tableFresh = queryapi.DefaultConfig.Fresh
	}
	s.DataTable = datatable.New(ogcfeatures.New(st, tableFresh, cfg.Logger))
	if s.Metrics, err = newMetrics(s); err != nil {
		j.Close()
		blobs.Close()
		tmp.Close()
		return nil, err
	}
	s.RateLimits = ratelimit.New(cfg.RateLimits, st, cfg.Logger)
	s.handler = s.routes()
	return s, nil
}

// secretBox is the box of cfg's secret key, or of the data directory's
// key file (generated, and announced in the log, on first start).
func secretBox(cfg Config) (*secrets.Box, error) {
	key := cfg.SecretKey
	if key == nil {
		var created bool
		var err error
		if key, created, err = secrets.LoadOrCreate(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("reading the secret key: %w", err)
		}
		if created {
			cfg.Logger.Info("generated the key that seals source credentials; keep it, or set GEOPUB_SECRET_KEY",
				"file", filepath.Join(cfg.DataDir, secrets.KeyFile))
		}
	}
	return secrets.New(key)
}

// checkSecretKey refuses a key that cannot open the credentials the
// database holds: a process started with another key than its peers
// would otherwise fail every credentialed scan later. One sealed value is
// tried, so that start stays fast whatever the number of sources.
func checkSecretKey(ctx context.Context, st *store.Store, box *secrets.Box) error {
	src, err := st.Client.Source.Query().
		Where(source.Or(source.PasswordHasPrefix(secrets.Prefix), source.UsernameHasPrefix(secrets.Prefix))).
		Select(source.FieldUsername, source.FieldPassword).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking the secret key against stored credentials: %w", err)
	}
	for _, v := range []string{src.Username, src.Password} {
		if _, err := box.Open(v); err != nil {
			return errors.New("the database holds source credentials sealed under another secret key: " +
				"set --secret-key (GEOPUB_SECRET_KEY) to the key the other processes use " +
				"(or copy their data directory's " + secrets.KeyFile + ")")
		}
	}
	return nil
}

// registerWorkers adds every job worker Geopub has: the one place the
// capability packages (scan, import, publish, export) hook in.
func registerWorkers(j *jobs.Jobs, res *graph.Resolver, progressEvery time.Duration) error {
	scanner := res.Scanner
	if err := jobs.Register(j, &scanning.Worker{S: scanner}); err != nil {
		return err
	}
	importer := &importing.Importer{Store: res.Store, Scanner: scanner, Notify: res.Notify, Logger: res.Logger, Blobs: res.Blobs,
		ProgressEvery: progressEvery}
	if err := jobs.Register(j, &importing.Worker{I: importer}); err != nil {
		return err
	}
	publisher := &publishing.Publisher{Store: res.Store, Notify: res.Notify, Logger: res.Logger}
	if err := jobs.Register(j, &publishing.Worker{P: publisher}); err != nil {
		return err
	}
	if err := jobs.Register(j, &exports.Worker{S: res.Exports}); err != nil {
		return err
	}
	if err := jobs.Register(j, &changefeed.Worker{F: res.ChangeFeed}); err != nil {
		return err
	}
	if err := jobs.Register(j, &webhooks.Worker{S: res.WebhookService}); err != nil {
		return err
	}
	if err := jobs.Register(j, &follows.Worker{S: res.Follows}); err != nil {
		return err
	}
	return jobs.Register(j, &schedule.Worker{S: &schedule.Scheduler{Store: res.Store, Jobs: j, Notify: res.Notify, Logger: res.Logger}})
}

// Start starts the background parts: the notification listener and, unless
// the job client is insert-only, the job workers.
func (s *Server) Start(ctx context.Context) error {
	if err := s.startMetrics(); err != nil {
		return err
	}
	if err := s.startHealth(); err != nil {
		return err
	}
	s.Resolver.Notify.Start(ctx)
	s.Resolver.Popularity.Start(ctx, s.cfg.PopularityFlushEvery)
	s.RateLimits.Start(ctx)
	s.Resolver.Usage.Start(ctx, s.cfg.UsageFlushEvery)
	s.stopSweep = s.Resolver.Exports.StartSweeper(context.WithoutCancel(ctx), s.cfg.ExportSweepEvery)
	if !s.cfg.SkipSearchRebuild {
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		s.stopRebuild = func() { cancel(); <-done }
		go func() {
			defer close(done)
			s.ensureSearchIndex(rctx)
		}()
	}
	if s.cfg.WarmQueryIndexes {
		go func() {
			if err := s.Query.Warm(ctx); err != nil && ctx.Err() == nil {
				s.logger.WarnContext(ctx, "warming point-query indexes", "err", err)
			}
		}()
	}
	if s.cfg.Jobs.InsertOnly {
		return nil
	}
	return s.Resolver.Jobs.Start(ctx)
}

// Stop writes the counted views and downloads, stops the job workers
// (running jobs get the configured time to finish) and the notification
// hub, then removes this process's temporary folder.
func (s *Server) Stop(ctx context.Context) error {
	if s.stopRebuild != nil {
		s.stopRebuild()
	}
	if s.stopSweep != nil {
		s.stopSweep()
	}
	// Counted views and downloads are written before the wait for
	// running jobs, which may last until the supervisor kills the
	// process; what is counted meanwhile is written after it.
	perr := s.Resolver.Popularity.Stop(ctx)
	if lerr := s.RateLimits.Stop(ctx); lerr != nil {
		s.logger.WarnContext(ctx, "sharing rate limit counts at stop", "err", lerr)
	}
	uerr := s.Resolver.Usage.Stop(ctx)
	var err error
	if !s.cfg.Jobs.InsertOnly {
		err = s.Resolver.Jobs.Stop(ctx)
	} else {
		s.Resolver.Jobs.Close()
	}
	s.Resolver.Notify.Stop()
	if _, ferr := s.Resolver.Popularity.Flush(ctx); perr == nil {
		perr = ferr
	}
	if _, ferr := s.Resolver.Usage.Flush(ctx); uerr == nil {
		uerr = ferr
	}
	if err == nil && perr != nil {
		err = fmt.Errorf("writing popularity counters: %w", perr)
	}
	if err == nil && uerr != nil {
		err = fmt.Errorf("writing usage figures: %w", uerr)
	}
	s.stopMetrics(ctx)
	s.stopHealth(ctx)
	if terr := s.scratch.Close(); err == nil && terr != nil {
		err = fmt.Errorf("removing the temporary folder: %w", terr)
	}
	return err
}

// TempDir is this process's folder in the data directory's temporary
// area; it is removed by Stop and Close, and by the next process to
// start if this one dies.
func (s *Server) TempDir() string { return s.scratch.Dir() }

// Handler is the whole HTTP service.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	// First: the key of /services;key={token}/... moves to the query
	// before anything (the request log included) sees the path.
	r.Use(ogc.PathKey)
	// Then the client as the operator's proxies name it (address, scheme,
	// host), for the logs, the limits and the links alike.
	r.Use(s.cfg.TrustedProxies.Middleware)
	r.Use(newRequestIDs().middleware)
	r.Use(s.Metrics.Middleware)
	r.Use(s.recoverJSON)
	r.Use(s.logRequests)
	r.Use(defaultScopeHeader)
	r.Get("/healthz", healthy)
	r.Get("/readyz", s.ready)
	r.Method(http.MethodGet, "/", frontpage.Handler())
	r.Method(http.MethodHead, "/", frontpage.Handler())
	gql := middleware.Compress(5)(explorer.Handler("/graphql"))
	r.Handle(explorer.Path, gql)
	r.Handle(explorer.Path+"/*", gql)
	// The map preview's scripts and stylesheet (pages embed the maps).
	r.With(middleware.Compress(5)).Handle(mappreview.Path+"/*", mappreview.Handler())
	r.With(middleware.Compress(5)).Get(apidoc.SDLPath, apidoc.SDLHandler(graph.NewSchema(s.Resolver).Schema()))
	// Rate limits count after authentication, by token, user or address;
	// each group's refusals in its door's own error format.
	lim := s.RateLimits
	timeout := s.cfg.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	r.Group(func(r chi.Router) {
		r.Use(s.Resolver.Auth.Middleware)
		r.Use(withLoaders)
		r.With(budget(timeout, uploads), lim.Fixed(ratelimit.GraphQL, auth.WriteFailure)).Handle("/graphql", graph.NewHandler(s.Resolver, s.logger, graph.Options{Heartbeat: s.cfg.StreamHeartbeat}))
		r.Get("/metrics", s.adminMetrics)
		// The pages url_html links point at, read as the caller (a
		// browser's session cookie included), with robots.txt and the
		// sitemaps.
		// The sign-in page and the browser side of single sign-on.
		signin.New(s.Resolver.Auth, s.Resolver.SSO, s.logger, s.cfg.BaseURL, s.cfg.Auth.SecureCookies).Routes(r)
		htmlview.New(s.Resolver, s.logger, explorer.Path).WithMaps(s.Tiles, s.Rasters).
			WithSite(s.cfg.BaseURL, s.cfg.SitemapURLs).WithDataTable(s.DataTable).Routes(r)
		// The DCAT feeds harvesters read, as the caller may see the
		// catalogue.
		r.With(budget(timeout, nil), lim.Fixed(ratelimit.Reads, auth.WriteFailure), middleware.Compress(5, dcatfeed.MediaTypes...)).Group(dcatfeed.New(s.Resolver, s.cfg.BaseURL, s.logger).Routes)
		api := rest.New(s.Resolver, s.logger, s.cfg.BaseURL)
		api.MaxUploadBytes = s.cfg.MaxUploadBytes
		r.With(budget(timeout, transfers), lim.By(restClass, auth.WriteFailure), middleware.Compress(5), s.Resolver.Usage.Middleware).Group(api.Mount)
	})
	// The OAuth 2.0 authorization server's endpoints read the session
	// themselves: the consent form carries its CSRF token as a field.
	// Their rate limits count by client address (a token request names
	// its client in the body, read only by the endpoint).
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(lim.By(methodClass, oauthpages.LimitFailure))
		oauthpages.New(s.Resolver.OAuth, s.Resolver.Auth, s.cfg.BaseURL, s.logger).Routes(r)
	})
	// The point-query APIs also take the key as a query parameter.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(queryapi.AuthFailure))
		r.Use(lim.Fixed(ratelimit.Queries, queryapi.AuthFailure))
		r.Use(s.Resolver.Usage.Middleware)
		s.Query.Mount(r)
	})
	// Vector and raster tiles, TileJSON and WMTS, with the key as a
	// header, a query parameter or a path parameter.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.Tiles, corsFailure))
		r.Use(s.Resolver.Usage.Middleware)
		raster := ogc.NewRasterTiles(s.Rasters, s.cfg.BaseURL, s.logger)
		ogc.NewTiles(s.Tiles, s.cfg.BaseURL, s.logger).WithRaster(raster).Mount(r)
		raster.Mount(r)
	})
	// Tile archives: their files' length is theirs, not a request budget's.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, ogc.IsArchiveFile))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.Exports, corsFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewTileArchives(s.Archives, s.cfg.BaseURL, s.logger).Mount(r)
	})
	// OGC API - Features takes the key as a query parameter too, so that
	// clients that cannot send headers (GDAL's OAPIF: URLs) reach it.
	// Like them, it reuses access decisions for the freshness window.
	fresh := s.cfg.Query.Fresh
	if fresh <= 0 {
		fresh = queryapi.DefaultConfig.Fresh
	}
	feats := ogcfeatures.New(s.Store, fresh, s.logger)
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.OGC, auth.WriteFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewFeatures(feats, s.cfg.BaseURL).Mount(r)
	})
	// The data table (rows of layers and tables as JSON and CSV) over the
	// same reader, with the key as a query parameter too.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.OGC, auth.WriteFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewDataTable(s.DataTable, s.cfg.BaseURL, s.logger).Mount(r)
	})
	// Small data: the files attached to catalog items, downloads (no
	// request budget), the key as a query parameter too.
	r.Group(func(r chi.Router) {
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.OGC, auth.WriteFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewSmallData(smalldata.New(s.Store.Client, s.Resolver.Blobs, s.cfg.SmallDataMaxFileBytes), s.cfg.BaseURL, s.logger).Mount(r)
	})
	// WFS 2.0 and 1.1 over the same collections, its refusals (a bad key
	// included) as OWS exception reports.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(ogc.WFSAuthFailure))
		r.Use(lim.Fixed(ratelimit.OGC, ogc.WFSAuthFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewWFS(wfsserver.New(feats), s.cfg.BaseURL).Mount(r)
	})
	// OGC API - Records over the catalogue's records (the query /data/
	// uses), with the key as a query parameter too, as Features.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(auth.WriteFailure))
		r.Use(lim.Fixed(ratelimit.Search, auth.WriteFailure))
		r.Use(s.Resolver.Usage.Middleware)
		r.Use(withLoaders)
		ogc.NewRecords(s.Resolver, s.cfg.BaseURL, s.logger).Mount(r)
	})
	// CSW 2.0.2 and 3.0 over the catalogue's records (the query /data/
	// uses), refusals as OWS exception reports.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(s.Resolver.Auth.KeyParamMiddleware(ogc.CSWAuthFailure))
		r.Use(lim.Fixed(ratelimit.Search, ogc.CSWAuthFailure))
		r.Use(withLoaders)
		ogc.NewCSW(s.Resolver, s.cfg.BaseURL, s.logger).Mount(r)
	})
	// GeoServices REST (the ArcGIS REST API) over published layers and
	// sets, the key also as Esri's token=, refusals as Esri error JSON.
	r.Group(func(r chi.Router) {
		r.Use(budget(timeout, nil))
		r.Use(ogc.ArcGISToken)
		r.Use(s.Resolver.Auth.KeyParamMiddleware(ogc.ArcGISAuthFailure))
		r.Use(lim.Fixed(ratelimit.OGC, ogc.ArcGISAuthFailure))
		r.Use(s.Resolver.Usage.Middleware)
		ogc.NewArcGIS(feats, s.Tiles, s.Rasters, s.cfg.BaseURL, s.logger).Mount(r)
	})
	return r
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.Store.Ping(ctx); err != nil {
		s.logger.WarnContext(ctx, "readiness check failed", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unreachable\n"))
		return
	}
	if err := s.Resolver.Blobs.Ping(ctx); err != nil {
		s.logger.WarnContext(ctx, "readiness check failed", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("blob storage unreachable\n"))
		return
	}
	if !s.cfg.Jobs.InsertOnly && !s.Resolver.Jobs.Running() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("job workers not running\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// healthy answers /healthz: the process is up.
func healthy(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// startHealth serves /healthz and /readyz (the same checks as the main
// address's) on Config.HealthAddr, when set, until stopHealth.
func (s *Server) startHealth() error {
	if s.cfg.HealthAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.HealthAddr)
	if err != nil {
		return fmt.Errorf("listening for health checks on %s: %w", s.cfg.HealthAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthy)
	mux.HandleFunc("GET /readyz", s.ready)
	s.healthSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.healthSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("serving health checks", "addr", s.cfg.HealthAddr, "err", err)
		}
	}()
	s.logger.Info("health checks listening", "addr", ln.Addr().String())
	return nil
}

// stopHealth closes the health listener.
func (s *Server) stopHealth(ctx context.Context) {
	if s.healthSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = s.healthSrv.Shutdown(ctx)
	s.healthSrv = nil
}

// withLoaders gives each request its own batch loaders.
func withLoaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(graph.WithLoaders(r.Context())))
	})
}

// Run serves on cfg.Addr until ctx ends, then shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends. The notification hub runs for as
// long.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.Start(ctx); err != nil {
		return err
	}
	defer s.Stop(context.WithoutCancel(ctx))
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- onewrite.Serve(srv, ln) }()
	s.logger.Info("geopub listening", "addr", ln.Addr().String(), "database", s.Store.Dialect, "data_dir", s.cfg.DataDir)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	s.logger.Info("geopub stopped")
	return nil
}

// Close closes the point-query files, blob storage and the store, and
// removes this process's temporary folder.
func (s *Server) Close() error {
	s.scratch.Close()
	s.Query.Close()
	s.Resolver.Blobs.Close()
	return s.Store.Close()
}

// ensureSearchIndex rebuilds the search index in the background when it
// is empty or older than the code (searchfeed.EnsureCurrent), then loads
// the process's search view; serving and readiness do not wait for it.
func (s *Server) ensureSearchIndex(ctx context.Context) {
	start := time.Now()
	reason, docs, err := s.Resolver.Feed.EnsureCurrent(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		s.logger.ErrorContext(ctx, "rebuilding the search index", "err", err)
	case err == nil && reason != "":
		s.logger.InfoContext(ctx, "search index rebuilt", "reason", reason, "docs", docs, "took", time.Since(start).Round(time.Millisecond))
	}
	// Load this process's search view now rather than on the first
	// search, which would otherwise wait for it.
	start = time.Now()
	if _, err := s.Resolver.Search.Search(ctx, search.Query{Limit: 1}); err != nil && ctx.Err() == nil {
		s.logger.ErrorContext(ctx, "loading the search view", "err", err)
		return
	}
	s.logger.InfoContext(ctx, "search view loaded", "took", time.Since(start).Round(time.Millisecond))
}
