package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/oauthserver"
	"github.com/geopub/geopub/internal/ratelimit"
	"github.com/geopub/geopub/internal/schedule"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/searchfeed"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/sso"
	"github.com/geopub/geopub/internal/store"
	usagefigures "github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/users"
	"github.com/geopub/geopub/internal/vectortiles"
	"github.com/geopub/geopub/queryapi"
	"github.com/geopub/geopub/rest"
)

// dbFlags are the flags every command that opens the database takes.
type dbFlags struct {
	dataDir     string
	databaseURL string
}

func (d *dbFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dataDir, "data-dir", envOr("GEOPUB_DATA_DIR", "data"), "data directory (embedded database, blobs) [GEOPUB_DATA_DIR]")
	fs.StringVar(&d.databaseURL, "database-url", os.Getenv("GEOPUB_DATABASE_URL"), "postgres://... to use PostgreSQL; empty for the embedded SQLite file [GEOPUB_DATABASE_URL]")
}

func (d dbFlags) storeConfig() store.Config {
	return store.Config{DatabaseURL: d.databaseURL, DataDir: d.dataDir}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envInt64 is the integer in the environment variable key, def when it
// is unset, or -1 when it is not an integer (for the flag's check to
// refuse).
func envInt64(key string, def int64) int64 {
	s := os.Getenv(key)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// envDuration is the duration in the environment variable key, def when
// it is unset, or -1 when it is not a duration (for the flag's check to
// refuse).
func envDuration(key string, def time.Duration) time.Duration {
	s := os.Getenv(key)
	if s == "" {
		return def
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return -1
	}
	return v
}

// errHelp ends a command that was asked for its help (-h, --help): the
// flag package has printed it, nothing else runs, and the exit status is 0.
var errHelp = errors.New("help requested")

// parse reads a command's flags. Help goes to stdout and ends the command
// with errHelp; mistakes go to stderr as a usageError.
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: geopub %s [flags]\n", fs.Name())
			fs.PrintDefaults()
			return errHelp
		}
		fs.SetOutput(stderr)
		fs.Usage()
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected arguments: %v", fs.Args())}
	}
	return nil
}

func serve(ctx context.Context, args []string, logger *slog.Logger, level *slog.LevelVar, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	addr := fs.String("addr", envOr("GEOPUB_ADDR", "127.0.0.1:8080"), "listen address [GEOPUB_ADDR]")
	uploadMB := fs.Int64("max-upload-mb", envInt64("GEOPUB_MAX_UPLOAD_MB", rest.DefaultMaxUploadBytes>>20), "largest upload (POST /sources/ with files), in MiB; larger get 413 [GEOPUB_MAX_UPLOAD_MB]")
	smallMB := fs.Int64("small-data-max-mb", envInt64("GEOPUB_SMALL_DATA_MAX_MB", 50), "largest file of a catalog item the small-data service serves, in MiB; larger ones are listed with too_large [GEOPUB_SMALL_DATA_MAX_MB]")
	baseURL := fs.String("base-url", os.Getenv("GEOPUB_BASE_URL"), "public origin for absolute URLs, e.g. https://data.example.com [GEOPUB_BASE_URL]")
	usageFlush := fs.Duration("usage-flush-every", envDuration("GEOPUB_USAGE_FLUSH_EVERY", usagefigures.DefaultInterval), "how often the usage figures counted in memory are added to the database (a crash loses at most this much) [GEOPUB_USAGE_FLUSH_EVERY]")
	requestTimeout := fs.Duration("request-timeout", envDuration("GEOPUB_REQUEST_TIMEOUT", server.DefaultRequestTimeout), "time budget of one request's work (queries, features, tiles; not downloads, uploads or streams), after which it is stopped and answered 504 [GEOPUB_REQUEST_TIMEOUT]")
	accessTTL := fs.Duration("oauth-access-token-ttl", envDuration("GEOPUB_OAUTH_ACCESS_TOKEN_TTL", oauthserver.DefaultAccessTokenTTL), "life of an access token the OAuth authorization server issues (an API token; keys made with it live no longer) [GEOPUB_OAUTH_ACCESS_TOKEN_TTL]")
	refreshTTL := fs.Duration("oauth-refresh-token-ttl", envDuration("GEOPUB_OAUTH_REFRESH_TOKEN_TTL", oauthserver.DefaultRefreshTokenTTL), "life of an OAuth refresh token, renewed by each rotation [GEOPUB_OAUTH_REFRESH_TOKEN_TTL]")
	trusted := fs.String("trusted-proxies", os.Getenv("GEOPUB_TRUSTED_PROXIES"), "proxies (CIDRs or addresses, comma-separated) whose Forwarded and X-Forwarded-For/-Proto/-Host headers name the client, its scheme and host; others' are ignored [GEOPUB_TRUSTED_PROXIES]")
	limits := fs.String("rate-limits", os.Getenv("GEOPUB_RATE_LIMITS"), "rate limits per route class (reads, writes, search, exports, tiles, queries, ogc, graphql), per token, user or client address: class=quota/window pairs such as reads=600/1m,tiles=6000/1m, a JSON document, or the path of a JSON file (docs/ratelimit.md); none by default [GEOPUB_RATE_LIMITS]")
	var rt runtimeFlags
	rt.register(fs, 4, level)
	if err := parse(fs, args, stdout, stderr); err != nil {
		return err
	}
	cfg, err := rt.config(db, logger)
	if err != nil {
		return err
	}
	if cfg.RateLimits, err = ratelimit.Parse(*limits); err != nil {
		return usageError{"--rate-limits (GEOPUB_RATE_LIMITS): " + err.Error()}
	}
	if *requestTimeout <= 0 {
		return usageError{"--request-timeout (GEOPUB_REQUEST_TIMEOUT) must be positive"}
	}
	cfg.RequestTimeout = *requestTimeout
	if *usageFlush <= 0 {
		return usageError{"--usage-flush-every (GEOPUB_USAGE_FLUSH_EVERY) must be positive"}
	}
	cfg.UsageFlushEvery = *usageFlush
	if *accessTTL <= 0 || *refreshTTL <= 0 {
		return usageError{"--oauth-access-token-ttl and --oauth-refresh-token-ttl (GEOPUB_OAUTH_ACCESS_TOKEN_TTL, GEOPUB_OAUTH_REFRESH_TOKEN_TTL) must be positive"}
	}
	cfg.OAuth = oauthserver.Config{AccessTokenTTL: *accessTTL, RefreshTokenTTL: *refreshTTL}
	if cfg.TrustedProxies, err = forwarded.Parse(*trusted); err != nil {
		return usageError{"--trusted-proxies (GEOPUB_TRUSTED_PROXIES): " + err.Error()}
	}
	if *uploadMB < 1 {
		return usageError{"--max-upload-mb (GEOPUB_MAX_UPLOAD_MB) must be a whole number of MiB, at least 1"}
	}
	cfg.Addr, cfg.BaseURL, cfg.WarmQueryIndexes = *addr, *baseURL, true
	cfg.MaxUploadBytes = *uploadMB << 20
	if *smallMB < 1 {
		return usageError{"--small-data-max-mb (GEOPUB_SMALL_DATA_MAX_MB) must be a whole number of MiB, at least 1"}
	}
	cfg.SmallDataMaxFileBytes = *smallMB << 20
	srv, err := server.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	restore, err := useTempArea(srv)
	if err != nil {
		return err
	}
	defer restore()
	return srv.Run(ctx)
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := parse(fs, args, stdout, stderr); err != nil {
		return err
	}
	st, err := store.Open(ctx, db.storeConfig())
	if err != nil {
		return err
	}
	defer st.Close()
	applied, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	if err := st.Seed(ctx); err != nil {
		return err
	}
	riverApplied, err := jobs.MigrateRiver(ctx, st)
	if err != nil {
		return err
	}
	for _, v := range riverApplied {
		applied = append(applied, fmt.Sprintf("river %03d", v))
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	return nil
}

func userCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	var n users.New
	fs.StringVar(&n.Email, "email", "", "e-mail address, the login name (required)")
	fs.StringVar(&n.Password, "password", "", "password, 8 characters or more (required)")
	fs.StringVar(&n.FirstName, "first-name", "", "first name")
	fs.StringVar(&n.LastName, "last-name", "", "last name")
	fs.StringVar(&n.Country, "country", "", "ISO 3166-1 alpha-2 country code")
	fs.BoolVar(&n.SiteAdmin, "site-admin", false, "make the user a site administrator")
	if err := parse(fs, args, stdout, stderr); err != nil {
		return err
	}
	if n.Email == "" || n.Password == "" {
		return usageError{"--email and --password are required"}
	}
	st, err := store.OpenAndMigrate(ctx, db.storeConfig())
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := users.Create(ctx, st.Client, n)
	if err != nil {
		return err
	}
	// The id alone on stdout (scripts read it); what was created on stderr.
	fmt.Fprintln(stdout, u.ID)
	role := "user"
	if u.IsSiteAdmin {
		role = "site administrator"
	}
	fmt.Fprintf(stderr, "created %s %d: %s\n", role, u.ID, u.Email)
	return nil
}

// searchReindex rebuilds the whole search index from the database
// (migrating it first, as serve does) and prints how many docs it wrote.
// It is safe beside running processes: their writes keep reindexing what
// they change, and the rebuild rewrites every doc from the committed data.
func searchReindex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("search reindex", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := parse(fs, args, stdout, stderr); err != nil {
		return err
	}
	st, err := store.OpenAndMigrate(ctx, db.storeConfig())
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	feed := searchfeed.Install(st, search.New(st), slog.New(slog.NewJSONHandler(stderr, nil)))
	n, err := feed.Rebuild(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "search index rebuilt: %d docs in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

// worker works durable jobs until ctx ends (SIGINT/SIGTERM), then stops
// gracefully: running jobs get --stop-timeout to finish before their
// contexts are cancelled.
func worker(ctx context.Context, args []string, logger *slog.Logger, level *slog.LevelVar, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	healthAddr := fs.String("health-addr", os.Getenv("GEOPUB_HEALTH_ADDR"), "listen address serving /healthz (process up) and /readyz (database and blob storage reachable, job workers running), e.g. 0.0.0.0:8081; empty for none [GEOPUB_HEALTH_ADDR]")
	var rt runtimeFlags
	rt.register(fs, 4, level)
	if err := parse(fs, args, stdout, stderr); err != nil {
		return err
	}
	if rt.workers < 1 {
		return usageError{"--workers must be at least 1"}
	}
	cfg, err := rt.config(db, logger)
	if err != nil {
		return err
	}
	cfg.HealthAddr = *healthAddr
	srv, err := server.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	restore, err := useTempArea(srv)
	if err != nil {
		return err
	}
	defer restore()
	if err := srv.Start(ctx); err != nil {
		return err
	}
	logger.Info("worker started", "database", srv.Store.URL, "workers", rt.workers)
	<-ctx.Done()
	logger.Info("worker stopping")
	return srv.Stop(context.Background())
}

// useTempArea points the process's temporary directory (TMPDIR, which
// os.TempDir and so the multipart upload parser read) at the service's
// folder in the data directory's temporary area, until the returned
// restore runs: files that libraries make there are removed with it, and
// swept if the process dies.
func useTempArea(srv *server.Server) (restore func(), err error) {
	old, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", srv.TempDir()); err != nil {
		return nil, err
	}
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}, nil
}

// runtimeFlags are the flags of the processes that run the service: serve
// and worker.
type runtimeFlags struct {
	workers       int
	remoteWorkers int
	perUser       int
	scheduleTick  time.Duration
	fetchStall    time.Duration
	fetchTimeout  time.Duration
	rasterCells   int64
	scanMB        int64
	deadline      time.Duration
	deadlinePerMB time.Duration
	stopTimeout   time.Duration
	blobURL       string
	fetchAllow    string
	secretKey     string
	secure        bool
	external      bool
	oidcConfig    string
	queryMB       int
	tileCacheMB   int64
	metricsAddr   string
	exportLimits  exports.Limits
	exportMB      int64
}

func (f *runtimeFlags) register(fs *flag.FlagSet, defaultWorkers int, level *slog.LevelVar) {
	fs.TextVar(level, "log-level", envLevel(), "least severe log records written: debug, info, warn or error [GEOPUB_LOG_LEVEL]")
	fs.IntVar(&f.workers, "workers", int(envInt64("GEOPUB_WORKERS", int64(defaultWorkers))), "jobs worked at once; 0 serves without working jobs (run 'geopub worker' beside it) [GEOPUB_WORKERS]")
	fs.IntVar(&f.remoteWorkers, "remote-workers", int(envInt64("GEOPUB_REMOTE_WORKERS", 2)), "jobs that download remote sources worked at once, apart from --workers [GEOPUB_REMOTE_WORKERS]")
	fs.DurationVar(&f.scheduleTick, "schedule-tick", envDuration("GEOPUB_SCHEDULE_TICK", schedule.DefaultTick), "how often scheduled scans (scan_schedule) and layer auto-updates are looked for [GEOPUB_SCHEDULE_TICK]")
	fs.IntVar(&f.perUser, "jobs-per-user", int(envInt64("GEOPUB_JOBS_PER_USER", 2)), "running jobs of one kind (scans, imports) one user may hold; more wait their turn [GEOPUB_JOBS_PER_USER]")
	fs.DurationVar(&f.fetchStall, "fetch-stall-timeout", envDuration("GEOPUB_FETCH_STALL_TIMEOUT", fetch.DefaultStallTimeout), "a remote download that receives nothing for this long fails [GEOPUB_FETCH_STALL_TIMEOUT]")
	fs.DurationVar(&f.fetchTimeout, "fetch-timeout", envDuration("GEOPUB_FETCH_TIMEOUT", fetch.DefaultTimeout), "total time one remote download may take [GEOPUB_FETCH_TIMEOUT]")
	fs.Int64Var(&f.rasterCells, "max-raster-cells", envInt64("GEOPUB_MAX_RASTER_CELLS", ingest.DefaultMaxRasterCells), "largest raster (width × height × bands) scans and imports accept [GEOPUB_MAX_RASTER_CELLS]")
	fs.Int64Var(&f.scanMB, "scan-max-mb", envInt64("GEOPUB_SCAN_MAX_MB", ingest.DefaultScanBytes>>20), "most one scan may write while unpacking its archives, all together, in MiB; unpacking stops there and the archive is skipped with why [GEOPUB_SCAN_MAX_MB]")
	fs.DurationVar(&f.deadline, "job-deadline", envDuration("GEOPUB_JOB_DEADLINE", ingest.DefaultDeadlineBase), "time every scan and import may take before its size counts; past its deadline it stops and fails with why [GEOPUB_JOB_DEADLINE]")
	fs.DurationVar(&f.deadlinePerMB, "job-deadline-per-mb", envDuration("GEOPUB_JOB_DEADLINE_PER_MB", ingest.DefaultDeadlinePerMB), "time a scan or import may take for each MiB of its input, added to --job-deadline [GEOPUB_JOB_DEADLINE_PER_MB]")
	fs.DurationVar(&f.stopTimeout, "stop-timeout", envDuration("GEOPUB_STOP_TIMEOUT", 30*time.Second), "how long a stop waits for running jobs before cancelling them [GEOPUB_STOP_TIMEOUT]")
	fs.StringVar(&f.blobURL, "blob-url", os.Getenv("GEOPUB_BLOB_URL"), "blob storage: empty for DATA_DIR/blobs, file:///path or s3://bucket?endpoint=...&region=... [GEOPUB_BLOB_URL]")
	fs.StringVar(&f.fetchAllow, "fetch-allow", os.Getenv("GEOPUB_FETCH_ALLOW"), "private addresses or prefixes remote sources may reach, comma-separated, e.g. 10.1.0.0/16 [GEOPUB_FETCH_ALLOW]")
	fs.StringVar(&f.secretKey, "secret-key", os.Getenv("GEOPUB_SECRET_KEY"), "key that seals source credentials at rest: 32 bytes in base64 (openssl rand -base64 32); empty uses DATA_DIR/secret.key, generated on first start [GEOPUB_SECRET_KEY]")
	fs.IntVar(&f.queryMB, "query-index-mb", int(envInt64("GEOPUB_QUERY_INDEX_MB", 1024)), "memory budget of the point-query spatial indexes, in MiB; the least recently used are dropped beyond it [GEOPUB_QUERY_INDEX_MB]")
	fs.Int64Var(&f.tileCacheMB, "tile-cache-mb", envInt64("GEOPUB_TILE_CACHE_MB", vectortiles.DefaultConfig.CacheBytes>>20), "memory the vector tile cache may hold, in MiB; the least recently used tiles are dropped beyond it [GEOPUB_TILE_CACHE_MB]")
	fs.BoolVar(&f.external, "external-services", os.Getenv("GEOPUB_EXTERNAL_SERVICES") == "1", "turn the external-services site setting on at start [GEOPUB_EXTERNAL_SERVICES=1]")
	fs.StringVar(&f.oidcConfig, "oidc-config", os.Getenv("GEOPUB_OIDC_CONFIG"), "JSON file of the OpenID Connect providers users may sign in with (docs/sso.md); empty for none [GEOPUB_OIDC_CONFIG]")
	fs.StringVar(&f.metricsAddr, "metrics-addr", os.Getenv("GEOPUB_METRICS_ADDR"), "second listen address serving /metrics without authentication, e.g. 10.0.0.5:9090 (keep it private); empty for none [GEOPUB_METRICS_ADDR]")
	fs.Int64Var(&f.exportLimits.MaxFeatures, "export-max-features", envInt64("GEOPUB_EXPORT_MAX_FEATURES", exports.DefaultMaxFeatures), "most features one export may hold [GEOPUB_EXPORT_MAX_FEATURES]")
	fs.Int64Var(&f.exportMB, "export-max-mb", envInt64("GEOPUB_EXPORT_MAX_MB", exports.DefaultMaxZippedBytes>>20), "largest estimated zipped size of one export, in MiB [GEOPUB_EXPORT_MAX_MB]")
	fs.Int64Var(&f.exportLimits.MaxRasterPixels, "export-max-raster-cells", envInt64("GEOPUB_EXPORT_MAX_RASTER_CELLS", exports.DefaultMaxRasterPixels), "most cells one grid or raster item of an export may hold [GEOPUB_EXPORT_MAX_RASTER_CELLS]")
	fs.IntVar(&f.exportLimits.MaxRunning, "export-max-running", int(envInt64("GEOPUB_EXPORT_MAX_RUNNING", exports.DefaultMaxRunning)), "exports one user may have processing at once [GEOPUB_EXPORT_MAX_RUNNING]")
	fs.DurationVar(&f.exportLimits.Expiry, "export-expiry", envDuration("GEOPUB_EXPORT_EXPIRY", exports.DefaultExpiry), "how long a finished export's file is kept before it is gone [GEOPUB_EXPORT_EXPIRY]")
	fs.BoolVar(&f.secure, "secure-cookies", os.Getenv("GEOPUB_SECURE_COOKIES") == "1", "mark session cookies Secure (behind HTTPS) [GEOPUB_SECURE_COOKIES=1]")
}

// envLevel is GEOPUB_LOG_LEVEL, or info when it is unset or not a level.
func envLevel() *slog.LevelVar {
	v := new(slog.LevelVar)
	if err := v.UnmarshalText([]byte(os.Getenv("GEOPUB_LOG_LEVEL"))); err != nil {
		v.Set(slog.LevelInfo)
	}
	return v
}

func (f *runtimeFlags) config(db dbFlags, logger *slog.Logger) (server.Config, error) {
	if f.queryMB < 1 {
		return server.Config{}, usageError{"--query-index-mb must be at least 1"}
	}
	if f.tileCacheMB < 1 {
		return server.Config{}, usageError{"--tile-cache-mb must be at least 1"}
	}
	if f.workers < 0 {
		return server.Config{}, usageError{"--workers must not be negative"}
	}
	if f.stopTimeout < 0 {
		return server.Config{}, usageError{"--stop-timeout (GEOPUB_STOP_TIMEOUT) must not be negative"}
	}
	if f.scheduleTick < time.Second {
		return server.Config{}, usageError{"--schedule-tick must be at least 1s"}
	}
	if f.remoteWorkers < 1 || f.perUser < 1 || f.rasterCells < 1 || f.scanMB < 1 || f.deadline <= 0 || f.deadlinePerMB <= 0 || f.fetchStall <= 0 || f.fetchTimeout <= 0 {
		return server.Config{}, usageError{"--remote-workers, --jobs-per-user, --max-raster-cells, --scan-max-mb, --job-deadline, --job-deadline-per-mb, --fetch-stall-timeout and --fetch-timeout must be positive"}
	}
	if l := f.exportLimits; l.MaxFeatures < 1 || f.exportMB < 1 || l.MaxRasterPixels < 1 || l.MaxRunning < 1 || l.Expiry <= 0 {
		return server.Config{}, usageError{"--export-max-features, --export-max-mb, --export-max-raster-cells, --export-max-running and --export-expiry must be positive"}
	}
	allow, err := fetch.ParseAllowList(f.fetchAllow)
	if err != nil {
		return server.Config{}, usageError{err.Error()}
	}
	var secretKey []byte
	if f.secretKey != "" {
		if secretKey, err = secrets.ParseKey(f.secretKey); err != nil {
			return server.Config{}, usageError{"--secret-key (GEOPUB_SECRET_KEY): " + strings.TrimPrefix(err.Error(), "secrets: ")}
		}
	}
	cfg := server.Config{
		SecretKey: secretKey,
		DataDir:   db.dataDir, DatabaseURL: db.databaseURL, BlobURL: f.blobURL, FetchAllow: allow, Logger: logger,
		ExternalServices: f.external, MetricsAddr: f.metricsAddr,
		Query: queryapi.Config{MemoryBudget: int64(f.queryMB) << 20, Fresh: queryapi.DefaultConfig.Fresh},
		Tiles: vectortiles.Config{CacheBytes: f.tileCacheMB << 20, Fresh: vectortiles.DefaultConfig.Fresh},
		Jobs: jobs.Config{Workers: f.workers, RemoteWorkers: f.remoteWorkers, PerUser: f.perUser,
			InsertOnly: f.workers == 0, StopTimeout: f.stopTimeout, Logger: logger},
		FetchTimeout: f.fetchTimeout, FetchStallTimeout: f.fetchStall, ScheduleTick: f.scheduleTick,
		Limits: ingest.Limits{MaxRasterCells: f.rasterCells, ScanBytes: f.scanMB << 20,
			DeadlineBase: f.deadline, DeadlinePerMB: f.deadlinePerMB},
		Exports: f.exportLimits,
	}
	cfg.Exports.MaxZippedBytes = f.exportMB << 20
	cfg.Auth.SecureCookies = f.secure
	if f.oidcConfig != "" {
		if cfg.SSO, err = sso.LoadConfig(f.oidcConfig, nil); err != nil {
			return server.Config{}, usageError{"--oidc-config (GEOPUB_OIDC_CONFIG): " + err.Error()}
		}
	}
	return cfg, nil
}
