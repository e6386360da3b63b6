// Command recordsbench measures the harvest doors over a large catalogue:
// it seeds N published layers (metadata only, one in ten private) into a
// fresh store, serves them on loopback and times pages of catalogue
// records as harvesters read them: the resolver under every door, then
// each door's first page and a walk of deep pages by its own paging,
// printing records per second and latencies.
//
//	go run ./bench/records -n 100000 -backends sqlite,postgres
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/access"
	cr "github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/onewrite"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/users"
)

func main() {
	n := flag.Int("n", 100000, "datasets to seed")
	backends := flag.String("backends", "sqlite,postgres", "backends to measure")
	dbURL := flag.String("db", benchkit.EnvOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server (a scratch database is created and dropped)")
	pages := flag.Int("pages", 20, "pages walked per door")
	size := flag.Int("size", 100, "records per page")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed part here")
	flag.Parse()
	stop, err := benchkit.Profile(*profile)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	for _, b := range strings.Split(*backends, ",") {
		if err := run(context.Background(), b, *n, *pages, *size, *dbURL); err != nil {
			log.Fatalf("%s: %v", b, err)
		}
	}
}

func run(ctx context.Context, backend string, n, pages, size int, server string) error {
	dir, err := os.MkdirTemp("", "recordsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dbURL := ""
	if backend == "postgres" {
		db := fmt.Sprintf("geopub_recordsbench_%d", time.Now().UnixNano())
		admin, err := sqlOpen(server)
		if err != nil {
			return err
		}
		defer admin.Close()
		if err := benchkit.Scratch(ctx, admin, server, db, ""); err != nil {
			return err
		}
		defer benchkit.Drop(admin, db)
		dbURL = benchkit.WithDatabase(server, db)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := serverNew(ctx, dir, dbURL, logger)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Printf("\n== %s, %d datasets ==\n", backend, n)
	u, err := users.Create(ctx, srv.Store.Client, users.New{Email: "bench@example.com", Password: "bench password 123", FirstName: "Bench", Country: "NZ"})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := seed(ctx, srv.Store, u.ID, n); err != nil {
		return err
	}
	fmt.Printf("seed: %s\n", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	docs, err := srv.Resolver.Feed.Rebuild(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("index rebuild: %d docs in %s\n", docs, time.Since(start).Round(time.Millisecond))
	if dbURL != "" {
		// As a store that has run a while would have: statistics of
		// what the seeding wrote (autovacuum would take a minute).
		if _, err := srv.Store.DB.ExecContext(ctx, "ANALYZE"); err != nil {
			return err
		}
	}

	// The index alone, as the resolver asks it: the floor under every door.
	walk("search index alone, by cursor", pages, size, func(next string) (int, string, error) {
		res, err := srv.Resolver.Search.Search(ctx, search.Query{Limit: size + 1, Cursor: next, Viewer: &access.Viewer{}})
		if err != nil {
			return 0, "", err
		}
		if len(res.Hits) <= size {
			return len(res.Hits), "", nil
		}
		return size, res.Hits[size-1].Cursor, nil
	})
	// The resolver every door shares, anonymous, by cursor.
	walk("resolver, by cursor", pages, size, func(next string) (int, string, error) {
		p, err := srv.Resolver.CatalogRecords(ctx, cr.Query{Limit: size, Cursor: next, Origin: "http://bench"})
		if err != nil {
			return 0, "", err
		}
		return len(p.Records), p.Next, nil
	})
	walk("resolver, with a filter (total by scan)", 3, size, func(next string) (int, string, error) {
		p, err := srv.Resolver.CatalogRecords(ctx, cr.Query{Limit: size, Cursor: next, Origin: "http://bench",
			Filter: func(r *cr.Record) bool { return strings.Contains(r.Title, "river") }})
		if err != nil {
			return 0, "", err
		}
		return len(p.Records), p.Next, nil
	})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = onewrite.Serve(hs, ln) }()
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	for _, d := range doors(base, size) {
		walkHTTP(d, pages, size)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("peak RSS %d MiB, Go heap in use %d MiB\n", benchkit.VmHWM()>>20, ms.HeapInuse>>20)
	return nil
}

// walk times pages read by fetch (records, next cursor) until pages
// pages or the end.
func walk(name string, pages, size int, fetch func(next string) (int, string, error)) {
	var lat []time.Duration
	records, next := 0, ""
	start := time.Now()
	for i := 0; i < pages; i++ {
		t := time.Now()
		got, nx, err := fetch(next)
		if err != nil {
			fmt.Printf("%-48s error: %v\n", name, err)
			return
		}
		lat = append(lat, time.Since(t))
		records += got
		if nx == "" {
			break
		}
		next = nx
	}
	report(name, lat, records, time.Since(start))
}

func report(name string, lat []time.Duration, records int, took time.Duration) {
	if len(lat) == 0 {
		fmt.Printf("%-48s no pages\n", name)
		return
	}
	first := lat[0]
	slices.Sort(lat)
	fmt.Printf("%-48s %3d pages, %6d records: first %8s  p50 %8s  max %8s  %7.0f records/s\n", name, len(lat), records,
		first.Round(time.Microsecond), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond),
		float64(records)/took.Seconds())
}

func serverNew(ctx context.Context, dir, dbURL string, logger *slog.Logger) (*server.Server, error) {
	return server.New(ctx, server.Config{DataDir: dir, DatabaseURL: dbURL, Logger: logger, Jobs: jobs.Config{Workers: 1, Logger: logger}})
}
