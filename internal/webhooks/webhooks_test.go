package webhooks_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/webhooks"
)

// message is what the receiver got.
type message struct {
	header http.Header
	body   []byte
}

// receiver is a webhook endpoint on loopback: it records every request
// and answers with answer(n) for the n-th (from 1).
type receiver struct {
	mu     sync.Mutex
	got    []message
	answer func(n int) int
	srv    *httptest.Server
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	r := &receiver{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, message{header: req.Header.Clone(), body: b})
		n := len(r.got)
		r.mu.Unlock()
		w.WriteHeader(r.answer(n))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) messages() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message(nil), r.got...)
}

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
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	j, err := jobs.New(st, jobs.Config{FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
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
	if err := j.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Stop(context.Background()) })
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

func (f *fixture) endpoint(t *testing.T, u *ent.User, r *receiver) (*ent.WebhookEndpoint, string) {
	t.Helper()
	ep, secret, err := f.svc.Create(context.Background(), webhooks.Owner{UserID: u.ID}, webhooks.Input{URL: r.srv.URL + "/hooks"})
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

// verify checks messages with the standardwebhooks npm package, the
// specification's reference implementation, and returns its verdicts.
func verify(t *testing.T, secret string, ms []message) []string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("node is missing; the webhook tests verify with the standardwebhooks npm package")
		}
		t.Skip("node is missing")
	}
	root, _ := filepath.Abs("../..")
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "ensure-npm.sh"), "webhook-verifier").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-npm.sh webhook-verifier: %v", err)
	}
	var in strings.Builder
	for _, m := range ms {
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = m.header.Get(k)
		}
		b, _ := json.Marshal(map[string]any{"secret": secret, "headers": h, "body": string(m.body)})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", filepath.Join(root, "scripts", "webhook-verifier", "verify.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(strings.TrimSpace(string(out)), "node_modules"))
	cmd.Stdin = strings.NewReader(in.String())
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("verify.js: %v\n%s", err, res)
	}
	return strings.Split(strings.TrimSpace(string(res)), "\n")
}

// Issue 26.5: "every signature verifies with the standardwebhooks npm
// package (the reference implementation)", and a rotated secret signs
// beside the new one during the overlap.
func TestMessagesVerifyWithTheReferenceImplementation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		r := newReceiver(t, func(int) int { return http.StatusNoContent })
		ep, secret := f.endpoint(t, f.owner, r)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q", secret)
		}
		f.publishLayer(t, "Parcels")
		d := f.waitDelivery(t, ep)
		if d.Status != webhookdelivery.StatusDelivered || d.Attempts != 1 || d.ResponseStatus == nil || *d.ResponseStatus != 204 {
			t.Fatalf("delivery %+v", d)
		}
		ms := r.messages()
		if got := verify(t, secret, ms); len(got) != 1 || got[0] != "ok dataset.published" {
			t.Fatalf("reference verifier: %v", got)
		}
		var p webhooks.Payload
		if err := json.Unmarshal(ms[0].body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Data.Dataset.Title != "Parcels" || !strings.HasPrefix(p.Data.Dataset.URL, "https://geopub.example/services/api/v1.x/layers/") ||
			ms[0].header.Get("webhook-id") != d.MessageID {
			t.Fatalf("payload %+v, headers %v", p, ms[0].header)
		}
		// A wrong secret fails.
		if got := verify(t, webhooks.NewSecret(), ms); !strings.HasPrefix(got[0], "bad ") {
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
		ms = r.messages()[1:]
		if n := len(strings.Fields(ms[0].header.Get("webhook-signature"))); n != 2 {
			t.Fatalf("after a rotation: %d signatures, want 2", n)
		}
		for _, s := range []string{rotated, secret} {
			if got := verify(t, s, ms); got[0] != "ok dataset.published" {
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
		r := newReceiver(t, func(n int) int {
			if n <= 3 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		ep, _ := f.endpoint(t, f.owner, r)
		f.publishLayer(t, "Parcels")
		d := f.waitDelivery(t, ep)
		ms := r.messages()
		if d.Status != webhookdelivery.StatusDelivered || d.Attempts != 4 || len(ms) != 4 {
			t.Fatalf("delivery %+v after %d requests", d, len(ms))
		}
		for _, m := range ms {
			if m.header.Get("webhook-id") != d.MessageID {
				t.Fatalf("attempt with webhook-id %q, want %q every time", m.header.Get("webhook-id"), d.MessageID)
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
		r := newReceiver(t, func(n int) int {
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
		if d.Status != webhookdelivery.StatusSuppressed || len(r.messages()) != 1 {
			t.Fatalf("delivery %+v after %d requests: want suppressed after the first", d, len(r.messages()))
		}

		// Every attempt fails, for longer than DisableAfter: disabled.
		f.svc.DisableAfter = time.Nanosecond
		down := newReceiver(t, func(int) int { return http.StatusBadGateway })
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
