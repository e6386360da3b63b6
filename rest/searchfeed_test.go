package rest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/searchfeed"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// indexRow is what search_docs holds about one doc, without its index
// id, rendered for comparison.
type indexRow struct {
	Ref    string
	Kind   string
	Title  string
	Status string
	Rest   string // every other column, in order
}

// indexSnapshot reads the whole index: the doc rows and their tags,
// categories and bands, keyed by ref.
func indexSnapshot(t testing.TB, st *store.Store) map[string]indexRow {
	t.Helper()
	ctx := context.Background()
	rows, err := st.DB.QueryContext(ctx, `SELECT d.doc_type, d.doc_id, d.state, d.kind, d.title, d.version_status, d.description,
		d.group_id, d.group_name, d.user_id, d.user_name, d.geometry_type, d.has_z, d.has_pk, d.raster_resolution, d.is_imagery,
		d.created_at, d.updated_at, d.first_published_at, d.perm_kind, d.perm_id, d.license_type, d.license_version, d.popularity,
		(SELECT COUNT(*) FROM search_doc_tags x WHERE x.doc = d.id), (SELECT COUNT(*) FROM search_doc_categories x WHERE x.doc = d.id),
		(SELECT COUNT(*) FROM search_doc_bands x WHERE x.doc = d.id), (SELECT COUNT(*) FROM search_doc_geotags x WHERE x.doc = d.id)
		FROM search_docs d`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]indexRow{}
	for rows.Next() {
		var typ, state, kind, title, status string
		var id int
		rest := make([]any, 22)
		ptrs := []any{&typ, &id, &state, &kind, &title, &status}
		for i := range rest {
			ptrs = append(ptrs, &rest[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range rest {
			if b, ok := v.([]byte); ok {
				rest[i] = string(b)
			}
		}
		ref := fmt.Sprintf("%s:%d:%s", typ, id, state)
		out[ref] = indexRow{Ref: ref, Kind: kind, Title: title, Status: status, Rest: fmt.Sprint(rest...)}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameIndex fails unless two snapshots hold the same docs, naming the
// docs that differ.
func sameIndex(t *testing.T, aName string, a map[string]indexRow, bName string, b map[string]indexRow) {
	t.Helper()
	var lines []string
	for ref, ra := range a {
		if rb, ok := b[ref]; !ok || rb != ra {
			lines = append(lines, fmt.Sprintf("  %s: %s %+v\n  %s: %s %+v", ref, aName, ra, ref, bName, rb))
		}
	}
	for ref, rb := range b {
		if _, ok := a[ref]; !ok {
			lines = append(lines, fmt.Sprintf("  %s: only in %s: %+v", ref, bName, rb))
		}
	}
	if len(lines) > 0 {
		slices.Sort(lines)
		t.Fatalf("%s and %s indexes differ:\n%s", aName, bName, strings.Join(lines, "\n"))
	}
}

// expectIndex checks the index holds exactly want: ref -> "kind|title|status".
func expectIndex(t *testing.T, st *store.Store, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for ref, r := range indexSnapshot(t, st) {
		got[ref] = r.Kind + "|" + r.Title + "|" + r.Status
	}
	if !reflect.DeepEqual(got, want) {
		var lines []string
		for _, ref := range slices.Sorted(func(yield func(string) bool) {
			seen := map[string]bool{}
			for k := range got {
				seen[k] = true
			}
			for k := range want {
				seen[k] = true
			}
			for k := range seen {
				if !yield(k) {
					return
				}
			}
		}) {
			if got[ref] != want[ref] {
				lines = append(lines, fmt.Sprintf("  %s: got %q, want %q", ref, got[ref], want[ref]))
			}
		}
		t.Fatalf("index differs:\n%s", strings.Join(lines, "\n"))
	}
}

// searchAs runs a free-text search of the index as u (a site
// administrator sees every doc) and returns the refs found.
func searchAs(t *testing.T, e *env, u *ent.User, state search.State, q string) []string {
	t.Helper()
	v, err := access.NewViewer(t.Context(), e.Store.Client, auth.Principal{User: u})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Server.Resolver.Search.Search(t.Context(), search.Query{Viewer: v, State: state, Q: q, Sort: search.SortName, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Ref.String())
	}
	slices.Sort(out)
	return out
}

// rebuildFromScratch empties the index and its build version, then
// rebuilds it as a process starting on a store built before the feed
// would.
func rebuildFromScratch(t *testing.T, e *env) {
	t.Helper()
	ctx := t.Context()
	for _, q := range []string{"DELETE FROM search_doc_tags", "DELETE FROM search_doc_categories", "DELETE FROM search_doc_geotags",
		"DELETE FROM search_doc_bands", "DELETE FROM search_docs", "DELETE FROM search_meta WHERE key = 'feed_build_version'"} {
		if _, err := e.Store.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	reason, _, err := e.Server.Resolver.Feed.EnsureCurrent(ctx)
	if err != nil || reason == "" {
		t.Fatalf("EnsureCurrent = %q, %v; want a rebuild", reason, err)
	}
	if reason, err := e.Server.Resolver.Feed.Stale(ctx); err != nil || reason != "" {
		t.Fatalf("after the rebuild Stale = %q, %v", reason, err)
	}
}

// Issue 13, 7: the index is "kept current in the same transaction as every
// write that changes an indexed field (publish, rename, retag, permission
// change, layer delete)". Writes go through the real API; after each, the
// index holds exactly the expected docs, and a rebuild from the store gives
// the same docs as the live feed did.
func TestSearchFeed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		pubName := searchfeed.UserName(pub.User)
		if pubName == "" {
			t.Fatal("test users have names")
		}

		// Seeds written through the store's own client (outside any
		// transaction of the API) are indexed right after.
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		codes := seedLayer(t, e, pub.User, layer.TypeTable, "Codes", true)
		want := map[string]string{
			fmt.Sprintf("layer:%d:published", roads.ID): "vector|Roads|published",
			fmt.Sprintf("layer:%d:latest", roads.ID):    "vector|Roads|published",
			fmt.Sprintf("table:%d:latest", codes.ID):    "table|Codes|ok",
		}
		expectIndex(t, e.Store, want)

		// A set: created (latest only, draft), then published.
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Hydrography", "description": "Streams and lakes", "items": []any{memberURL(e, roads), memberURL(e, codes)}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		want[fmt.Sprintf("set:%d:latest", s.ID)] = "set|Hydrography|ok"
		expectIndex(t, e.Store, want)
		r = e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		want[fmt.Sprintf("set:%d:latest", s.ID)] = "set|Hydrography|published"
		want[fmt.Sprintf("set:%d:published", s.ID)] = "set|Hydrography|published"
		expectIndex(t, e.Store, want)
		// The set's doc carries its published members' titles (not the
		// never-published Codes: issue 24.3) and the publisher.
		setRef := fmt.Sprintf("set:%d:published", s.ID)
		if got := searchAs(t, e, admin.User, search.Published, "roads"); !slices.Contains(got, setRef) {
			t.Fatalf("q=roads finds %v, want the set by its member", got)
		}
		if got := searchAs(t, e, admin.User, search.Published, "codes"); slices.Contains(got, setRef) {
			t.Fatalf("q=codes finds the set by its never-published member: %v", got)
		}
		if got := searchAs(t, e, admin.User, search.Published, pub.User.FirstName); !slices.Contains(got, setRef) {
			t.Fatalf("q=%s finds %v, want the set by its publisher", pub.User.FirstName, got)
		}

		// A layer draft: created, renamed (latest doc only), deleted.
		lurl := memberURL(e, roads)
		r = e.Do(t, req{Method: "POST", Path: lurl + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft struct {
			ThisVersion string `json:"this_version"`
		}
		r.JSON(t, &draft)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: pub.Key, Body: map[string]any{"name": "Main roads"}}), http.StatusOK)
		latest := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(roads.ID), layerversion.StateEQ(layerversion.StateDraft)).OnlyX(t.Context())
		want[fmt.Sprintf("layer:%d:latest", roads.ID)] = "vector|Main roads|" + string(latest.Status)
		expectIndex(t, e.Store, want)
		if got := searchAs(t, e, admin.User, search.Published, "main"); slices.Contains(got, fmt.Sprintf("layer:%d:published", roads.ID)) {
			t.Fatalf("the draft's name reached the published doc: %v", got)
		}
		// Publishing it (a publish job) makes it the published doc too.
		r = e.Do(t, req{Method: "POST", Path: draft.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %v", g)
		}
		want[fmt.Sprintf("layer:%d:latest", roads.ID)] = "vector|Main roads|published"
		want[fmt.Sprintf("layer:%d:published", roads.ID)] = "vector|Main roads|published"
		expectIndex(t, e.Store, want)

		// A source: created by an upload (its scan runs as a job), retitled.
		src := upload(t, e, pub.Key, map[string][]byte{"notes.txt": []byte("not data")})
		waitScan(t, e, pub.Key, src.ID) // its end moves the source's updated_at
		want[fmt.Sprintf("source:%d:latest", src.ID)] = "source|Wellington data|published"
		want[fmt.Sprintf("source:%d:published", src.ID)] = "source|Wellington data|published"
		expectIndex(t, e.Store, want)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/sources/%d/", src.ID), Key: pub.Key, Body: map[string]any{"title": "Harbour survey"}}), http.StatusOK)
		want[fmt.Sprintf("source:%d:latest", src.ID)] = "source|Harbour survey|published"
		want[fmt.Sprintf("source:%d:published", src.ID)] = "source|Harbour survey|published"
		expectIndex(t, e.Store, want)

		// A catalog item: created, retitled and retagged, published.
		it := createItem(t, e, pub, map[string]any{"title": "Harbour charts", "link_url": "https://example.com/charts"})
		itemID := strings.TrimPrefix(it.ID, "c")
		want["item:"+itemID+":latest"] = "item|Harbour charts|ok"
		expectIndex(t, e.Store, want)
		r = e.Do(t, req{Method: "PUT", Path: it.ThisVersion, Key: pub.Key, Body: map[string]any{"title": "Harbour charts 2026", "tags": []string{"marine"}}})
		expectStatus(t, r, http.StatusOK)
		want["item:"+itemID+":latest"] = "item|Harbour charts 2026|ok"
		expectIndex(t, e.Store, want)
		publishItem(t, e, pub, it.ThisVersion)
		want["item:"+itemID+":latest"] = "item|Harbour charts 2026|published"
		want["item:"+itemID+":published"] = "item|Harbour charts 2026|published"
		expectIndex(t, e.Store, want)
		// Its geotags are searchable.
		r = e.Do(t, req{Method: "POST", Path: it.URL + "geotags/", Key: pub.Key, Body: map[string]any{
			"name": "Rangitoto", "geometry": map[string]any{"type": "Point", "coordinates": []float64{174.86, -36.79}}}})
		expectStatus(t, r, http.StatusCreated)
		if got := searchAs(t, e, admin.User, search.Published, "rangitoto"); !slices.Equal(got, []string{"item:" + itemID + ":published"}) {
			t.Fatalf("q=rangitoto finds %v, want the item by its geotag", got)
		}

		// The live feed and a rebuild from the store agree, column by column.
		live := indexSnapshot(t, e.Store)
		rebuildFromScratch(t, e)
		sameIndex(t, "rebuilt", indexSnapshot(t, e.Store), "live", live)

		// Deleting the table removes its docs and its title from the set's.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: memberURL(e, codes), Key: pub.Key}), http.StatusNoContent)
		delete(want, fmt.Sprintf("table:%d:latest", codes.ID))
		expectIndex(t, e.Store, want)
		if got := searchAs(t, e, admin.User, search.Published, "codes"); len(got) != 0 {
			t.Fatalf("q=codes finds %v after the table went", got)
		}
		// A document: its docs come and go with it; a permission change
		// leaves the index alone (the engine reads permissions live).
		docID := seedDocument(t, e, pub, "Annual report", true)
		want[fmt.Sprintf("document:%d:latest", docID)] = "document|Annual report|published"
		want[fmt.Sprintf("document:%d:published", docID)] = "document|Annual report|published"
		expectIndex(t, e.Store, want)
		before := indexSnapshot(t, e.Store)
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/documents/%d/permissions/", docID), Key: pub.Key,
			Body: map[string]any{"user": admin.ID, "permission": "edit"}})
		expectStatus(t, r, http.StatusCreated)
		sameIndex(t, "after a permission change", indexSnapshot(t, e.Store), "before", before)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/documents/%d/", docID), Key: pub.Key}), http.StatusNoContent)
		delete(want, fmt.Sprintf("document:%d:latest", docID))
		delete(want, fmt.Sprintf("document:%d:published", docID))
		expectIndex(t, e.Store, want)

		// Deleting the set removes its docs.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: s.URL, Key: pub.Key}), http.StatusNoContent)
		delete(want, fmt.Sprintf("set:%d:latest", s.ID))
		delete(want, fmt.Sprintf("set:%d:published", s.ID))
		expectIndex(t, e.Store, want)

		live = indexSnapshot(t, e.Store)
		rebuildFromScratch(t, e)
		sameIndex(t, "rebuilt", indexSnapshot(t, e.Store), "live", live)
	})
}

// A write that rolls back leaves the index as it was: the feed writes in
// the write's own transaction.
func TestSearchFeedRollback(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		before := indexSnapshot(t, e.Store)
		if len(before) != 2 {
			t.Fatalf("index %v", before)
		}
		boom := errors.New("boom")
		err := e.Store.InTx(t.Context(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			c.LayerVersion.Update().Where(layerversion.LayerID(roads.ID)).SetName("Renamed").ExecX(ctx)
			c.Layer.UpdateOneID(roads.ID).SetName("Renamed").ExecX(ctx)
			c.Set.Create().SetTitle("Never").SetUserID(pub.ID).SaveX(ctx)
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v", err)
		}
		if after := indexSnapshot(t, e.Store); !reflect.DeepEqual(after, before) {
			t.Fatalf("a rolled back write changed the index:\nbefore %v\nafter  %v", before, after)
		}
		// The same write committed is in the index when InTx returns.
		err = e.Store.InTx(t.Context(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			return c.LayerVersion.Update().Where(layerversion.LayerID(roads.ID)).SetName("Renamed").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		expectIndex(t, e.Store, map[string]string{
			fmt.Sprintf("layer:%d:published", roads.ID): "vector|Renamed|published",
			fmt.Sprintf("layer:%d:latest", roads.ID):    "vector|Renamed|published",
		})
	})
}

// A store written before the feed existed is indexed when the service
// starts (in the background), and the docs are the ones the live feed
// writes.
func TestSearchFeedBackfillAtStart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := t.Context()
		c := st.Client
		u := c.User.Create().SetEmail("early@example.com").SetPasswordHash("x").SetFirstName("Early").SetLastName("Bird").SaveX(ctx)
		l := c.Layer.Create().SetType(layer.TypeLayer).SetName("Coastline").SetUserID(u.ID).SaveX(ctx)
		v := c.LayerVersion.Create().SetLayerID(l.ID).SetName("Coastline").SetDescription("Where land meets sea").SetCreatedBy(u.ID).
			SetDatasourceIds([]int{}).SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SaveX(ctx)
		now := time.Now().UTC()
		c.Layer.UpdateOne(l).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
		if got := indexSnapshot(t, st); len(got) != 0 {
			t.Fatalf("no feed yet, but the index holds %v", got)
		}

		e := servertest.New(t, st)
		deadline := time.Now().Add(20 * time.Second)
		for {
			reason, err := e.Server.Resolver.Feed.Stale(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if reason == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the index was not rebuilt at start: %s", reason)
			}
			time.Sleep(20 * time.Millisecond)
		}
		expectIndex(t, st, map[string]string{
			fmt.Sprintf("layer:%d:published", l.ID): "vector|Coastline|published",
			fmt.Sprintf("layer:%d:latest", l.ID):    "vector|Coastline|published",
		})
		rebuilt := indexSnapshot(t, st)
		// The live feed writes the same docs.
		if err := e.Server.Resolver.Feed.ReindexNow(ctx, searchfeed.Datasets{Layers: map[int]bool{l.ID: true}}); err != nil {
			t.Fatal(err)
		}
		if live := indexSnapshot(t, st); !reflect.DeepEqual(live, rebuilt) {
			t.Fatalf("live %v\nrebuilt %v", live, rebuilt)
		}
	})
}

// Docs carry their publisher's names: renaming a group or a user
// reindexes every dataset it owns or created, in the rename's transaction.
func TestSearchFeedPublisherRename(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		g := e.Store.Client.Group.Create().SetName("Harbour board").SetURLSlug("harbour-board").SaveX(t.Context())
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		e.Store.Client.Layer.UpdateOne(roads).SetGroupID(g.ID).ExecX(t.Context())
		names := func() map[string]string {
			out := map[string]string{}
			rows, err := e.Store.DB.QueryContext(t.Context(), "SELECT state, group_name, user_name FROM search_docs")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var state, group, user string
				if err := rows.Scan(&state, &group, &user); err != nil {
					t.Fatal(err)
				}
				out[state] = group + "|" + user
			}
			return out
		}
		want := "Harbour board|Publisher Tester"
		if got := names(); got["published"] != want || got["latest"] != want {
			t.Fatalf("names %v, want %q", got, want)
		}
		err := e.Store.InTx(t.Context(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			if err := c.Group.UpdateOneID(g.ID).SetName("Port authority").Exec(ctx); err != nil {
				return err
			}
			return c.User.UpdateOneID(pub.ID).SetFirstName("Pat").SetLastName("Ng").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		want = "Port authority|Pat Ng"
		if got := names(); got["published"] != want || got["latest"] != want {
			t.Fatalf("names %v, want %q", got, want)
		}
		// Changes docs do not carry reindex nothing (and cost nothing).
		before := indexSnapshot(t, e.Store)
		e.Store.Client.User.UpdateOneID(pub.ID).SetCountry("AU").ExecX(t.Context())
		e.Store.Client.LayerVersion.Update().Where(layerversion.LayerID(roads.ID)).SetProgress(0.5).ExecX(t.Context())
		if after := indexSnapshot(t, e.Store); !reflect.DeepEqual(after, before) {
			t.Fatalf("a change no doc carries changed the index:\n%v\n%v", before, after)
		}
	})
}

// The catalogue fields of a version (tags, categories, licence) and its
// dataset's popularity (views and downloads, written by the counter's
// flushes) reach the docs: the filters and facets of issue 13 read them.
func TestSearchFeedCatalogueFields(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		pub := e.NewUser(t, "Publisher")
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", true)
		draft := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(roads.ID)).OnlyX(ctx)
		cc := doJSON[license](t, e, req{Path: "/licenses/cc-by/nz/"}, http.StatusOK)
		r := e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, roads.ID, draft.ID), Key: pub.Key, Body: map[string]any{
			"tags": []string{"transport", "asphalt"}, "categories": []string{"transportation/roads"}, "license": map[string]any{"url": cc.URL}}})
		expectStatus(t, r, http.StatusOK)
		var licType, licVersion string
		var tags, cats int
		err := e.Store.DB.QueryRowContext(ctx, rebindTest(e, `SELECT license_type, license_version,
			(SELECT COUNT(*) FROM search_doc_tags x WHERE x.doc = d.id), (SELECT COUNT(*) FROM search_doc_categories x WHERE x.doc = d.id)
			FROM search_docs d WHERE doc_type = 'layer' AND doc_id = ? AND state = 'latest'`), roads.ID).Scan(&licType, &licVersion, &tags, &cats)
		if err != nil {
			t.Fatal(err)
		}
		lic := e.Store.Client.License.GetX(ctx, cc.ID)
		// Two categories: the key and its ancestor (the engine files both).
		if licType != lic.Type || licVersion != lic.Version || tags != 2 || cats != 2 {
			t.Fatalf("doc: licence %q %q, %d tags, %d categories; want %q %q, 2, 2", licType, licVersion, tags, cats, lic.Type, lic.Version)
		}
		if got := searchAs(t, e, admin.User, search.Latest, "asphalt"); !slices.Equal(got, []string{fmt.Sprintf("layer:%d:latest", roads.ID)}) {
			t.Fatalf("q=asphalt finds %v, want the layer by its tag", got)
		}

		// Popularity: three views of the published layer, then a flush.
		other := seedLayer(t, e, pub.User, layer.TypeLayer, "Rivers", false)
		for range 3 {
			expectStatus(t, e.Do(t, req{Path: memberURL(e, other), Key: admin.Key}), http.StatusOK)
		}
		if _, err := e.Server.Resolver.Popularity.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		var pop int64
		if err := e.Store.DB.QueryRowContext(ctx, rebindTest(e, "SELECT popularity FROM search_docs WHERE doc_type = 'layer' AND doc_id = ? AND state = 'published'"),
			other.ID).Scan(&pop); err != nil {
			t.Fatal(err)
		}
		if pop != 3 {
			t.Fatalf("popularity %d after 3 views, want 3", pop)
		}
		// The live figures are the ones a rebuild writes.
		live := indexSnapshot(t, e.Store)
		var livePop int64
		e.Store.DB.QueryRowContext(ctx, rebindTest(e, "SELECT popularity FROM search_docs WHERE doc_type = 'layer' AND doc_id = ? AND state = 'published'"), other.ID).Scan(&livePop)
		rebuildFromScratch(t, e)
		sameIndex(t, "rebuilt", indexSnapshot(t, e.Store), "live", live)
		e.Store.DB.QueryRowContext(ctx, rebindTest(e, "SELECT popularity FROM search_docs WHERE doc_type = 'layer' AND doc_id = ? AND state = 'published'"), other.ID).Scan(&pop)
		if pop != livePop {
			t.Fatalf("rebuilt popularity %d, live %d", pop, livePop)
		}
	})
}

// A set's doc serves every caller, so it carries only its public members'
// titles: a search must not tell an outsider that a set holds a private
// layer with a given word in its title. Making the member public (a
// grant, which changes no doc of the layer itself) reindexes the set.
func TestSearchFeedSetsHidePrivateMemberTitles(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		outsider := e.NewUser(t, "Outsider")
		hidden := seedLayer(t, e, pub.User, layer.TypeLayer, "Quarantined wells", false)
		open := seedLayer(t, e, pub.User, layer.TypeLayer, "Open meadows", false)
		e.Store.Client.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindLayer),
			datasetpermission.DatasetID(hidden.ID), datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(t.Context())
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Farm survey", "items": []any{memberURL(e, hidden), memberURL(e, open)}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		r = e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		setRef := fmt.Sprintf("set:%d:published", s.ID)
		if got := searchAs(t, e, outsider.User, search.Published, "meadows"); !slices.Contains(got, setRef) {
			t.Fatalf("q=meadows finds %v, want the set by its public member", got)
		}
		if got := searchAs(t, e, outsider.User, search.Published, "quarantined"); slices.Contains(got, setRef) {
			t.Fatalf("q=quarantined finds the set by its private member's title: %v", got)
		}
		e.Store.Client.DatasetPermission.Create().SetDatasetKind(access.KindLayer).SetDatasetID(hidden.ID).
			SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView).ExecX(t.Context())
		if got := searchAs(t, e, outsider.User, search.Published, "quarantined"); !slices.Contains(got, setRef) {
			t.Fatalf("after the member became public, q=quarantined finds %v, want the set", got)
		}
	})
}

// api-shapes §4.2: has_z=True selects vector layers whose coordinates
// carry z. The scan records a datasource's dimensions; a layer made from
// a three-dimensional one is found, a flat one is not.
func TestSearchFeedHasZ(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		src := upload(t, e, owner.Key, map[string][]byte{
			"flat.geojson":  []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[174.7,-41.3]}}]}`),
			"peaks.geojson": []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[174.7,-41.3,1200.5]}}]}`),
		})
		if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, owner.Key, src.ID)
		ids := map[string]int{}
		for _, name := range []string{"flat", "peaks"} {
			ids[name] = publishLayerFrom(t, e, owner, name, ds[name+".geojson"].ID)
		}
		list := func(query string) []int {
			r := e.Do(t, req{Path: "/data/?" + query, Key: owner.Key})
			expectStatus(t, r, http.StatusOK)
			var entries []struct {
				ID int `json:"id"`
			}
			r.JSON(t, &entries)
			var out []int
			for _, en := range entries {
				out = append(out, en.ID)
			}
			slices.Sort(out)
			return out
		}
		if got := list("has_z=True"); !slices.Equal(got, []int{ids["peaks"]}) {
			t.Fatalf("has_z=True lists %v, want only the 3D layer %d", got, ids["peaks"])
		}
		if got := list("has_z=false&kind=layer"); !slices.Equal(got, []int{ids["flat"]}) {
			t.Fatalf("has_z=false lists %v, want only the flat layer %d", got, ids["flat"])
		}
	})
}
