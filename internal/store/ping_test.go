package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 24, acceptance (bench/mixload): with 150 clients on PostgreSQL,
// /readyz answered 503 once: the readiness ping waited for a connection of
// the pool the load held, and a load balancer would have taken a working
// replica out for being busy. Readiness asks whether the database answers,
// so it pings on a connection of its own: with every pooled connection
// held, it still answers at once.
func TestPingAnswersWhileThePoolIsHeld(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var held []*sql.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			c, err := s.DB.Conn(cctx)
			cancel()
			if err != nil {
				break
			}
			held = append(held, c)
			if len(held) > 100 {
				t.Fatal("the pool has no limit")
			}
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		start := time.Now()
		if err := s.Ping(pctx); err != nil {
			t.Fatalf("ping with all %d pooled connections held: %v", len(held), err)
		}
		t.Logf("ping with all %d pooled connections held: %s", len(held), time.Since(start))
	})
}
