package webhooks_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/jobs/jobstest"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/webhooks"
	"github.com/geopub/geopub/internal/webhooks/webhooktest"
)

type fixture struct {
	st    *store.Store
	svc   *webhooks.Service
	owner *ent.User
	other *ent.User
}

// newFixture runs the feed, the job system and the webhooks of a store,
// the endpoints on loopback allowed, retrying every 50 ms.
func newFixture(t *testing.T, st *store.Store) *fixture {
	ctx := context.Background()
	j := jobstest.New(t, st)
	key := make([]byte, 32)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	feed := changefeed.Install(st, j, nil)
	svc := &webhooks.Service{Store: st, Jobs: j, Secrets: box, Notify: notify.New(st, nil),
		Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
		API:   "https://geopub.example/services/api/v1.x/", Site: "https://geopub.example/",
		Delays: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}}
	svc.Install(feed)
	if err := jobs.Register(j, &changefeed.Worker{F: feed}); err != nil {
		t.Fatal(err)
	}
	if err := jobs.Register(j, &webhooks.Worker{S: svc}); err != nil {
		t.Fatal(err)
	}
	jobstest.Start(t, j)
	c := st.Client
	f := &fixture{st: st, svc: svc}
	f.owner = c.User.Create().SetEmail("owner@example.com").SetPasswordHash("x").SetFirstName("O").SetLastName("W").SaveX(ctx)
	f.other = c.User.Create().SetEmail("other@example.com").SetPasswordHash("x").SetFirstName("O").SetLastName("T").SaveX(ctx)
	return f
}

// publishLayer creates and publishes a public layer (as the publish job
// does, in one transaction) and returns it.
func (f *fixture) publishLayer(t *testing.T, name string) *ent.Layer {
	var l *ent.Layer
	err := f.st.InTx(context.Background(), func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		l = c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindRaster).SetName(name).SetUserID(f.owner.ID).SaveX(ctx)
		if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, f.owner.ID); err != nil {
			return err
		}
		v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(f.owner.ID).SetDatasourceIds([]int{}).
			SetStatus(layerversion.StatusOk).SetState(layerversion.StatePublished).SetFields([]schematype.Field{}).SaveX(ctx)
		return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).SetPublishedAt(time.Now()).Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (f *fixture) endpoint(t *testing.T, u *ent.User, r *webhooktest.Receiver) (*ent.WebhookEndpoint, string) {
	t.Helper()
	ep, secret, err := f.svc.Create(context.Background(), webhooks.Owner{UserID: u.ID}, webhooks.Input{URL: r.URL})
	if err != nil {
		t.Fatal(err)
	}
	return ep, secret
}

// waitDelivery waits for the endpoint's deliveries to leave pending and
// returns the first.
func (f *fixture) waitDelivery(t *testing.T, ep *ent.WebhookEndpoint) *ent.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds := f.st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).
			Order(ent.Asc(webhookdelivery.FieldID)).AllX(context.Background())
		pending := false
		for _, d := range ds {
			pending = pending || d.Status == webhookdelivery.StatusPending
		}
		if len(ds) > 0 && !pending {
			return ds[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries of endpoint %d: %+v", ep.ID, ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 26.5: "every signature verifies with the standardwebhooks npm
// package (the reference implementation)", and a rotated secret signs
// beside the new one during the overlap.
func TestMessagesVerifyWithTheReferenceImplementation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		r := webhooktest.NewReceiver(t, func(_ int, _ *http.Request) int { return http.StatusNoContent })
		ep, secret := f.endpoint(t, f.owner, r)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q", secret)
		}
		f.publishLayer(t, "Parcels")
		d := f.waitDelivery(t, ep)
		if d.Status != webhookdelivery.StatusDelivered || d.Attempts != 1 || d.ResponseStatus == nil || *d.ResponseStatus != 204 {
			t.Fatalf("delivery %+v", d)
		}
		ms := r.Messages()
		if got := webhooktest.Verify(t, secret, ms); len(got) != 1 || got[0] != "ok dataset.published" {
			t.Fatalf("reference verifier: %v", got)
		}
		var p webhooks.Payload
		if err := json.Unmarshal(ms[0].Body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Data.Dataset.Title != "Parcels" || !strings.HasPrefix(p.Data.Dataset.URL, "https://geopub.example/services/api/v1.x/layers/") ||
			ms[0].Header.Get("webhook-id") != d.MessageID {
			t.Fatalf("payload %+v, headers %v", p, ms[0].Header)
		}
		// A wrong secret fails.
		if got := webhooktest.Verify(t, webhooks.NewSecret(), ms); !strings.HasPrefix(got[0], "bad ") {
			t.Fatalf("a wrong secret verified: %v", got)
		}

		// Rotation: the next message is signed by both secrets.
		_, rotated, err := f.svc.Rotate(context.Background(), webhooks.Manager{UserID: f.owner.ID}, ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.st.Client.WebhookDelivery.Delete().ExecX(context.Background())
		f.publishLayer(t, "Roads")
		f.waitDelivery(t, ep)
		ms = r.Messages()[1:]
		if n := len(strings.Fields(ms[0].Header.Get("webhook-signature"))); n != 2 {
			t.Fatalf("after a rotation: %d signatures, want 2", n)
		}
		for _, s := range []string{rotated, secret} {
			if got := webhooktest.Verify(t, s, ms); got[0] != "ok dataset.published" {
				t.Fatalf("after a rotation, secret %s…: %v", s[:10], got)
			}
		}
	})
}

// Issue 26.5: "a receiver that answers 500 for its first 3 attempts gets
// the event on the 4th with the same webhook-id".
func TestFailedAttemptsRetryWithTheSameID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		r := webhooktest.NewReceiver(t, func(n int, _ *http.Request) int {
			if n <= 3 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		ep, _ := f.endpoint(t, f.owner, r)
		f.publishLayer(t, "Parcels")
		d := f.waitDelivery(t, ep)
		ms := r.Messages()
		if d.Status != webhookdelivery.StatusDelivered || d.Attempts != 4 || len(ms) != 4 {
			t.Fatalf("delivery %+v after %d requests", d, len(ms))
		}
		for _, m := range ms {
			if m.Header.Get("webhook-id") != d.MessageID {
				t.Fatalf("attempt with webhook-id %q, want %q every time", m.Header.Get("webhook-id"), d.MessageID)
			}
		}
	})
}

// Issue 26.5: "a permission revoked between the event and its delivery
// suppresses the payload"; and an endpoint that keeps failing is
// disabled and its owner told.
func TestRevokedAccessSuppressesAndFailingEndpointsStop(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		ctx := context.Background()
		revoked := make(chan struct{})
		var l *ent.Layer
		r := webhooktest.NewReceiver(t, func(n int, _ *http.Request) int {
			if n == 1 {
				// Between the first attempt and the next: nobody but
				// its owner may see the layer any more.
				st.Client.DatasetPermission.Delete().Where(datasetpermission.DatasetID(l.ID),
					datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(ctx)
				close(revoked)
			}
			return http.StatusServiceUnavailable
		})
		ep, _ := f.endpoint(t, f.other, r)
		l = f.publishLayer(t, "Wells")
		d := f.waitDelivery(t, ep)
		<-revoked
		if d.Status != webhookdelivery.StatusSuppressed || len(r.Messages()) != 1 {
			t.Fatalf("delivery %+v after %d requests: want suppressed after the first", d, len(r.Messages()))
		}

		// Every attempt fails, for longer than DisableAfter: disabled.
		f.svc.DisableAfter = time.Nanosecond
		down := webhooktest.NewReceiver(t, func(_ int, _ *http.Request) int { return http.StatusBadGateway })
		ep2, _ := f.endpoint(t, f.owner, down)
		f.publishLayer(t, "Roads")
		d2 := f.waitDelivery(t, ep2)
		if d2.Status != webhookdelivery.StatusFailed || d2.Attempts != 5 || *d2.ResponseStatus != 502 {
			t.Fatalf("delivery %+v", d2)
		}
		ep2 = st.Client.WebhookEndpoint.GetX(ctx, ep2.ID)
		if ep2.Enabled || !strings.Contains(ep2.DisabledReason, "answered 502") {
			t.Fatalf("endpoint %+v: want it disabled, saying why", ep2)
		}
		if n := st.Client.Notification.Query().Where(notification.UserID(f.owner.ID), notification.Kind("webhook.disabled")).CountX(ctx); n != 1 {
			t.Fatalf("%d webhook.disabled notifications", n)
		}
	})
}

// Issue 26.5: "endpoint URLs on loopback/private addresses are refused"
// unless the operator allows them; and bad event types and datasets are
// field errors.
func TestEndpointsRefuseInternalAddresses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		key := make([]byte, 32)
		rand.Read(key)
		box, _ := secrets.New(key)
		svc := &webhooks.Service{Store: st, Secrets: box, Guard: &fetch.Guard{}}
		u := st.Client.User.Create().SetEmail("u@example.com").SetPasswordHash("x").SetFirstName("U").SetLastName("U").SaveX(context.Background())
		for _, c := range []struct {
			in    webhooks.Input
			field string
		}{
			{webhooks.Input{URL: "http://127.0.0.1:8080/hook"}, "url"},
			{webhooks.Input{URL: "http://[::1]/hook"}, "url"},
			{webhooks.Input{URL: "http://10.1.2.3/hook"}, "url"},
			{webhooks.Input{URL: "http://169.254.169.254/latest/meta-data/"}, "url"},
			{webhooks.Input{URL: "ftp://93.184.215.14/hook"}, "url"},
			{webhooks.Input{URL: "not a url"}, "url"},
			{webhooks.Input{URL: "https://93.184.215.14/hook", EventTypes: []string{"dataset.renamed"}}, "event_types"},
			{webhooks.Input{URL: "https://93.184.215.14/hook", Datasets: []string{"layer:x"}}, "datasets"},
		} {
			_, _, err := svc.Create(context.Background(), webhooks.Owner{UserID: u.ID}, c.in)
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), c.field) {
				t.Errorf("%+v: %v, want a field error on %s", c.in, err, c.field)
			}
		}
		if n := st.Client.WebhookEndpoint.Query().CountX(context.Background()); n != 0 {
			t.Fatalf("%d endpoints saved", n)
		}
	})
}

// When the process making a delivery's last attempt died, the orphan
// rescuer calls Abandon: the delivery fails as an attempt with no answer,
// once; a delivery no longer pending is left alone.
func TestAbandonFailsTheDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		// The attempt in flight is held open until the test ends (the
		// release runs before the receiver closes, which waits for it).
		release := make(chan struct{})
		r := webhooktest.NewReceiver(t, func(_ int, req *http.Request) int {
			select {
			case <-req.Context().Done():
			case <-release:
			}
			return http.StatusServiceUnavailable
		})
		t.Cleanup(func() { close(release) })
		ep, _ := f.endpoint(t, f.owner, r)
		arrived, _ := r.Arrived()
		f.publishLayer(t, "Parcels")
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("no attempt arrived")
		}
		ctx := context.Background()
		d := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).OnlyX(ctx)
		w := &webhooks.Worker{S: f.svc}
		job := &river.Job[webhooks.DeliverArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 8, MaxAttempts: 8},
			Args: webhooks.DeliverArgs{DeliveryID: d.ID}}
		for range 2 {
			if err := w.Abandon(ctx, job, "the process working attempt 8 (geopub-1-x) died"); err != nil {
				t.Fatal(err)
			}
		}
		d = st.Client.WebhookDelivery.GetX(ctx, d.ID)
		if d.Status != webhookdelivery.StatusFailed || d.Attempts != 1 || d.ResponseStatus != nil ||
			d.Error != "no answer: the process sending it stopped (the process working attempt 8 (geopub-1-x) died)" {
			t.Fatalf("abandoned delivery: %s, %d attempts, %v, %q", d.Status, d.Attempts, d.ResponseStatus, d.Error)
		}
		if ep = st.Client.WebhookEndpoint.GetX(ctx, ep.ID); ep.FailingSince == nil {
			t.Fatal("the endpoint's failing streak did not start")
		}
		if err := w.Abandon(ctx, &river.Job[webhooks.DeliverArgs]{JobRow: job.JobRow, Args: webhooks.DeliverArgs{DeliveryID: 99999}}, "gone"); err != nil {
			t.Fatalf("missing delivery: %v", err)
		}
	})
}
