package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/users"
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

func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected arguments: %v", fs.Args())}
	}
	return nil
}

func serve(ctx context.Context, args []string, logger *slog.Logger, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	addr := fs.String("addr", envOr("GEOPUB_ADDR", "127.0.0.1:8080"), "listen address [GEOPUB_ADDR]")
	baseURL := fs.String("base-url", os.Getenv("GEOPUB_BASE_URL"), "public origin for absolute URLs, e.g. https://data.example.com [GEOPUB_BASE_URL]")
	secure := fs.Bool("secure-cookies", os.Getenv("GEOPUB_SECURE_COOKIES") == "1", "mark session cookies Secure (behind HTTPS) [GEOPUB_SECURE_COOKIES=1]")
	allow := fs.String("fetch-allow", os.Getenv("GEOPUB_FETCH_ALLOW"), "private addresses or prefixes remote sources may reach, comma-separated, e.g. 10.1.0.0/16 [GEOPUB_FETCH_ALLOW]")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fetchAllow, err := fetch.ParseAllowList(*allow)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg := server.Config{Addr: *addr, DataDir: db.dataDir, DatabaseURL: db.databaseURL, BaseURL: *baseURL, Logger: logger, FetchAllow: fetchAllow}
	cfg.Auth.SecureCookies = *secure
	srv, err := server.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	return srv.Run(ctx)
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := parse(fs, args, stderr); err != nil {
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
	if err := parse(fs, args, stderr); err != nil {
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
	fmt.Fprintln(stdout, u.ID)
	return nil
}

// worker works durable jobs until ctx ends (SIGINT/SIGTERM), then stops
// gracefully: running jobs get --stop-timeout to finish before their
// contexts are cancelled.
func worker(ctx context.Context, args []string, logger *slog.Logger, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	concurrency := fs.Int("concurrency", 4, "jobs run at once per queue")
	stopTimeout := fs.Duration("stop-timeout", 30*time.Second, "how long a stop waits for running jobs before cancelling them")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *concurrency < 1 {
		return usageError{"--concurrency must be at least 1"}
	}
	st, err := store.OpenAndMigrate(ctx, db.storeConfig())
	if err != nil {
		return err
	}
	defer st.Close()
	cfg := jobs.Config{Workers: *concurrency, StopTimeout: *stopTimeout, Logger: logger}
	j, err := jobs.StartWorking(ctx, st, cfg, func(j *jobs.Jobs) error { return registerWorkers(j, st) })
	if err != nil {
		return err
	}
	logger.Info("worker started", "database", st.URL, "concurrency", *concurrency)
	<-ctx.Done()
	logger.Info("worker stopping")
	return j.Stop(context.Background())
}

// registerWorkers adds every job worker Geopub has to j: the one place
// capability packages (scan, import, publish, export) hook their workers
// in, shared by `worker` and, once wired, `serve`. jobs.New already
// registers the built-in ping job.
func registerWorkers(j *jobs.Jobs, st *store.Store) error {
	_, _ = j, st
	return nil
}
