package changefeed_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// counter records the counting jobs a feed enqueues, so a test can run
// them (the job system itself is internal/jobs' to test).
type counter struct {
	mu   sync.Mutex
	jobs []changefeed.CountArgs
}

func (c *counter) InsertTx(_ context.Context, _ *sql.Tx, args river.JobArgs, _ *river.InsertOpts) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs = append(c.jobs, args.(changefeed.CountArgs))
	return int64(len(c.jobs)), nil
}

// run works the enqueued jobs.
func (c *counter) run(t *testing.T, f *changefeed.Feed) {
	t.Helper()
	c.mu.Lock()
	jobs := c.jobs
	c.jobs = nil
	c.mu.Unlock()
	w := &changefeed.Worker{F: f}
	for _, a := range jobs {
		if err := w.Work(context.Background(), &river.Job[changefeed.CountArgs]{Args: a}); err != nil {
			t.Fatal(err)
		}
	}
}

type fixture struct {
	st    *store.Store
	feed  *changefeed.Feed
	count *counter
	owner *ent.User
	other *ent.User
}

func newFixture(t *testing.T, st *store.Store) *fixture {
	ctx := context.Background()
	c := st.Client
	f := &fixture{st: st, count: &counter{}}
	f.feed = changefeed.Install(st, f.count, nil)
	f.owner = c.User.Create().SetEmail("owner@example.com").SetPasswordHash("x").SetFirstName("O").SetLastName("W").SaveX(ctx)
	f.other = c.User.Create().SetEmail("other@example.com").SetPasswordHash("x").SetFirstName("O").SetLastName("T").SaveX(ctx)
	return f
}

// tx runs fn in a transaction of the store, as every API write does.
func (f *fixture) tx(t *testing.T, fn func(ctx context.Context, c *ent.Client) error) {
	t.Helper()
	err := f.st.InTx(context.Background(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return fn(ctx, c) })
	if err != nil {
		t.Fatal(err)
	}
}

// layer creates a vector layer with a draft and grants as the API does:
// its creator administers it, everyone views it when public.
func (f *fixture) layer(t *testing.T, name string, public bool) (*ent.Layer, *ent.LayerVersion) {
	var l *ent.Layer
	var v *ent.LayerVersion
	f.tx(t, func(ctx context.Context, c *ent.Client) (err error) {
		l = c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(f.owner.ID).SaveX(ctx)
		v = f.draft(ctx, c, l, "id")
		if public {
			return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, f.owner.ID)
		}
		return access.GrantCreator(ctx, c, access.KindLayer, l.ID, f.owner.ID)
	})
	return l, v
}

func (f *fixture) draft(ctx context.Context, c *ent.Client, l *ent.Layer, fields ...string) *ent.LayerVersion {
	fs := []schematype.Field{{Name: "geom", Type: "geometry"}}
	for _, n := range fields {
		fs = append(fs, schematype.Field{Name: n, Type: "integer"})
	}
	return c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(f.owner.ID).SetDatasourceIds([]int{}).
		SetStatus(layerversion.StatusOk).SetGeometryType("point").SetCrs("EPSG:4326").SetFields(fs).SaveX(ctx)
}

// publish publishes v as the publish job does: the version's state and
// the layer's published version in one transaction.
func (f *fixture) publish(t *testing.T, l *ent.Layer, v *ent.LayerVersion) {
	f.tx(t, func(ctx context.Context, c *ent.Client) error {
		now := time.Now().UTC()
		c.LayerVersion.Update().Where(layerversion.LayerID(l.ID), layerversion.StateEQ(layerversion.StatePublished)).
			SetState(layerversion.StateSuperseded).ExecX(ctx)
		c.LayerVersion.UpdateOneID(v.ID).SetState(layerversion.StatePublished).SetPublishedAt(now).ExecX(ctx)
		return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).Exec(ctx)
	})
}

func (f *fixture) list(t *testing.T, v *access.Viewer, q changefeed.Query) changefeed.Page {
	t.Helper()
	p, err := changefeed.List(context.Background(), f.st.Client, v, q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func types(es []changefeed.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var anonymous = &access.Viewer{}

// Issue 26: "an ordered, resumable feed of events (published, new version
// with its diff counts, schema changed, permission changed, ... deleted)".
func TestFeedRecordsWhatHappened(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		ctx := context.Background()
		l, v1 := f.layer(t, "Parcels", true)
		if p := f.list(t, anonymous, changefeed.Query{}); len(p.Events) != 0 {
			t.Fatalf("a dataset never published has events: %v", types(p.Events))
		}
		f.publish(t, l, v1)
		var v2 *ent.LayerVersion
		f.tx(t, func(ctx context.Context, c *ent.Client) error { v2 = f.draft(ctx, c, l, "id", "area"); return nil })
		f.publish(t, l, v2)
		if len(f.count.jobs) != 1 {
			t.Fatalf("publishing a vector layer's second version enqueued %d counting jobs, want 1", len(f.count.jobs))
		}
		f.count.run(t, f.feed)
		f.tx(t, func(ctx context.Context, c *ent.Client) error {
			_, err := c.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindLayer),
				datasetpermission.DatasetID(l.ID), datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).Exec(ctx)
			return err
		})

		admin := &access.Viewer{SiteAdmin: true}
		all := f.list(t, admin, changefeed.Query{})
		want := []string{changefeed.Published, changefeed.NewVersion, changefeed.SchemaChanged, changefeed.PermissionsChanged}
		if !same(types(all.Events), want) {
			t.Fatalf("events %v, want %v", types(all.Events), want)
		}
		nv := all.Events[1]
		if *nv.VersionID != v2.ID || *nv.PreviousVersionID != v1.ID || nv.Title != "Parcels" || nv.DatasetType != "layer" {
			t.Errorf("new version event %+v", nv)
		}
		counts, _ := nv.Detail["counts"].(map[string]any)
		if counts == nil || counts["inserts"] != float64(0) || nv.Detail["matched_by"] == nil {
			t.Errorf("new version detail %v: want counts of an empty diff and what it matched by", nv.Detail)
		}
		schema, _ := all.Events[2].Detail["schema"].(map[string]any)
		if added, _ := schema["fields_added"].([]any); len(added) != 1 {
			t.Errorf("schema change %v: want the area field added", all.Events[2].Detail)
		}

		// The grant to everyone is gone: anonymous callers see nothing of
		// the layer now, not even its history; its owner sees it all.
		if p := f.list(t, anonymous, changefeed.Query{}); len(p.Events) != 0 {
			t.Errorf("anonymous sees %v of a layer no longer public", types(p.Events))
		} else if p.Next != all.Next {
			t.Errorf("anonymous cursor %d, want %d: the events passed over need not be read again", p.Next, all.Next)
		}
		owner, err := access.NewViewer(ctx, st.Client, principal(f.owner))
		if err != nil {
			t.Fatal(err)
		}
		if p := f.list(t, owner, changefeed.Query{}); !same(types(p.Events), want) {
			t.Errorf("owner sees %v, want %v", types(p.Events), want)
		}

		// Resuming after the second event gives the rest, and one page
		// of one event moves the cursor by one.
		rest := f.list(t, admin, changefeed.Query{After: all.Events[1].ID})
		if !same(types(rest.Events), want[2:]) {
			t.Errorf("after the second event: %v", types(rest.Events))
		}
		one := f.list(t, admin, changefeed.Query{Limit: 1})
		if len(one.Events) != 1 || one.Next != one.Events[0].ID {
			t.Errorf("a page of one: %v, next %d", types(one.Events), one.Next)
		}
		if p := f.list(t, admin, changefeed.Query{Types: []string{changefeed.SchemaChanged}}); !same(types(p.Events), want[2:3]) {
			t.Errorf("schema changes only: %v", types(p.Events))
		}
	})
}

// A deleted dataset's grants are gone with it: whether its deletion and
// history stay visible is what everyone could see when it was deleted.
func TestDeletionsShowWhatWasPublic(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		pub, v := f.layer(t, "Public roads", true)
		f.publish(t, pub, v)
		priv, w := f.layer(t, "Private wells", false)
		f.publish(t, priv, w)
		for _, l := range []*ent.Layer{pub, priv} {
			f.tx(t, func(ctx context.Context, c *ent.Client) error {
				if err := access.DeleteGrants(ctx, c, access.KindLayer, l.ID); err != nil {
					return err
				}
				c.LayerVersion.Delete().Where(layerversion.LayerID(l.ID)).ExecX(ctx)
				return c.Layer.DeleteOneID(l.ID).Exec(ctx)
			})
		}
		got := f.list(t, anonymous, changefeed.Query{})
		if !same(types(got.Events), []string{changefeed.Published, changefeed.Deleted}) {
			t.Fatalf("anonymous sees %v", types(got.Events))
		}
		if d := got.Events[1]; d.Dataset.ID != pub.ID || !d.Public || d.Title != "Public roads" || *d.VersionID != v.ID {
			t.Errorf("deletion %+v", d)
		}
		all := f.list(t, &access.Viewer{SiteAdmin: true}, changefeed.Query{})
		if len(all.Events) != 4 {
			t.Errorf("site administrators see %v, want every event", types(all.Events))
		}
	})
}

// Events commit and roll back with the change they record.
func TestRolledBackChangesLeaveNoEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		l, v := f.layer(t, "Parcels", true)
		boom := errors.New("boom")
		err := st.InTx(context.Background(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			c.LayerVersion.UpdateOneID(v.ID).SetState(layerversion.StatePublished).ExecX(ctx)
			c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).ExecX(ctx)
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if p := f.list(t, &access.Viewer{SiteAdmin: true}, changefeed.Query{}); len(p.Events) != 0 {
			t.Fatalf("a rolled back publish left %v", types(p.Events))
		}
	})
}

// A follower gets the events after its cursor, then new ones as they
// commit.
func TestFollowDeliversNewEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		a, va := f.layer(t, "A", true)
		f.publish(t, a, va)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch := f.feed.Follow(ctx, func(context.Context) (*access.Viewer, error) { return anonymous, nil }, changefeed.Query{})
		if e := <-ch; e.Type != changefeed.Published || e.Dataset.ID != a.ID {
			t.Fatalf("first event %+v", e)
		}
		b, vb := f.layer(t, "B", true)
		f.publish(t, b, vb)
		select {
		case e := <-ch:
			if e.Dataset.ID != b.ID {
				t.Fatalf("followed event %+v", e)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the new event did not arrive")
		}
	})
}

func principal(u *ent.User) auth.Principal { return auth.Principal{Method: auth.SessionAuth, User: u} }
