package rest_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	cr "github.com/geopub/geopub/internal/catalogrecords"
)

// recordTitles pages through every record of q for ctx's caller, one
// record a page by cursor, and fails on a record seen twice.
func recordTitles(t *testing.T, e *env, ctx context.Context, q cr.Query) ([]string, int) {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	matched := -1
	for range 50 {
		page, err := e.Server.Resolver.CatalogRecords(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if matched >= 0 && page.Matched != matched {
			t.Fatalf("matched changed from %d to %d across pages", matched, page.Matched)
		}
		matched = page.Matched
		for _, r := range page.Records {
			if seen[r.Identifier] {
				t.Fatalf("%s twice", r.Identifier)
			}
			seen[r.Identifier] = true
			out = append(out, r.Title)
		}
		if page.Next == "" {
			sort.Strings(out)
			return out, matched
		}
		q.Cursor = page.Next
	}
	t.Fatal("paging did not end")
	return nil, 0
}

// Issue 27: "the same caller sees the same set through /data/, CSW,
// Records and DCAT": the records are /data/'s published datasets, sources
// left out, for anonymous callers and for an owner with a private one;
// every page by cursor holds each record once, with a total that does
// not change, filtered or not.
func TestCatalogRecordsAreTheCatalogueTheCallerSees(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		anon := context.Background()
		owner := auth.WithPrincipal(context.Background(), auth.Principal{Method: auth.SessionAuth, User: f.owner.User})
		for _, c := range []struct {
			name string
			ctx  context.Context
			key  string
		}{{"anonymous", anon, ""}, {"owner", owner, f.owner.Key}} {
			want := titles(t, e, c.key, "/data/?type=layer&type=table&type=set&type=document&type=catalogitem")
			for _, limit := range []int{1, 2, 100} {
				got, matched := recordTitles(t, e, c.ctx, cr.Query{Limit: limit, Origin: "http://h"})
				if !slices.Equal(got, want) || matched != len(want) {
					t.Fatalf("%s, limit %d: records %v (matched %d), /data/ %v", c.name, limit, got, matched, want)
				}
			}
			// A filter of our own: totals by scan, the same paging.
			titled := func(r *cr.Record) bool { return strings.Contains(strings.ToLower(r.Title), "a") }
			got, matched := recordTitles(t, e, c.ctx, cr.Query{Limit: 1, Filter: titled, Sort: cr.SortTitle})
			wantA := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return !strings.Contains(strings.ToLower(s), "a") })
			if !slices.Equal(got, wantA) || matched != len(wantA) {
				t.Fatalf("%s filtered: %v (matched %d), want %v", c.name, got, matched, wantA)
			}
		}
		// Offsets (CSW's startPosition) skip matches, filtered or not.
		all, err := e.Server.Resolver.CatalogRecords(anon, cr.Query{Limit: 100, Sort: cr.SortTitle})
		if err != nil {
			t.Fatal(err)
		}
		for _, filter := range []func(*cr.Record) bool{nil, func(*cr.Record) bool { return true }} {
			p, err := e.Server.Resolver.CatalogRecords(anon, cr.Query{Limit: 2, Offset: 3, Sort: cr.SortTitle, Filter: filter})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Records) != 2 || p.Records[0].Identifier != all.Records[3].Identifier || p.Matched != len(all.Records) {
				t.Fatalf("offset 3: %v, matched %d", p.Records, p.Matched)
			}
		}
		// One record: visible ones are found, with links; others are not.
		layer := cr.Identifier(cr.Layer, f.layers["Public roads"])
		rec, err := e.Server.Resolver.CatalogRecord(anon, layer, "http://h")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Title != "Public roads" || len(rec.Links) < 3 || rec.Links[0].Href != "http://h/services/api/v1.x/layers/"+strings.TrimPrefix(layer, "layer-")+"/" {
			t.Fatalf("record %+v", rec)
		}
		for _, id := range []string{cr.Identifier(cr.Layer, f.layers["Secret parcels"]), cr.Identifier(cr.Layer, f.layers["Draft rivers"]),
			cr.Identifier(cr.Table, f.layers["Public roads"]), "layer-0", "nonsense"} {
			if _, err := e.Server.Resolver.CatalogRecord(anon, id, "http://h"); apperr.CodeOf(err) != apperr.NotFound {
				t.Fatalf("%s: %v, want not found", id, err)
			}
		}
		if _, err := e.Server.Resolver.CatalogRecord(owner, cr.Identifier(cr.Layer, f.layers["Secret parcels"]), ""); err != nil {
			t.Fatalf("the owner's private layer: %v", err)
		}
		// A bad cursor is the caller's mistake.
		if _, err := e.Server.Resolver.CatalogRecords(anon, cr.Query{Cursor: "junk"}); apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("bad cursor: %v", err)
		}
	})
}

// Spec, Group: catalog_feeds_enabled is "whether the group's data appears
// in public data feeds": a group that turns it off keeps its datasets out
// of the records (and so of CSW, Records, DCAT), never out of /data/.
func TestCatalogRecordsLeaveOutFeedlessGroups(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		ctx := t.Context()
		g := e.Store.Client.Group.Create().SetName("Quiet").SetURLSlug("quiet").SetCountry("NZ").
			SetCatalogFeedsEnabled(false).SaveX(ctx)
		e.Store.Client.Layer.UpdateOneID(f.layers["Public roads"]).SetGroupID(g.ID).ExecX(ctx)
		indexCatalog(t, e, nil)
		if got := titles(t, e, "", "/data/?type=layer"); !slices.Contains(got, "Public roads") {
			t.Fatalf("/data/ lost the layer: %v", got)
		}
		got, matched := recordTitles(t, e, context.Background(), cr.Query{Limit: 2})
		if slices.Contains(got, "Public roads") || matched != len(got) {
			t.Fatalf("records %v (matched %d) hold the feedless group's layer", got, matched)
		}
		id := cr.Identifier(cr.Layer, f.layers["Public roads"])
		if _, err := e.Server.Resolver.CatalogRecord(context.Background(), id, ""); apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("%s: %v, want not found", id, err)
		}
		e.Store.Client.Group.UpdateOneID(g.ID).SetCatalogFeedsEnabled(true).ExecX(ctx)
		if got, _ := recordTitles(t, e, context.Background(), cr.Query{Limit: 2}); !slices.Contains(got, "Public roads") {
			t.Fatalf("feeds back on, records %v", got)
		}
	})
}
