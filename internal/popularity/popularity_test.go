package popularity_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

func seed(t *testing.T, st *store.Store) (*ent.Layer, *ent.Set, *ent.Document) {
	t.Helper()
	ctx := t.Context()
	u, err := users.Create(ctx, st.Client, users.New{Email: "owner@example.com", Password: "a long enough password 1", FirstName: "O", LastName: "W"})
	if err != nil {
		t.Fatal(err)
	}
	c := st.Client
	l := c.Layer.Create().SetType(layer.TypeLayer).SetName("Roads").SetUserID(u.ID).SaveX(ctx)
	s := c.Set.Create().SetTitle("Transport").SetUserID(u.ID).SaveX(ctx)
	d := c.Document.Create().SetName("Report").SetUserID(u.ID).SaveX(ctx)
	return l, s, d
}

// A burst of 10,000 views of one dataset is one UPDATE at the next flush,
// and the counters then hold every view; downloads add alike, per kind,
// and a flush does not touch the dataset's updated_at.
func TestCountsAfterFlushAndBurstBatching(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := t.Context()
		l, s, d := seed(t, st)
		l = st.Client.Layer.GetX(ctx, l.ID) // updated_at as stored
		c := popularity.New(st, nil)
		var wg sync.WaitGroup
		for w := 0; w < 10; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 1000; i++ {
					c.View(popularity.Layer, l.ID)
				}
			}()
		}
		wg.Wait()
		c.Download(popularity.Layer, l.ID)
		c.View(popularity.Set, s.ID)
		c.View(popularity.Set, s.ID)
		c.Download(popularity.Document, d.ID)
		c.Download(popularity.Document, d.ID)
		c.Download(popularity.Document, d.ID)
		c.View(popularity.Kind("nope"), 1) // ignored
		c.View(popularity.Layer, 0)        // ignored
		if got := len(c.Pending()); got != 3 {
			t.Fatalf("pending %d datasets, want 3: %+v", got, c.Pending())
		}
		n, err := c.Flush(ctx)
		if err != nil || n != 3 {
			t.Fatalf("flush wrote %d datasets (%v), want 3 updates for 10,006 events", n, err)
		}
		if n, err := c.Flush(ctx); err != nil || n != 0 {
			t.Fatalf("an empty flush wrote %d (%v)", n, err)
		}
		gl := st.Client.Layer.GetX(ctx, l.ID)
		if gl.NumViews != 10000 || gl.NumDownloads != 1 {
			t.Fatalf("layer counters %d views %d downloads, want 10000 and 1", gl.NumViews, gl.NumDownloads)
		}
		if !gl.UpdatedAt.Equal(l.UpdatedAt) {
			t.Fatalf("flushing changed updated_at: %v -> %v", l.UpdatedAt, gl.UpdatedAt)
		}
		if gs := st.Client.Set.GetX(ctx, s.ID); gs.NumViews != 2 || gs.NumDownloads != 0 {
			t.Fatalf("set counters %+v", gs)
		}
		if gd := st.Client.Document.GetX(ctx, d.ID); gd.NumViews != 0 || gd.NumDownloads != 3 {
			t.Fatalf("document counters %+v", gd)
		}
		// Increments, not overwrites: a second batch adds.
		c.View(popularity.Layer, l.ID)
		if _, err := c.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		tot, err := popularity.Totals(ctx, st.DB, st.Dialect, popularity.Layer, []int{l.ID, 999999})
		if err != nil {
			t.Fatal(err)
		}
		if len(tot) != 1 || tot[l.ID] != popularity.Score(10001, 1) || tot[l.ID] != 10002 {
			t.Fatalf("totals %v, want {%d: 10002}", tot, l.ID)
		}
	})
}

// Start flushes periodically, Stop flushes what is left (a shutdown
// loses nothing), and AfterFlush runs in the flush's transaction with the
// changes; its failure keeps the counts for the next flush.
func TestPeriodicFlushStopAndAfterFlush(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := t.Context()
		l, _, _ := seed(t, st)
		c := popularity.New(st, nil)
		var mu sync.Mutex
		var seen []popularity.Change
		fail := true
		c.AfterFlush = func(_ context.Context, _ *sql.Tx, ch []popularity.Change) error {
			mu.Lock()
			defer mu.Unlock()
			if fail {
				fail = false
				return context.DeadlineExceeded
			}
			seen = append(seen, ch...)
			return nil
		}
		c.View(popularity.Layer, l.ID)
		if _, err := c.Flush(ctx); err == nil {
			t.Fatal("a failing AfterFlush did not fail the flush")
		}
		if got := st.Client.Layer.GetX(ctx, l.ID).NumViews; got != 0 {
			t.Fatalf("a failed flush wrote %d views", got)
		}
		c.Start(ctx, 20*time.Millisecond)
		deadline := time.Now().Add(10 * time.Second)
		for st.Client.Layer.GetX(ctx, l.ID).NumViews != 1 {
			if time.Now().After(deadline) {
				t.Fatal("the periodic flush did not write the kept view")
			}
			time.Sleep(10 * time.Millisecond)
		}
		c.Download(popularity.Layer, l.ID)
		c.Download(popularity.Layer, l.ID)
		if err := c.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if got := st.Client.Layer.GetX(ctx, l.ID); got.NumViews != 1 || got.NumDownloads != 2 {
			t.Fatalf("after Stop: %d views %d downloads", got.NumViews, got.NumDownloads)
		}
		mu.Lock()
		defer mu.Unlock()
		var views, downloads int64
		for _, ch := range seen {
			if ch.Kind != popularity.Layer || ch.ID != l.ID {
				t.Fatalf("AfterFlush saw %+v", ch)
			}
			views += ch.Views
			downloads += ch.Downloads
		}
		if views != 1 || downloads != 2 {
			t.Fatalf("AfterFlush saw %d views %d downloads", views, downloads)
		}
	})
}

// A nil counter counts nothing and never fails.
func TestNilCounter(t *testing.T) {
	var c *popularity.Counter
	c.View(popularity.Layer, 1)
	c.Download(popularity.Document, 1)
	if n, err := c.Flush(context.Background()); n != 0 || err != nil {
		t.Fatal(n, err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}
