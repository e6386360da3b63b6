package search_test

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// BenchmarkSearch runs the mixed query classes of bench/search over
// GEOPUB_SEARCH_BENCH_N generated docs (default 10,000) on each backend:
//
//	go test ./internal/search -run '^$' -bench Search -benchtime 50x
//
// bench/search/run.sh loads 100,000 and 1,000,000 docs and prints p50/p99.
func BenchmarkSearch(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("GEOPUB_SEARCH_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	for _, backend := range storetest.Backends {
		b.Run(backend, func(b *testing.B) {
			s := storetest.Open(b, backend, storetest.Options{})
			ix := search.New(s)
			loadBench(b, s, ix, n)
			mix := searchgen.Mix(3, 60, nil)
			classes := map[string][]search.Query{}
			for _, m := range mix {
				classes[m.Class] = append(classes[m.Class], m.Query)
			}
			for class, qs := range classes {
				b.Run(class, func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						q := qs[i%len(qs)]
						q.Viewer = &access.Viewer{}
						if _, err := ix.Search(context.Background(), q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			b.Run("reindex-one", func(b *testing.B) {
				docs, _ := searchgen.Generate(searchgen.Options{N: 1, Seed: 99, FirstID: 1})
				for i := 0; b.Loop(); i++ {
					docs[0].Title = searchgen.Word(i)
					err := s.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Put(ctx, tx, docs[0]) })
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func loadBench(b *testing.B, s *store.Store, ix search.Index, n int) {
	b.Helper()
	docs, grants := searchgen.Generate(searchgen.Options{N: n, Seed: 11, GroupIDs: []int{1, 2, 3}, GroupNames: []string{"A", "B", "C"}, PrivateShare: 0.2})
	err := s.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		if err := searchgen.InsertGrants(ctx, tx, s.Dialect == "postgres", grants); err != nil {
			return err
		}
		return ix.Put(ctx, tx, docs...)
	})
	if err != nil {
		b.Fatal(err)
	}
}
