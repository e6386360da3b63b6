package notify_test

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newUser(t *testing.T, st *store.Store, name string) *ent.User {
	t.Helper()
	u, err := users.Create(t.Context(), st.Client, users.New{
		Email: name + "@example.com", Password: "correct horse battery",
		FirstName: name, LastName: "Tester", Country: "NZ",
	})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func startHub(t *testing.T, st *store.Store) *notify.Hub {
	t.Helper()
	h := notify.New(st, quiet)
	h.Start(context.Background())
	t.Cleanup(h.Stop)
	return h
}

func publish(t *testing.T, h *notify.Hub, st *store.Store, userID int, kind string) *ent.Notification {
	t.Helper()
	n, err := h.Publish(t.Context(), st.Client, userID, kind, map[string]any{"k": kind})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// receive reads want notifications and checks their kinds, in order.
func receive(t *testing.T, ch <-chan *ent.Notification, kinds ...string) []*ent.Notification {
	t.Helper()
	var got []*ent.Notification
	timeout := time.After(5 * time.Second)
	for _, k := range kinds {
		select {
		case n, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed after %d notifications", len(got))
			}
			if n.Kind != k {
				t.Fatalf("notification %d: kind %q, want %q", len(got), n.Kind, k)
			}
			if len(got) > 0 && n.ID <= got[len(got)-1].ID {
				t.Fatalf("ids out of order: %d after %d", n.ID, got[len(got)-1].ID)
			}
			got = append(got, n)
		case <-timeout:
			t.Fatalf("timed out waiting for %q after %d notifications", k, len(got))
		}
	}
	return got
}

// quietFor checks that nothing arrives for d.
func quietFor(t *testing.T, ch <-chan *ent.Notification, d time.Duration) {
	t.Helper()
	select {
	case n := <-ch:
		t.Fatalf("unexpected notification %d %q", n.ID, n.Kind)
	case <-time.After(d):
	}
}

func TestBacklogThenLive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := startHub(t, st)
		alice, bob := newUser(t, st, "alice"), newUser(t, st, "bob")
		publish(t, h, st, alice.ID, "a1")
		publish(t, h, st, bob.ID, "b1")
		publish(t, h, st, alice.ID, "a2")
		ctx, cancel := context.WithCancel(t.Context())
		ch := h.Subscribe(ctx, alice.ID, 0)
		receive(t, ch, "a1", "a2")
		start := time.Now()
		publish(t, h, st, bob.ID, "b2")
		publish(t, h, st, alice.ID, "a3")
		receive(t, ch, "a3")
		t.Logf("live delivery in %v", time.Since(start))
		quietFor(t, ch, 100*time.Millisecond)
		cancel()
		select {
		case _, ok := <-ch:
			if ok {
				t.Fatal("notification after cancel")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("channel not closed after cancel")
		}
	})
}

func TestResumeAfterCursor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := startHub(t, st)
		u := newUser(t, st, "carol")
		var ns []*ent.Notification
		for i := range 5 {
			ns = append(ns, publish(t, h, st, u.ID, fmt.Sprint("n", i)))
		}
		ch := h.Subscribe(t.Context(), u.ID, int64(ns[2].ID))
		receive(t, ch, "n3", "n4")
		publish(t, h, st, u.ID, "n5")
		receive(t, ch, "n5")
		// At the newest id: only what comes next.
		ch = h.Subscribe(t.Context(), u.ID, int64(ns[4].ID)+1000)
		quietFor(t, ch, 100*time.Millisecond)
	})
}

// TestAcrossProcesses runs two Hubs on two Stores opened on the same
// database, as two replicas would.
func TestAcrossProcesses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		other, err := store.Open(t.Context(), store.Config{DatabaseURL: st.URL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { other.Close() })
		h1, h2 := startHub(t, st), startHub(t, other)
		u := newUser(t, st, "dave")
		ch1 := h1.Subscribe(t.Context(), u.ID, 0)
		ch2 := h2.Subscribe(t.Context(), u.ID, 0)
		time.Sleep(50 * time.Millisecond) // both listening, so this is live delivery
		start := time.Now()
		publish(t, h2, other, u.ID, "from2")
		receive(t, ch1, "from2")
		t.Logf("from process 2 to 1 in %v", time.Since(start))
		start = time.Now()
		publish(t, h1, st, u.ID, "from1")
		receive(t, ch2, "from2", "from1")
		t.Logf("from process 1 to 2 in %v", time.Since(start))
		receive(t, ch1, "from1")
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Fatalf("cross-process delivery took %v", d)
		}
	})
}

func TestRolledBackDeliversNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := startHub(t, st)
		u := newUser(t, st, "erin")
		ch := h.Subscribe(t.Context(), u.ID, 0)
		boom := errors.New("boom")
		err := st.InTx(t.Context(), func(ctx context.Context, c *ent.Client, _ *stdsql.Tx) error {
			if _, err := h.Publish(ctx, c, u.ID, "rolled.back", nil); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v", err)
		}
		quietFor(t, ch, 700*time.Millisecond)
		err = st.InTx(t.Context(), func(ctx context.Context, c *ent.Client, _ *stdsql.Tx) error {
			_, err := h.Publish(ctx, c, u.ID, "committed", nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		receive(t, ch, "committed")
		// ent.Tx clients work too.
		tx, err := st.Client.Tx(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Publish(t.Context(), tx.Client(), u.ID, "ent.tx", nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		receive(t, ch, "ent.tx")
	})
}

// TestSlowSubscriber: one subscriber reads nothing while many rows are
// published; another keeps up meanwhile, and the slow one still gets every
// row in order once it reads.
func TestSlowSubscriber(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := startHub(t, st)
		u := newUser(t, st, "frank")
		slow := h.Subscribe(t.Context(), u.ID, 0)
		fast := h.Subscribe(t.Context(), u.ID, 0)
		const n = 250
		kinds := make([]string, n)
		done := make(chan []*ent.Notification)
		for i := range kinds {
			kinds[i] = fmt.Sprint("k", i)
		}
		go func() {
			var got []*ent.Notification
			for n := range fast {
				got = append(got, n)
				if len(got) == len(kinds) {
					break
				}
			}
			done <- got
		}()
		for _, k := range kinds {
			publish(t, h, st, u.ID, k)
		}
		select {
		case got := <-done:
			for i, n := range got {
				if n.Kind != kinds[i] {
					t.Fatalf("fast subscriber: %d is %q", i, n.Kind)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatal("fast subscriber blocked")
		}
		receive(t, slow, kinds...)
		quietFor(t, slow, 100*time.Millisecond)
	})
}
