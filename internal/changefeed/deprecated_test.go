package changefeed_test

import (
	"context"
	"testing"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/deprecation"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 26 item 4: the feed carries "deprecated" among its events. A
// published dataset's first marking is one dataset.deprecated event;
// marking it again with a new reason and undeprecating it are not news,
// and a dataset never published has no events at all.
func TestDeprecationIsOneEventOfPublishedDatasets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		ctx := context.Background()
		old, v := f.layer(t, "Old parcels", true)
		f.publish(t, old, v)
		repl, w := f.layer(t, "Parcels 2026", true)
		f.publish(t, repl, w)
		draft, _ := f.layer(t, "Never published", true)
		owner, err := access.NewViewer(ctx, st.Client, principal(f.owner))
		if err != nil {
			t.Fatal(err)
		}
		svc := &deprecation.Service{Store: st}
		mark := func(d deprecation.Dataset, req deprecation.Request) {
			t.Helper()
			if err := svc.Deprecate(ctx, owner, d, req); err != nil {
				t.Fatal(err)
			}
		}
		admin := &access.Viewer{SiteAdmin: true}
		deprecations := func() []changefeed.Event {
			return f.list(t, admin, changefeed.Query{Types: []string{changefeed.Deprecated}}).Events
		}

		mark(deprecation.Dataset{Type: "layer", ID: draft.ID}, deprecation.Request{Reason: "Abandoned."})
		if es := deprecations(); len(es) != 0 {
			t.Fatalf("deprecating an unpublished layer appended %d events, want none", len(es))
		}

		oldRef := deprecation.Dataset{Type: "layer", ID: old.ID}
		mark(oldRef, deprecation.Request{Reason: "  Superseded by the 2026 survey.  ",
			Replacement: &deprecation.Dataset{Type: "layer", ID: repl.ID}})
		es := deprecations()
		if len(es) != 1 {
			t.Fatalf("deprecating a published layer appended %d events, want 1", len(es))
		}
		e := es[0]
		if e.Dataset.ID != old.ID || e.DatasetType != "layer" || e.Title != "Old parcels" || e.VersionID == nil || *e.VersionID != v.ID {
			t.Errorf("deprecated event %+v", e)
		}
		r, _ := e.Detail["replacement"].(map[string]any)
		if e.Detail["reason"] != "Superseded by the 2026 survey." || r["type"] != "layer" || r["id"] != float64(repl.ID) {
			t.Errorf("deprecated detail %v: want the trimmed reason and layer %d as the replacement", e.Detail, repl.ID)
		}
		first, err := svc.Read(ctx, oldRef)
		if err != nil || first == nil {
			t.Fatalf("read back %v, %v", first, err)
		}

		mark(oldRef, deprecation.Request{Reason: "Use the 2026 survey instead."})
		again, err := svc.Read(ctx, oldRef)
		if err != nil {
			t.Fatal(err)
		}
		if !again.At.Equal(first.At) || again.Reason != "Use the 2026 survey instead." || again.Replacement != nil {
			t.Errorf("marked again: %+v, want the new reason, no replacement, and the first marking's time %v", again, first.At)
		}
		if err := svc.Undeprecate(ctx, oldRef); err != nil {
			t.Fatal(err)
		}
		if n, err := svc.Read(ctx, oldRef); err != nil || n != nil {
			t.Errorf("undeprecated, the layer still reads %+v, %v", n, err)
		}
		if es := deprecations(); len(es) != 1 {
			t.Errorf("after a new reason and an undeprecation: %d deprecated events, want still 1", len(es))
		}
		all := f.list(t, admin, changefeed.Query{})
		want := []string{changefeed.Published, changefeed.Published, changefeed.Deprecated}
		if !same(types(all.Events), want) {
			t.Errorf("feed %v, want %v", types(all.Events), want)
		}
		// Anonymous callers see the public layer's deprecation too.
		if p := f.list(t, anonymous, changefeed.Query{Types: []string{changefeed.Deprecated}}); len(p.Events) != 1 {
			t.Errorf("anonymous sees %d deprecated events of a public layer, want 1", len(p.Events))
		}
	})
}
