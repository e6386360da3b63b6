package follows_test

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetfollow"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/follows"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/jobs/jobstest"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

type fixture struct {
	st    *store.Store
	svc   *follows.Service
	owner *ent.User
}

// newFixture runs the feed, the job system and the follows of a store.
func newFixture(t *testing.T, st *store.Store) *fixture {
	j := jobstest.New(t, st)
	feed := changefeed.Install(st, j, nil)
	svc := &follows.Service{Store: st, Jobs: j, Notify: notify.New(st, nil),
		API: "https://geopub.example/services/api/v1.x/", Site: "https://geopub.example/"}
	svc.Install(feed)
	if err := jobs.Register(j, &changefeed.Worker{F: feed}); err != nil {
		t.Fatal(err)
	}
	if err := jobs.Register(j, &follows.Worker{S: svc}); err != nil {
		t.Fatal(err)
	}
	jobstest.Start(t, j)
	return &fixture{st: st, svc: svc, owner: newUser(t, st, "owner")}
}

func newUser(t *testing.T, st *store.Store, name string) *ent.User {
	return st.Client.User.Create().SetEmail(name + "@example.com").SetPasswordHash("x").SetFirstName(name).SetLastName("U").
		SaveX(context.Background())
}

func viewer(t *testing.T, st *store.Store, u *ent.User) *access.Viewer {
	v, err := access.NewViewer(context.Background(), st.Client, auth.Principal{Method: auth.SessionAuth, User: u})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// publishLayer creates and publishes a public raster layer in one
// transaction, as the publish job does.
func (f *fixture) publishLayer(t *testing.T, name string) *ent.Layer {
	var l *ent.Layer
	err := f.st.InTx(context.Background(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		l = c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindRaster).SetName(name).SetUserID(f.owner.ID).SaveX(ctx)
		if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, f.owner.ID); err != nil {
			return err
		}
		return f.newVersion(ctx, c, l)
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// newVersion publishes a new version of l through c.
func (f *fixture) newVersion(ctx context.Context, c *ent.Client, l *ent.Layer) error {
	v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(f.owner.ID).SetDatasourceIds([]int{}).
		SetStatus(layerversion.StatusOk).SetState(layerversion.StatePublished).SetFields([]schematype.Field{}).SaveX(ctx)
	return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).SetPublishedAt(time.Now()).Exec(ctx)
}

func (f *fixture) star(t *testing.T, u *ent.User, l *ent.Layer) {
	err := f.st.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		return search.NewStars(f.st.DB, f.st.Dialect).Star(ctx, tx, u.ID, search.TypeLayer, l.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) follow(t *testing.T, u *ent.User, l *ent.Layer, on bool) {
	t.Helper()
	if err := f.svc.Set(context.Background(), viewer(t, f.st, u), u.ID, follows.Dataset{Type: "layer", ID: l.ID}, on); err != nil {
		t.Fatal(err)
	}
}

// kinds are the kinds of u's notifications, oldest first.
func (f *fixture) kinds(u *ent.User) []string {
	ns := f.st.Client.Notification.Query().Where(notification.UserID(u.ID)).Order(ent.Asc(notification.FieldID)).
		AllX(context.Background())
	out := []string{}
	for _, n := range ns {
		out = append(out, n.Kind)
	}
	return out
}

// waitJobs waits until no counting or notifying job is left to run.
func (f *fixture) waitJobs(t *testing.T) {
	t.Helper()
	const q = "SELECT count(*) FROM river_job WHERE kind IN ('follow_notify', 'changefeed_count') " +
		"AND state NOT IN ('completed', 'discarded', 'cancelled')"
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := f.st.DB.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notification jobs still to run", n)
		}
	}
}

// Issue 26.6: "follow a dataset (star or explicit follow) to get its
// events in the notification stream". A star follows, an explicit follow
// follows, an unfollow silences a star; the notification is the event as
// the API renders it; List says what each follows and by what.
func TestFollowersGetTheEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		ctx := context.Background()
		l := f.publishLayer(t, "Parcels")
		fan, follower, muted, bystander := newUser(t, st, "fan"), newUser(t, st, "follower"), newUser(t, st, "muted"), newUser(t, st, "bystander")
		f.star(t, fan, l)
		f.follow(t, follower, l, true)
		f.follow(t, follower, l, true) // idempotent
		f.star(t, muted, l)
		f.follow(t, muted, l, false)

		if err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return f.newVersion(ctx, c, l) }); err != nil {
			t.Fatal(err)
		}
		f.waitJobs(t)
		for _, c := range []struct {
			u    *ent.User
			want []string
		}{{fan, []string{"dataset.new_version"}}, {follower, []string{"dataset.new_version"}}, {muted, []string{}},
			{bystander, []string{}}, {f.owner, []string{}}} {
			if got := f.kinds(c.u); !slices.Equal(got, c.want) {
				t.Errorf("%s's notifications: %v, want %v", c.u.FirstName, got, c.want)
			}
		}
		n := st.Client.Notification.Query().Where(notification.UserID(follower.ID)).OnlyX(ctx)
		ds, _ := n.Payload["dataset"].(map[string]any)
		if ds["url"] != "https://geopub.example/services/api/v1.x/layers/"+strconv.Itoa(l.ID)+"/" || ds["title"] != "Parcels" ||
			n.Payload["type"] != "dataset.new_version" || n.Payload["previous_version"] == nil {
			t.Fatalf("payload %v", n.Payload)
		}

		for _, c := range []struct {
			u   *ent.User
			via string
		}{{fan, "star"}, {follower, "follow"}, {muted, ""}, {bystander, ""}} {
			got, err := f.svc.List(ctx, viewer(t, st, c.u), c.u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if c.via == "" && len(got) != 0 || c.via != "" && (len(got) != 1 || got[0].Via != c.via ||
				got[0].Dataset != (follows.Dataset{Type: "layer", ID: l.ID}) || got[0].Title != "Parcels") {
				t.Errorf("%s follows %+v, want one by %q", c.u.FirstName, got, c.via)
			}
		}
	})
}

// No notification reveals what its follower may no longer see: after
// the dataset stops being public, a follower without a grant hears
// nothing, not even of the change of permissions; one who may not see a
// dataset cannot follow it (NotFound, as for a missing one); a deletion
// reaches the followers of a public dataset and ends its follows.
func TestFollowersSeeOnlyWhatTheyMay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		ctx := context.Background()
		l := f.publishLayer(t, "Parcels")
		follower := newUser(t, st, "follower")
		f.follow(t, follower, l, true)
		st.Client.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindLayer), datasetpermission.DatasetID(l.ID),
			datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(ctx)
		if err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return f.newVersion(ctx, c, l) }); err != nil {
			t.Fatal(err)
		}
		f.waitJobs(t)
		if got := f.kinds(follower); len(got) != 0 {
			t.Fatalf("a follower who may no longer see the layer was told %v", got)
		}
		err := f.svc.Set(ctx, viewer(t, st, follower), follower.ID, follows.Dataset{Type: "layer", ID: l.ID}, true)
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("following a dataset one may not see: %v", err)
		}

		pub := f.publishLayer(t, "Roads")
		f.follow(t, follower, pub, true)
		if err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			if err := access.DeleteGrants(ctx, c, access.KindLayer, pub.ID); err != nil {
				return err
			}
			if _, err := c.LayerVersion.Delete().Where(layerversion.LayerID(pub.ID)).Exec(ctx); err != nil {
				return err
			}
			return c.Layer.DeleteOneID(pub.ID).Exec(ctx)
		}); err != nil {
			t.Fatal(err)
		}
		f.waitJobs(t)
		if got := f.kinds(follower); !slices.Equal(got, []string{"dataset.deleted"}) {
			t.Fatalf("the follower of a deleted public layer was told %v", got)
		}
		if n := st.Client.DatasetFollow.Query().Where(datasetfollow.DatasetID(pub.ID)).CountX(ctx); n != 0 {
			t.Fatalf("%d follows of the deleted layer remain", n)
		}
	})
}
