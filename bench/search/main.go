// Command searchbench loads generated catalogue docs into the search index
// of each backend and prints query latencies (p50/p99 per query class),
// the index build time, a single doc's reindex time, deep-page costs and,
// on PostgreSQL, the plain full-text query on the same data as reference.
//
//	go run ./bench/search -n 100000 -backends sqlite,postgres
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/store"
)

func main() {
	n := flag.Int("n", 100000, "docs to index")
	backends := flag.String("backends", "sqlite,postgres", "backends to measure")
	dbURL := flag.String("db", envOr("GEOPUB_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server (a scratch database is created and dropped)")
	queries := flag.Int("queries", 300, "queries in the mix per backend")
	flag.BoolVar(&asAdmin, "admin", false, "query as a site administrator (no permission predicate), to separate its cost")
	flag.BoolVar(&keep, "keep", false, "keep the databases and print where they are (for EXPLAIN)")
	flag.StringVar(&reuse, "reuse", "", "a PostgreSQL database (or SQLite directory) kept by an earlier run with the same -n: measure it without building it again")
	flag.Parse()
	for _, b := range strings.Split(*backends, ",") {
		if err := run(context.Background(), b, *n, *queries, *dbURL); err != nil {
			log.Fatalf("%s: %v", b, err)
		}
	}
}

// keep leaves the loaded databases in place; asAdmin queries as a site
// administrator.
var keep, asAdmin bool

// reuse names a kept database to measure again.
var reuse string

func envOr(k, d string) string {
	if v, ok := os.LookupEnv(k); ok {
		return v
	}
	return d
}

func open(ctx context.Context, backend, server string) (*store.Store, func(), error) {
	if backend == "sqlite" {
		dir := reuse
		if dir == "" {
			var err error
			if dir, err = os.MkdirTemp("", "searchbench"); err != nil {
				return nil, nil, err
			}
		}
		s, err := store.OpenAndMigrate(ctx, store.Config{DataDir: dir})
		if err != nil {
			return nil, nil, err
		}
		return s, func() {
			s.Close()
			if keep {
				fmt.Println("kept", dir)
				return
			}
			os.RemoveAll(dir)
		}, nil
	}
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return nil, nil, err
	}
	name := reuse
	if name == "" {
		name = fmt.Sprintf("geopub_searchbench_%d", time.Now().UnixNano())
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			return nil, nil, err
		}
	}
	u := server
	q := ""
	if i := strings.Index(u, "?"); i >= 0 {
		u, q = u[:i], u[i:]
	}
	u = u[:strings.LastIndex(u, "/")] + "/" + name + q
	s, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: u})
	if err != nil {
		return nil, nil, err
	}
	return s, func() {
		s.Close()
		if keep {
			fmt.Println("kept database", name)
			admin.Close()
			return
		}
		admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close()
	}, nil
}

func run(ctx context.Context, backend string, n, nq int, server string) error {
	s, closeFn, err := open(ctx, backend, server)
	if err != nil {
		return err
	}
	defer closeFn()
	pg := s.Dialect == dialect.Postgres
	ix := search.New(s)
	fmt.Printf("\n== %s, %d docs ==\n", backend, n)

	// Publishers: 20 groups and 50 users; a member viewer edits group 1.
	var groupIDs []int
	var groupNames []string
	var userIDs []int
	var member *ent.User
	if reuse != "" {
		for _, g := range s.Client.Group.Query().Where(group.URLSlugHasPrefix("council-")).Order(ent.Asc(group.FieldID)).AllX(ctx) {
			groupIDs, groupNames = append(groupIDs, g.ID), append(groupNames, g.Name)
		}
		for i, u := range s.Client.User.Query().Where(user.EmailHasSuffix("@example.com")).Order(ent.Asc(user.FieldID)).AllX(ctx) {
			userIDs = append(userIDs, u.ID)
			if i == 0 {
				member = u
			}
		}
	} else {
		for i := 0; i < 20; i++ {
			g := s.Client.Group.Create().SetName(fmt.Sprintf("Council %d", i)).SetURLSlug(fmt.Sprintf("council-%d", i)).SaveX(ctx)
			groupIDs, groupNames = append(groupIDs, g.ID), append(groupNames, g.Name)
		}
		for i := 0; i < 50; i++ {
			u := s.Client.User.Create().SetEmail(fmt.Sprintf("u%d@example.com", i)).SetPasswordHash("x").SaveX(ctx)
			userIDs = append(userIDs, u.ID)
			if i == 0 {
				member = u
			}
		}
		s.Client.GroupMembership.Create().SetGroupID(groupIDs[0]).SetUserID(member.ID).SetPermission(groupmembership.PermissionEditData).ExecX(ctx)
	}
	memberViewer, err := access.NewViewer(ctx, s.Client, auth.Principal{User: member})
	if err != nil {
		return err
	}
	viewers := []*access.Viewer{{}, memberViewer}
	if asAdmin {
		viewers = []*access.Viewer{{UserID: member.ID, SiteAdmin: true}}
	}

	docs, grants := searchgen.Generate(searchgen.Options{N: n, Seed: 42, GroupIDs: groupIDs, GroupNames: groupNames, UserIDs: userIDs, PrivateShare: 0.2})
	if reuse == "" {
		if err := build(ctx, s, ix, pg, docs, grants); err != nil {
			return err
		}
	} else {
		fmt.Println("index build: reused from an earlier run")
	}
	// The first search loads the process's view from the tables.
	var before, mem runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := ix.Search(ctx, search.Query{Limit: 1}); err != nil {
		return err
	}
	load := time.Since(start).Round(time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&mem)
	fmt.Printf("view load (first search after start): %v; Go heap in use after it: %d MiB (the view: %d MiB; the rest is the benchmark's own docs); process RSS %d MiB\n",
		load, mem.HeapInuse>>20, (int64(mem.HeapInuse)-int64(before.HeapInuse))>>20, rssMiB())

	// Single doc reindex: a retitle in its own transaction.
	var reindex []time.Duration
	for i := 0; i < 50; i++ {
		d := docs[(i*7919)%len(docs)]
		d.Title = d.Title + " " + searchgen.Word(i)
		t0 := time.Now()
		if err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Put(ctx, tx, d) }); err != nil {
			return err
		}
		reindex = append(reindex, time.Since(t0))
	}
	fmt.Printf("single-doc reindex (transaction included): p50 %v p99 %v\n", pct(reindex, 50), pct(reindex, 99))
	// A reindex followed by a search that must see it: the view applies
	// the change first.
	var seen []time.Duration
	for i := 0; i < 50; i++ {
		d := docs[(i*104729)%len(docs)]
		d.Title = d.Title + " " + searchgen.Word(i+50)
		t0 := time.Now()
		if err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Put(ctx, tx, d) }); err != nil {
			return err
		}
		if _, err := ix.Search(ctx, search.Query{Viewer: &access.Viewer{SiteAdmin: true}, Q: d.Title, Limit: 1}); err != nil {
			return err
		}
		seen = append(seen, time.Since(t0))
	}
	fmt.Printf("single-doc reindex then a search that sees it: p50 %v p99 %v\n", pct(seen, 50), pct(seen, 99))

	// The mixed query set.
	mix := searchgen.Mix(7, nq, groupIDs)
	for _, m := range mix[:min(20, len(mix))] { // warm-up
		if _, err := ix.Search(ctx, m.Query); err != nil {
			return err
		}
	}
	byClass := map[string][]time.Duration{}
	var classes []string
	for i, m := range mix {
		q := m.Query
		q.Viewer = viewers[i%len(viewers)]
		t0 := time.Now()
		if _, err := ix.Search(ctx, q); err != nil {
			return fmt.Errorf("%s %+v: %w", m.Class, q, err)
		}
		d := time.Since(t0)
		if _, ok := byClass[m.Class]; !ok {
			classes = append(classes, m.Class)
		}
		byClass[m.Class] = append(byClass[m.Class], d)
		if q.Facets {
			byClass["ALL with facets"] = append(byClass["ALL with facets"], d)
		}
		byClass["ALL"] = append(byClass["ALL"], d)
	}
	fmt.Printf("%-16s %6s %10s %10s\n", "query class", "count", "p50", "p99")
	for _, c := range append(classes, "ALL with facets", "ALL") {
		ds := byClass[c]
		fmt.Printf("%-16s %6d %10v %10v\n", c, len(ds), pct(ds, 50), pct(ds, 99))
	}

	// Deep pages: page 1 and page 500 (page size 20) by cursor and by offset.
	for _, dq := range []search.Query{{Sort: search.SortPopularity}, {Sort: search.SortName}, {Q: "water"}} {
		if err := deepPages(ctx, ix, dq); err != nil {
			return err
		}
	}
	if pg {
		return plainReference(ctx, s.DB, mix, byClass)
	}
	return nil
}

// build indexes docs and their grants a thousand at a time, then
// analyzes, printing how long each took.
func build(ctx context.Context, s *store.Store, ix search.Index, pg bool, docs []search.Doc, grants []searchgen.Grant) error {
	n := len(docs)
	var err error
	start := time.Now()
	const batch = 1000
	for i := 0; i < len(docs); i += batch {
		j := min(i+batch, len(docs))
		lo, hi := docs[i].PermID, docs[j-1].PermID
		var gs []searchgen.Grant
		for _, g := range grants {
			if g.PermID >= lo && g.PermID <= hi {
				gs = append(gs, g)
			}
		}
		err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := searchgen.InsertGrants(ctx, tx, pg, gs); err != nil {
				return err
			}
			return ix.Put(ctx, tx, docs[i:j]...)
		})
		if err != nil {
			return err
		}
	}
	build := time.Since(start)
	start = time.Now()
	if pg {
		_, err = s.DB.ExecContext(ctx, "VACUUM ANALYZE")
	} else {
		_, err = s.DB.ExecContext(ctx, "ANALYZE")
	}
	if err != nil {
		return err
	}
	fmt.Printf("index build: %v (%.0f docs/s, grants included), then analyze %v\n", build.Round(time.Millisecond),
		float64(n)/build.Seconds(), time.Since(start).Round(time.Millisecond))
	return nil
}

func deepPages(ctx context.Context, ix search.Index, q search.Query) error {
	q.Limit = 998
	var cur string
	for i := 0; i < 10; i++ {
		q.Cursor = cur
		res, err := ix.Search(ctx, q)
		if err != nil {
			return err
		}
		if res.NextCursor == "" {
			fmt.Printf("deep pages %q sort %q: fewer than 10,000 results\n", q.Q, q.Sort)
			return nil
		}
		cur = res.NextCursor
	}
	q.Limit = 20
	timeIt := func(q search.Query) (time.Duration, error) {
		var ds []time.Duration
		for i := 0; i < 15; i++ {
			t0 := time.Now()
			if _, err := ix.Search(ctx, q); err != nil {
				return 0, err
			}
			ds = append(ds, time.Since(t0))
		}
		return pct(ds, 50), nil
	}
	first := q
	first.Cursor = ""
	p1, err := timeIt(first)
	if err != nil {
		return err
	}
	deep := q
	deep.Cursor = cur
	p500, err := timeIt(deep)
	if err != nil {
		return err
	}
	off := first
	off.Offset = 9980
	pOff, err := timeIt(off)
	if err != nil {
		return err
	}
	fmt.Printf("deep pages q=%q sort=%q: page 1 %v, page 500 by cursor %v, page 500 by offset %v (p50)\n", q.Q, q.Sort, p1, p500, pOff)
	return nil
}

// plainReference runs PostgreSQL's own ranked full-text query (no
// permissions, no filters, no facets, no count) for the text queries of
// the mix, as the reference the issue asks the engine to be compared to.
func plainReference(ctx context.Context, db *sql.DB, mix []searchgen.NamedQuery, ours map[string][]time.Duration) error {
	// The reference's own weighted tsvector (A title; B tags; C
	// description and publisher; D field names and member titles) with a
	// GIN index, built here: the engine does not keep one.
	for _, stmt := range []string{
		"ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS ref_tsv tsvector",
		"UPDATE search_docs d SET ref_tsv = setweight(to_tsvector('english', title), 'A') || " +
			"setweight(to_tsvector('english', COALESCE((SELECT string_agg(tag, ' ') FROM search_doc_tags WHERE doc = d.id), '')), 'B') || " +
			"setweight(to_tsvector('english', description || ' ' || group_name || ' ' || user_name), 'C') || " +
			"setweight(to_tsvector('english', field_names || ' ' || member_titles), 'D')",
		"CREATE INDEX IF NOT EXISTS search_docs_ref_tsv ON search_docs USING gin (ref_tsv)",
		"VACUUM ANALYZE search_docs",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("building the reference tsvector: %w", err)
		}
	}
	for _, class := range []string{"one-word", "three-word"} {
		var ds []time.Duration
		for _, m := range mix {
			if m.Class != class {
				continue
			}
			tq := strings.Join(search.Terms(m.Query.Q), " | ")
			t0 := time.Now()
			rows, err := db.QueryContext(ctx, "SELECT id FROM search_docs, to_tsquery('english', $1) q WHERE ref_tsv @@ q ORDER BY ts_rank_cd(ref_tsv, q) DESC LIMIT 20", tq)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			ds = append(ds, time.Since(t0))
		}
		o := pct(ours[class], 50)
		fmt.Printf("plain PostgreSQL FTS %-10s p50 %v p99 %v; ours p50 %v (ratio %.2f)\n", class, pct(ds, 50), pct(ds, 99), o,
			float64(o)/float64(pct(ds, 50)))
	}
	return nil
}

// rssMiB is the process's resident set size (Linux), 0 when unknown.
func rssMiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb >> 10
		}
	}
	return 0
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i, len(s))-1)].Round(10 * time.Microsecond)
}
