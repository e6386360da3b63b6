package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// A pool keeps the connections it opened: with more queries in flight
// than database/sql's default of 2 idle connections, each finished query
// used to close its connection and the next to open one (on PostgreSQL
// a new backend and cold caches per statement: the GraphQL read matrix
// took 280 s there instead of 22).
func TestPoolKeepsItsConnections(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					if _, err := s.Client.Group.Query().Count(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		st := s.DB.Stats()
		if st.MaxIdleClosed > 0 {
			t.Fatalf("the pool closed %d connections for want of idle room (open %d): every query past the idle limit reconnects", st.MaxIdleClosed, st.OpenConnections)
		}
	})
}
