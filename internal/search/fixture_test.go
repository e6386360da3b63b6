package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/store"
)

// viewerModel is the test's own statement of the permission rule, to
// compute expected results in Go: site admins see everything; others see
// a doc through a view-or-better grant to everyone, to themselves or to a
// group they belong to, or through edit_data (or higher) membership of its
// owning group.
type viewerModel struct {
	userID int
	admin  bool
	groups map[int]groupmembership.Permission
}

var viewLevels = map[string]bool{"view": true, "download": true, "edit": true, "admin": true}

func (m viewerModel) sees(d search.Doc, grants []searchgen.Grant) bool {
	if m.admin {
		return true
	}
	if have, ok := m.groups[d.GroupID]; ok && d.GroupID != 0 && have != groupmembership.PermissionMember {
		return true
	}
	for _, g := range grants {
		if g.PermKind != d.PermKind || g.PermID != d.PermID || !viewLevels[g.Permission] {
			continue
		}
		switch {
		case g.Subject == "everyone",
			g.Subject == "user" && g.SubjectID == m.userID && m.userID != 0:
			return true
		case g.Subject == "group":
			if _, ok := m.groups[g.SubjectID]; ok {
				return true
			}
		}
	}
	return false
}

type fixture struct {
	s       *store.Store
	ix      search.Index
	docs    []search.Doc
	grants  []searchgen.Grant
	viewers map[string]*access.Viewer
	models  map[string]viewerModel
	users   map[string]*ent.User
	groups  []int
}

// newFixture indexes n generated docs with a mix of public and private
// ones, and resolves the five kinds of caller.
func newFixture(t *testing.T, s *store.Store, n int) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{s: s, ix: search.New(s), viewers: map[string]*access.Viewer{}, models: map[string]viewerModel{}, users: map[string]*ent.User{}}
	var names []string
	for _, g := range []string{"Alpha Council", "Beta Survey"} {
		slug := strings.ToLower(strings.Fields(g)[0])
		grp := s.Client.Group.Create().SetName(g).SetURLSlug(slug).SaveX(ctx)
		f.groups = append(f.groups, grp.ID)
		names = append(names, g)
	}
	for _, u := range []string{"owner", "outsider", "editor", "member", "granted", "admin"} {
		f.users[u] = s.Client.User.Create().SetEmail(u + "@example.com").SetPasswordHash("x").SetIsSiteAdmin(u == "admin").SaveX(ctx)
	}
	// editor edits the first group's data; member is a plain member of the
	// second group (ownership gives plain members nothing, group grants do).
	s.Client.GroupMembership.Create().SetGroupID(f.groups[0]).SetUserID(f.users["editor"].ID).SetPermission(groupmembership.PermissionEditData).ExecX(ctx)
	s.Client.GroupMembership.Create().SetGroupID(f.groups[1]).SetUserID(f.users["member"].ID).SetPermission(groupmembership.PermissionMember).ExecX(ctx)

	f.docs, f.grants = searchgen.Generate(searchgen.Options{N: n, Seed: 7, GroupIDs: f.groups, GroupNames: names,
		UserIDs: []int{f.users["owner"].ID}, PrivateShare: 0.4})
	public := map[int]bool{}
	for _, g := range f.grants {
		if g.Subject == "everyone" {
			public[g.PermID] = true
		}
	}
	for i, d := range f.docs {
		if public[d.PermID] {
			continue
		}
		if i%3 == 0 {
			f.grants = append(f.grants, searchgen.Grant{PermKind: d.PermKind, PermID: d.PermID, Subject: "user", SubjectID: f.users["granted"].ID, Permission: "view"})
		}
		if i%4 == 0 {
			f.grants = append(f.grants, searchgen.Grant{PermKind: d.PermKind, PermID: d.PermID, Subject: "group", SubjectID: f.groups[1], Permission: "view"})
		}
	}
	err := s.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		if err := searchgen.InsertGrants(ctx, tx, s.Dialect == "postgres", f.grants); err != nil {
			return err
		}
		return f.ix.Put(ctx, tx, f.docs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	f.viewers["anonymous"] = &access.Viewer{}
	f.models["anonymous"] = viewerModel{}
	for name, u := range f.users {
		v, err := access.NewViewer(ctx, s.Client, auth.Principal{User: u})
		if err != nil {
			t.Fatal(err)
		}
		f.viewers[name] = v
		m := viewerModel{userID: u.ID, admin: u.IsSiteAdmin, groups: map[int]groupmembership.Permission{}}
		for _, gm := range u.QueryMemberships().AllX(ctx) {
			m.groups[gm.GroupID] = gm.Permission
		}
		f.models[name] = m
	}
	return f
}

// all pages through q with the cursor and returns every hit, failing on a
// duplicate.
func (f *fixture) all(t *testing.T, q search.Query) ([]search.Hit, search.Result) {
	t.Helper()
	var hits []search.Hit
	seen := map[search.Ref]bool{}
	var first search.Result
	for page := 0; ; page++ {
		res, err := f.ix.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("search %+v: %v", q, err)
		}
		if page == 0 {
			first = res
		}
		for _, h := range res.Hits {
			if seen[h.Ref] {
				t.Fatalf("page %d repeats %s", page, h.Ref)
			}
			seen[h.Ref] = true
		}
		hits = append(hits, res.Hits...)
		if res.NextCursor == "" {
			return hits, first
		}
		if page > 10000 {
			t.Fatal("paging does not end")
		}
		q.Cursor = res.NextCursor
		q.Facets = false
	}
}

func (f *fixture) byRef() map[search.Ref]search.Doc {
	m := map[search.Ref]search.Doc{}
	for _, d := range f.docs {
		m[d.Ref] = d
	}
	return m
}

func refsOf(hits []search.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Ref.String())
	}
	slices.Sort(out)
	return out
}

// bruteFacets counts facets over docs in Go.
func bruteFacets(docs []search.Doc) map[string]map[string]int {
	out := map[string]map[string]int{}
	add := func(facet, key string) {
		if out[facet] == nil {
			out[facet] = map[string]int{}
		}
		out[facet][key]++
	}
	for _, d := range docs {
		for _, t := range uniqStrings(d.Tags) {
			add("tag", t)
		}
		cats := map[string]bool{}
		for _, c := range d.Categories {
			parts := strings.Split(c.Key, "/")
			for i := range parts {
				cats[strings.Join(parts[:i+1], "/")] = true
			}
		}
		for c := range cats {
			add("category", c)
		}
		for _, g := range d.Geotags {
			add("geotag", g.Key)
		}
		for _, b := range uniqStrings(d.RasterBands) {
			add("raster_band", b)
		}
		add("kind", d.Kind)
		if d.GroupID != 0 {
			add("group", strconv.Itoa(d.GroupID))
		}
		if d.LicenseType != "" {
			add("license", d.LicenseType)
		}
		if d.RasterResolution != nil {
			add("raster_resolution", strconv.FormatFloat(*d.RasterResolution, 'g', -1, 64))
		}
	}
	return out
}

func facetMaps(f *search.Facets) map[string]map[string]int {
	out := map[string]map[string]int{}
	for name, es := range map[string][]search.FacetEntry{"tag": f.Tag, "category": f.Category, "geotag": f.Geotag,
		"raster_band": f.RasterBand, "kind": f.Kind, "group": f.Group, "license": f.License, "raster_resolution": f.RasterResolution} {
		if len(es) == 0 {
			continue
		}
		out[name] = map[string]int{}
		for _, e := range es {
			out[name][e.Key] = e.Total
		}
	}
	return out
}

func uniqStrings(vs []string) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func sameMaps(a, b map[string]map[string]int) string {
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Sprintf("got  %v\nwant %v", a, b)
	}
	return ""
}
