package search_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func ptr[T any](v T) *T { return &v }

type filterCase struct {
	name  string
	q     search.Query
	match func(d search.Doc, grants []searchgen.Grant) bool
}

func hasAny(vs []string, want ...string) bool {
	for _, v := range vs {
		if slices.Contains(want, v) {
			return true
		}
	}
	return false
}

func isPublic(d search.Doc, grants []searchgen.Grant) bool {
	for _, g := range grants {
		if g.PermKind == d.PermKind && g.PermID == d.PermID && g.Subject == "everyone" {
			return true
		}
	}
	return false
}

func filterCases(f *fixture) []filterCase {
	cut := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	g0 := f.groups[0]
	return []filterCase{
		{"everything", search.Query{}, func(search.Doc, []searchgen.Grant) bool { return true }},
		// "kind (repeatable; vector, raster, grid, table, set, document, layer, ...)"
		{"kind raster or table", search.Query{Kinds: []string{"raster", "table"}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.Kind == "raster" || d.Kind == "table" }},
		{"kind layer", search.Query{Kinds: []string{"layer"}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.Ref.Type == search.TypeLayer }},
		{"geometry type", search.Query{GeometryTypes: []string{"point", "polygon"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.GeometryType == "point" || d.GeometryType == "polygon"
		}},
		// The plugin's "vectors and rasters": kind=raster with geometry types.
		{"kind raster plus vectors", search.Query{Kinds: []string{"raster"}, GeometryTypes: []string{"point", "linestring", "polygon"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.Kind == "raster" || d.GeometryType != ""
		}},
		{"tag", search.Query{Tags: []string{"hydrology", "marine"}}, func(d search.Doc, _ []searchgen.Grant) bool { return hasAny(d.Tags, "hydrology", "marine") }},
		// "category (hierarchical)": a parent matches its children.
		{"category parent", search.Query{Categories: []string{"hazards"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return len(d.Categories) > 0 && strings.HasPrefix(d.Categories[0].Key, "hazards/")
		}},
		{"category child", search.Query{Categories: []string{"water/coast"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return len(d.Categories) > 0 && d.Categories[0].Key == "water/coast"
		}},
		{"group", search.Query{GroupIDs: []int{g0}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.GroupID == g0 }},
		{"not a group", search.Query{ExcludeGroupIDs: []int{g0, 999999}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.GroupID != g0 }},
		{"publisher user", search.Query{UserIDs: []int{f.users["owner"].ID}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.UserID == f.users["owner"].ID }},
		{"license type", search.Query{LicenseTypes: []string{"cc-by", "cc-by-sa"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.LicenseType == "cc-by" || d.LicenseType == "cc-by-sa"
		}},
		// "A leading - on a license.type value negates it".
		{"license type negated", search.Query{LicenseTypes: []string{"-cc-by-nc", "-cc-by-nd"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.LicenseType != "cc-by-nc" && d.LicenseType != "cc-by-nd"
		}},
		{"license version", search.Query{LicenseVersions: []string{"3.0"}}, func(d search.Doc, _ []searchgen.Grant) bool { return d.LicenseVersion == "3.0" }},
		{"public", search.Query{Public: ptr(true)}, isPublic},
		{"not public", search.Query{Public: ptr(false)}, func(d search.Doc, g []searchgen.Grant) bool { return !isPublic(d, g) }},
		{"has_z", search.Query{HasZ: ptr(true)}, func(d search.Doc, _ []searchgen.Grant) bool { return d.HasZ }},
		{"has_pk false", search.Query{HasPK: ptr(false)}, func(d search.Doc, _ []searchgen.Grant) bool { return !d.HasPK }},
		{"is_imagery", search.Query{IsImagery: ptr(true)}, func(d search.Doc, _ []searchgen.Grant) bool { return d.IsImagery != nil && *d.IsImagery }},
		{"raster resolution range", search.Query{RasterResolutionGT: ptr(0.1), RasterResolutionLT: ptr(10.0)}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.RasterResolution != nil && *d.RasterResolution > 0.1 && *d.RasterResolution < 10
		}},
		{"raster band", search.Query{RasterBands: []string{"alpha", "gray"}}, func(d search.Doc, _ []searchgen.Grant) bool { return hasAny(d.RasterBands, "alpha", "gray") }},
		{"created after", search.Query{CreatedAfter: &cut}, func(d search.Doc, _ []searchgen.Grant) bool { return d.CreatedAt.After(cut) }},
		{"created before", search.Query{CreatedBefore: &cut}, func(d search.Doc, _ []searchgen.Grant) bool { return d.CreatedAt.Before(cut) }},
		{"updated after", search.Query{UpdatedAfter: &cut}, func(d search.Doc, _ []searchgen.Grant) bool { return d.UpdatedAt.After(cut) }},
		{"updated before", search.Query{UpdatedBefore: &cut}, func(d search.Doc, _ []searchgen.Grant) bool { return d.UpdatedAt.Before(cut) }},
		{"geotag", search.Query{Geotags: []string{"otago", "nelson"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.Geotags[0].Key == "otago" || d.Geotags[0].Key == "nelson"
		}},
		// "different filters are AND-ed"
		{"tag and kind and license", search.Query{Tags: []string{"transport"}, Kinds: []string{"vector"}, LicenseTypes: []string{"-cc-by"}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return hasAny(d.Tags, "transport") && d.Kind == "vector" && d.LicenseType != "cc-by"
		}},
		{"types", search.Query{Types: []search.Type{search.TypeSet, search.TypeDocument}}, func(d search.Doc, _ []searchgen.Grant) bool {
			return d.Ref.Type == search.TypeSet || d.Ref.Type == search.TypeDocument
		}},
	}
}

// Every filter, for every kind of caller, returns exactly the docs the Go
// model of the filter and the permission rule selects, across all pages;
// the total and every facet count equal brute-force counts over those
// docs ("Counts cover the whole result set regardless of paging"), so a
// private doc never shows in results or facets for callers who cannot see
// it.
func TestFiltersFacetsAndPermissionsMatchBruteForce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, 240)
		for _, c := range filterCases(f) {
			for viewer, model := range f.models {
				q := c.q
				q.Viewer = f.viewers[viewer]
				q.Limit = 17
				q.Facets = true
				q.FacetLimit = 1000
				hits, first := f.all(t, q)
				var want []search.Doc
				var wantRefs []string
				for _, d := range f.docs {
					if model.sees(d, f.grants) && c.match(d, f.grants) {
						want = append(want, d)
						wantRefs = append(wantRefs, d.Ref.String())
					}
				}
				slices.Sort(wantRefs)
				if got := refsOf(hits); !slices.Equal(got, wantRefs) {
					t.Fatalf("%s as %s: %d hits, want %d\ngot  %v\nwant %v", c.name, viewer, len(got), len(wantRefs), got, wantRefs)
				}
				if first.TotalCount != len(want) {
					t.Fatalf("%s as %s: total %d, want %d", c.name, viewer, first.TotalCount, len(want))
				}
				if diff := sameMaps(facetMaps(first.Facets), bruteFacets(want)); diff != "" {
					t.Fatalf("%s as %s: facets differ\n%s", c.name, viewer, diff)
				}
				checkRanges(t, c.name+" as "+viewer, first.Facets, want)
			}
		}
	})
}

func checkRanges(t *testing.T, name string, f *search.Facets, docs []search.Doc) {
	t.Helper()
	if len(docs) == 0 {
		if f.CreatedAt != nil || f.UpdatedAt != nil {
			t.Fatalf("%s: date ranges over nothing", name)
		}
		return
	}
	minC, maxC := docs[0].CreatedAt, docs[0].CreatedAt
	minU, maxU := docs[0].UpdatedAt, docs[0].UpdatedAt
	for _, d := range docs {
		minC, maxC = minTime(minC, d.CreatedAt), maxTime(maxC, d.CreatedAt)
		minU, maxU = minTime(minU, d.UpdatedAt), maxTime(maxU, d.UpdatedAt)
	}
	if f.CreatedAt == nil || !f.CreatedAt.Min.Equal(minC) || !f.CreatedAt.Max.Equal(maxC) || !f.UpdatedAt.Min.Equal(minU) || !f.UpdatedAt.Max.Equal(maxU) {
		t.Fatalf("%s: date ranges %+v %+v, want %v-%v %v-%v", name, f.CreatedAt, f.UpdatedAt, minC, maxC, minU, maxU)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Facets with free text count exactly the matched docs, all pages.
func TestFacetsWithTextCountTheWholeMatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, 240)
		by := f.byRef()
		for _, viewer := range []string{"anonymous", "editor", "admin"} {
			q := search.Query{Viewer: f.viewers[viewer], Q: "roads flood", Limit: 5, Facets: true, FacetLimit: 1000}
			hits, first := f.all(t, q)
			if len(hits) == 0 || first.TotalCount != len(hits) {
				t.Fatalf("as %s: %d hits, total %d", viewer, len(hits), first.TotalCount)
			}
			var docs []search.Doc
			for _, h := range hits {
				d := by[h.Ref]
				if !f.models[viewer].sees(d, f.grants) {
					t.Fatalf("as %s: %s is not visible to the caller", viewer, h.Ref)
				}
				docs = append(docs, d)
			}
			if diff := sameMaps(facetMaps(first.Facets), bruteFacets(docs)); diff != "" {
				t.Fatalf("as %s: %s", viewer, diff)
			}
		}
	})
}

// putDocs indexes hand-written docs, public unless listed in private.
func putDocs(t *testing.T, s *store.Store, ix search.Index, docs []search.Doc, private ...int) {
	t.Helper()
	var grants []searchgen.Grant
	granted := map[int]bool{}
	for i := range docs {
		if !slices.Contains(private, docs[i].Ref.ID) && !granted[docs[i].PermID] {
			granted[docs[i].PermID] = true
			grants = append(grants, searchgen.Grant{PermKind: docs[i].PermKind, PermID: docs[i].PermID, Subject: "everyone", Permission: "view"})
		}
	}
	err := s.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		if err := searchgen.InsertGrants(ctx, tx, s.Dialect == "postgres", grants); err != nil {
			return err
		}
		return ix.Put(ctx, tx, docs...)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func layer(id int, title, desc string) search.Doc {
	return search.Doc{Ref: search.Ref{Type: search.TypeLayer, ID: id, State: search.Published}, Kind: "vector", Title: title, Description: desc,
		PermKind: "layer", PermID: id, CreatedAt: time.Date(2024, 1, 1, 0, 0, id, 0, time.UTC)}
}

func titles(t *testing.T, ix search.Index, q search.Query) []string {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Q, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Title)
	}
	return out
}

// "matches any term; more matched terms rank higher; title weighted most;
// with q and no sort, order is by relevance".
func TestRanking(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ix := search.New(s)
		putDocs(t, s, ix, []search.Doc{
			layer(1, "Auckland parcels", "Property boundaries with a river name column."),
			layer(2, "River centrelines", "Linear features of the national network."),
			layer(3, "Lake outlines", "Water bodies."),
			layer(4, "River flood extent", "Modelled flood plains along each river."),
			layer(5, "Coastline", "Mean high water springs."),
		})
		got := titles(t, ix, search.Query{Q: "river"})
		if len(got) != 3 || got[2] != "Auckland parcels" {
			t.Fatalf("a title match must outrank a description match: %v", got)
		}
		got = titles(t, ix, search.Query{Q: "river flood"})
		if len(got) != 3 || got[0] != "River flood extent" {
			t.Fatalf("more matched terms must rank higher: %v", got)
		}
		// Any term matches: "lake" and "coastline" share no doc.
		if got := titles(t, ix, search.Query{Q: "lake coastline"}); len(got) != 2 {
			t.Fatalf("terms are OR-ed: %v", got)
		}
		// An explicit sort overrides relevance.
		got = titles(t, ix, search.Query{Q: "river", Sort: search.SortName})
		if !slices.Equal(got, []string{"Auckland parcels", "River centrelines", "River flood extent"}) {
			t.Fatalf("sort=name: %v", got)
		}
	})
}

// "Stemming and prefix matching for the last term (type-ahead)".
func TestStemmingAndPrefix(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ix := search.New(s)
		putDocs(t, s, ix, []search.Doc{
			layer(1, "Road centrelines", ""),
			layer(2, "Building outlines", ""),
			layer(3, "Waterways", ""),
		})
		if got := titles(t, ix, search.Query{Q: "roads"}); !slices.Equal(got, []string{"Road centrelines"}) {
			t.Fatalf("roads: %v", got)
		}
		if got := titles(t, ix, search.Query{Q: "buildings"}); !slices.Equal(got, []string{"Building outlines"}) {
			t.Fatalf("buildings: %v", got)
		}
		if got := titles(t, ix, search.Query{Q: "buil"}); !slices.Equal(got, []string{"Building outlines"}) {
			t.Fatalf("type-ahead buil: %v", got)
		}
		if got := titles(t, ix, search.Query{Q: "road wat"}); len(got) != 2 {
			t.Fatalf("type-ahead on the last term: %v", got)
		}
		// Only the last term is a prefix.
		if got := titles(t, ix, search.Query{Q: "wat road"}); !slices.Equal(got, []string{"Road centrelines"}) {
			t.Fatalf("a prefix on an earlier term: %v", got)
		}
	})
}

// Hostile text is plain words: never an engine syntax error.
func TestHostileTextIsPlainTerms(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ix := search.New(s)
		putDocs(t, s, ix, []search.Doc{layer(1, "Roads NEAR rivers", "AND or NOT"), layer(2, "Parks", "")})
		for _, q := range []string{`"`, `"roads`, `roads"`, `'`, `''`, `\`, `*`, `roads*`, `^roads`, `-roads`, `roads -parks`,
			`(roads`, `roads)`, `NEAR(roads rivers)`, `roads NEAR rivers`, `AND`, `OR`, `NOT`, `roads AND parks`, `title:roads`,
			`{roads}`, `roads:*`, `!roads`, `roads & parks | x`, `<->`, `%_`, `?`, `$1`, `;DROP TABLE search_docs;--`, "\x00", "ro\x00ads",
			strings.Repeat("a ", 500), strings.Repeat("x", 5000), `ümlaut`, `日本語`} {
			if _, err := ix.Search(context.Background(), search.Query{Q: q, Facets: true}); err != nil {
				t.Fatalf("q %q: %v", q, err)
			}
		}
		if got := titles(t, ix, search.Query{Q: `"roads" -parks`}); !slices.Contains(got, "Roads NEAR rivers") || !slices.Contains(got, "Parks") {
			t.Fatalf("operators must be plain terms: %v", got)
		}
		if got := titles(t, ix, search.Query{Q: `NEAR`}); !slices.Equal(got, []string{"Roads NEAR rivers"}) {
			t.Fatalf("NEAR as a word: %v", got)
		}
	})
}

// Keyset paging: every sort, small pages, no duplicates and no gaps, the
// same order as one big page.
func TestKeysetPagingIsStable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, 150)
		for _, sort := range []search.Sort{"", search.SortRelevance, search.SortPopularity, search.SortName, search.SortNameDesc,
			search.SortCreated, search.SortCreatedOld, search.SortUpdated, search.SortUpdatedOld} {
			for _, text := range []string{"", "roads auckland"} {
				q := search.Query{Viewer: f.viewers["admin"], Q: text, Sort: sort, Limit: 1000}
				res, err := f.ix.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				q.Limit = 7
				paged, _ := f.all(t, q)
				if len(paged) != len(res.Hits) || len(paged) != res.TotalCount {
					t.Fatalf("sort %q q %q: paged %d, one page %d, total %d", sort, text, len(paged), len(res.Hits), res.TotalCount)
				}
				for i := range paged {
					if paged[i].Ref != res.Hits[i].Ref {
						t.Fatalf("sort %q q %q: position %d differs: %s vs %s", sort, text, i, paged[i].Ref, res.Hits[i].Ref)
					}
				}
				// The offset fallback agrees with the cursor.
				q.Offset = 14
				off, err := f.ix.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				for i, h := range off.Hits {
					if h.Ref != res.Hits[14+i].Ref {
						t.Fatalf("sort %q: offset page differs at %d", sort, i)
					}
				}
			}
		}
		by := f.byRef()
		res, _ := f.ix.Search(context.Background(), search.Query{Viewer: f.viewers["admin"], Sort: search.SortName, Limit: 1000})
		for i := 1; i < len(res.Hits); i++ {
			if strings.ToLower(by[res.Hits[i-1].Ref].Title) > strings.ToLower(by[res.Hits[i].Ref].Title) {
				t.Fatalf("name order broken at %d", i)
			}
		}
		res, _ = f.ix.Search(context.Background(), search.Query{Viewer: f.viewers["admin"], Sort: search.SortCreated, Limit: 1000})
		for i := 1; i < len(res.Hits); i++ {
			if by[res.Hits[i-1].Ref].CreatedAt.Before(by[res.Hits[i].Ref].CreatedAt) {
				t.Fatalf("created_at is most recent first; broken at %d", i)
			}
		}
		// Each hit carries its doc's UpdatedAt (a sitemap's lastmod).
		for _, h := range res.Hits {
			if want := by[h.Ref].UpdatedAt.Truncate(time.Microsecond); !h.UpdatedAt.Equal(want) {
				t.Fatalf("%s: UpdatedAt %v, want %v", h.Ref, h.UpdatedAt, want)
			}
		}
	})
}

func TestBadInputIsInvalid(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ix := search.New(s)
		for _, q := range []search.Query{{Sort: "colour"}, {Cursor: "!!"}, {Cursor: "e30"}, {Limit: -1}, {Offset: -2}, {State: "draft"}} {
			if _, err := ix.Search(context.Background(), q); err == nil || !strings.Contains(err.Error(), search.ErrInvalid.Error()) {
				t.Fatalf("%+v: %v", q, err)
			}
		}
		res, err := ix.Search(context.Background(), search.Query{Sort: search.SortName, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		putDocs(t, s, ix, []search.Doc{layer(1, "A", ""), layer(2, "B", "")})
		res, _ = ix.Search(context.Background(), search.Query{Sort: search.SortName, Limit: 1})
		if _, err := ix.Search(context.Background(), search.Query{Sort: search.SortPopularity, Cursor: res.NextCursor}); err == nil {
			t.Fatal("a cursor of another sort must be refused")
		}
	})
}

// Put replaces a doc in place (same index id, new texts and facets);
// Delete removes it; both follow the caller's transaction.
func TestPutReplacesAndDeleteRemoves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ix := search.New(s)
		d := layer(1, "Old name", "")
		d.Tags = []string{"old"}
		putDocs(t, s, ix, []search.Doc{d})
		d.Title, d.Tags = "Fresh title", []string{"new"}
		if err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Put(ctx, tx, d) }); err != nil {
			t.Fatal(err)
		}
		if got := titles(t, ix, search.Query{Q: "old"}); len(got) != 0 {
			t.Fatalf("the old title is still indexed: %v", got)
		}
		res, _ := ix.Search(ctx, search.Query{Q: "fresh", Facets: true})
		if len(res.Hits) != 1 || len(res.Facets.Tag) != 1 || res.Facets.Tag[0].Key != "new" {
			t.Fatalf("after retitle: %+v %+v", res.Hits, res.Facets)
		}
		// A rolled-back delete leaves the doc.
		_ = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := ix.Delete(ctx, tx, d.Ref); err != nil {
				t.Fatal(err)
			}
			return context.Canceled
		})
		if got := titles(t, ix, search.Query{Q: "fresh"}); len(got) != 1 {
			t.Fatalf("rolled-back delete removed the doc: %v", got)
		}
		if err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Delete(ctx, tx, d.Ref, d.Ref) }); err != nil {
			t.Fatal(err)
		}
		res, _ = ix.Search(ctx, search.Query{Facets: true})
		if res.TotalCount != 0 || len(res.Facets.Tag) != 0 {
			t.Fatalf("after delete: %+v", res)
		}
	})
}

// Drafts: a latest doc whose version is not published is visible to
// editors only, and never among published docs.
func TestLatestDraftsNeedEdit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, 0)
		pub := layer(1, "Shared roads", "")
		draft := pub
		draft.Ref.State, draft.VersionStatus, draft.Title = search.Latest, "draft", "Shared roads v2"
		pub.GroupID, draft.GroupID = f.groups[0], f.groups[0]
		putDocs(t, s, f.ix, []search.Doc{pub, draft})
		for viewer, want := range map[string]int{"anonymous": 0, "outsider": 0, "editor": 1, "admin": 1} {
			res, err := f.ix.Search(context.Background(), search.Query{Viewer: f.viewers[viewer], State: search.Latest})
			if err != nil || res.TotalCount != want {
				t.Fatalf("latest as %s: %d, want %d (%v)", viewer, res.TotalCount, want, err)
			}
			res, _ = f.ix.Search(context.Background(), search.Query{Viewer: f.viewers[viewer], Q: "v2"})
			if res.TotalCount != 0 {
				t.Fatalf("a draft among published docs for %s", viewer)
			}
		}
		res, _ := f.ix.Search(context.Background(), search.Query{Viewer: f.viewers["editor"], State: search.Latest, VersionStatuses: []string{"importing"}})
		if res.TotalCount != 0 {
			t.Fatal("version status filter")
		}
	})
}

// Permission changes apply at once, with no reindex.
func TestPermissionChangeNeedsNoReindex(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, 0)
		putDocs(t, s, f.ix, []search.Doc{layer(1, "Secret parcels", "")}, 1)
		count := func(v string) int {
			res, err := f.ix.Search(context.Background(), search.Query{Viewer: f.viewers[v], Q: "parcels", Facets: true})
			if err != nil {
				t.Fatal(err)
			}
			return res.TotalCount + len(res.Facets.Kind)
		}
		if count("outsider") != 0 || count("admin") != 2 {
			t.Fatal("private doc before the grant")
		}
		err := s.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return searchgen.InsertGrants(ctx, tx, s.Dialect == "postgres", []searchgen.Grant{{PermKind: "layer", PermID: 1, Subject: "user", SubjectID: f.users["outsider"].ID, Permission: "view"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if count("outsider") != 2 || count("anonymous") != 0 {
			t.Fatal("the grant did not apply at once")
		}
	})
}

func TestStars(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		f := newFixture(t, s, 0)
		putDocs(t, s, f.ix, []search.Doc{layer(1, "One", ""), layer(2, "Two", "")})
		stars := search.NewStars(s.DB, s.Dialect)
		u := f.users["outsider"].ID
		err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if err := stars.Star(ctx, tx, u, search.TypeLayer, 2); err != nil {
				return err
			}
			return stars.Star(ctx, tx, u, search.TypeLayer, 2)
		})
		if err != nil {
			t.Fatal(err)
		}
		got := titles(t, f.ix, search.Query{Viewer: f.viewers["outsider"], IsStarred: ptr(true)})
		if !slices.Equal(got, []string{"Two"}) {
			t.Fatalf("starred: %v", got)
		}
		if got := titles(t, f.ix, search.Query{Viewer: f.viewers["outsider"], IsStarred: ptr(false)}); !slices.Equal(got, []string{"One"}) {
			t.Fatalf("not starred: %v", got)
		}
		if got := titles(t, f.ix, search.Query{IsStarred: ptr(true)}); len(got) != 0 {
			t.Fatalf("anonymous starred: %v", got)
		}
		_ = s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return stars.Unstar(ctx, tx, u, search.TypeLayer, 2)
		})
		if got := titles(t, f.ix, search.Query{Viewer: f.viewers["outsider"], IsStarred: ptr(true)}); len(got) != 0 {
			t.Fatalf("after unstar: %v", got)
		}
	})
}
