package sitemap_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/sitemap"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// publicPaths walks the index as an anonymous viewer: the dataset pages
// a sitemap must list, each once.
func publicPaths(t *testing.T, ix search.Index) []string {
	t.Helper()
	var out []string
	cursor := ""
	for {
		res, err := ix.Search(t.Context(), search.Query{State: search.Published, Limit: 1000, Cursor: cursor, Sort: search.SortName})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.Ref.Type == search.TypeSource {
				continue // sources' pages are for administrators
			}
			p := map[search.Type]string{search.TypeLayer: "layers/", search.TypeTable: "tables/", search.TypeSet: "sets/",
				search.TypeDocument: "documents/", search.TypeItem: "items/c"}[h.Ref.Type]
			out = append(out, p+strconv.Itoa(h.Ref.ID)+"/")
		}
		if res.NextCursor == "" {
			return out
		}
		cursor = res.NextCursor
	}
}

// A catalogue larger than a file and than the search walk's batch: the
// files cover the front page and every public dataset exactly once, in
// full files but the last, stable between calls, and no more files than
// Files says.
func TestFilesCoverThePublicCatalogueOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ix := search.New(s)
		// Empty: one file, the front page alone.
		if n, err := sitemap.New(ix, 3).Files(ctx); err != nil || n != 1 {
			t.Fatalf("empty catalogue: %d files, %v", n, err)
		}
		if pages, err := sitemap.New(ix, 3).File(ctx, 1); err != nil || len(pages) != 1 || pages[0].Path != sitemap.Front {
			t.Fatalf("empty catalogue's file: %v, %v", pages, err)
		}
		g := s.Client.Group.Create().SetName("Alpha Council").SetURLSlug("alpha").SaveX(ctx)
		u := s.Client.User.Create().SetEmail("owner@example.com").SetPasswordHash("x").SaveX(ctx)
		docs, grants := searchgen.Generate(searchgen.Options{N: 2600, Seed: 11, GroupIDs: []int{g.ID},
			GroupNames: []string{g.Name}, UserIDs: []int{u.ID}, PrivateShare: 0.3})
		err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := searchgen.InsertGrants(ctx, tx, s.Dialect == "postgres", grants); err != nil {
				return err
			}
			return ix.Put(ctx, tx, docs...)
		})
		if err != nil {
			t.Fatal(err)
		}
		want := append(publicPaths(t, ix), sitemap.Front)
		if len(want) < 1200 || len(want) > 2600 {
			t.Fatalf("%d public pages: the fixture should hold public and private docs", len(want))
		}

		const per = 700
		sm := sitemap.New(ix, per)
		files, err := sm.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if files != (len(want)+per-1)/per {
			t.Fatalf("%d files for %d pages of %d", files, len(want), per)
		}
		var got []string
		for n := 1; n <= files; n++ {
			pages, err := sm.File(ctx, n)
			if err != nil {
				t.Fatalf("file %d: %v", n, err)
			}
			if len(pages) > per || n < files && len(pages) != per {
				t.Fatalf("file %d holds %d pages", n, len(pages))
			}
			for _, p := range pages {
				if p.Path != sitemap.Front && p.LastMod.IsZero() {
					t.Fatalf("%s has no lastmod", p.Path)
				}
				got = append(got, p.Path)
			}
			again, err := sm.File(ctx, n)
			if err != nil || !slices.Equal(again, pages) {
				t.Fatalf("file %d changed between two calls", n)
			}
		}
		if got[0] != sitemap.Front {
			t.Fatalf("file 1 starts with %q, want the front page", got[0])
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("the files list %d pages, want each of %d once", len(got), len(want))
		}
		for _, n := range []int{0, -1, files + 1} {
			if _, err := sm.File(ctx, n); !errors.Is(err, sitemap.ErrNoFile) {
				t.Fatalf("file %d: %v, want ErrNoFile", n, err)
			}
		}
		if sitemap.New(ix, 0).PerFile() != sitemap.MaxURLs || sitemap.New(ix, sitemap.MaxURLs+1).PerFile() != sitemap.MaxURLs {
			t.Fatal("the cap is not the protocol's by default")
		}
	})
}
