package featureindex_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

// versionOf stores a version of n points with attributes b then a (the
// version's field order is a, b) and returns its id.
func versionOf(t *testing.T, st *store.Store, name string, n int) int {
	t.Helper()
	ctx := context.Background()
	u, err := users.Create(ctx, st.Client, users.New{Email: name + "@example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	l := st.Client.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(u.ID).SaveX(ctx)
	v := st.Client.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(u.ID).SetDatasourceIds([]int{}).
		SetFields([]schematype.Field{{Name: "geom", Type: "geometry"}, {Name: "a", Type: "string"}, {Name: "b", Type: "integer"}}).
		SaveX(ctx)
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, v.ID)
		if err != nil {
			return err
		}
		for i := range n {
			g, _ := wkb.Marshal(geom.NewPointFlat(geom.XY, []float64{170 + float64(i)/1000, -40}), binary.LittleEndian)
			if err := w.Write(featurerows.Row{FID: int64(i + 1), Geom: g, Attrs: map[string]any{"b": int64(i), "a": fmt.Sprint("p", i)}}); err != nil {
				return err
			}
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
	}
}

// Get builds an index once and waits for it; Resident never waits: it
// answers nil and starts the build in the background, then answers the
// built index. Attributes are rendered in the version's field order.
func TestCacheGetAndResident(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := versionOf(t, st, "alpha", 300), versionOf(t, st, "beta", 200)
		c := featureindex.NewCache(st, 1<<30, nil)
		defer c.Close()

		ix, err := c.Get(ctx, a)
		if err != nil || ix.Len() != 300 {
			t.Fatalf("Get: %v, %v", ix, err)
		}
		if again, _ := c.Get(ctx, a); again != ix {
			t.Fatal("a second Get built the index again")
		}
		if c.Resident(a) != ix {
			t.Fatal("Resident does not answer the index Get built")
		}
		if got := string(ix.Attrs(0)); got[:5] != `{"a":` {
			t.Fatalf("attributes %s are not in the version's field order (a, b)", got)
		}

		if c.Resident(b) != nil {
			t.Fatal("Resident answered an index not yet built")
		}
		eventually(t, "the background build of beta", func() bool { return c.Resident(b) != nil })
		if c.Resident(b).Len() != 200 || c.Used() <= ix.Bytes() {
			t.Fatalf("beta: %d features, %d bytes used", c.Resident(b).Len(), c.Used())
		}
	})
}

// Beyond the budget the least recently used index is dropped (the newest
// is kept); a version that fails to build is not retried by Resident at
// every request.
func TestCacheBudgetAndFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := versionOf(t, st, "alpha", 300), versionOf(t, st, "beta", 300)
		first, err := featureindex.NewCache(st, 1<<30, nil).Get(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		var log lockedBuffer
		c := featureindex.NewCache(st, first.Bytes()+first.Bytes()/2, slog.New(slog.NewTextHandler(&log, nil)))
		defer c.Close()
		if _, err := c.Get(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, b); err != nil {
			t.Fatal(err)
		}
		if c.Used() > c.Budget() {
			t.Fatalf("%d bytes used over a budget of %d", c.Used(), c.Budget())
		}
		if c.Resident(b) == nil {
			t.Fatal("the newest index was dropped")
		}
		// Dropped for the budget: not rebuilt at once (the two do not fit
		// together), but after the retry interval.
		if c.Resident(a) != nil {
			t.Fatal("alpha is resident beside beta beyond the budget")
		}
		time.Sleep(50 * time.Millisecond)
		if c.Resident(a) != nil || c.Resident(b) == nil {
			t.Fatal("alpha was rebuilt at once after it was dropped for the budget")
		}
		defer featureindex.SetRetryAfter(time.Millisecond)()
		time.Sleep(5 * time.Millisecond)
		eventually(t, "alpha rebuilt in the background after the retry interval", func() bool { return c.Resident(a) != nil })

		const missing = 1 << 30
		if _, err := c.Get(ctx, missing); err == nil {
			t.Fatal("an index of a version that does not exist")
		}
		if c.Resident(missing) != nil {
			t.Fatal("Resident answered a version that failed")
		}
		time.Sleep(50 * time.Millisecond)
		if c.Resident(missing) != nil {
			t.Fatal("Resident answered a version that failed")
		}
		if n := strings.Count(log.String(), "building a feature index"); n != 1 {
			t.Fatalf("%d failed builds logged, want 1 (Resident must not retry at once):\n%s", n, log.String())
		}
	})
}

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
