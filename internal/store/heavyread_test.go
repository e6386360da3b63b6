package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Two diffs at once, each streaming two versions on two slots, share the
// two slots there are: one after the other, never each holding one and
// waiting for the other's until both are refused as busy.
func TestHeavyReadsTakeSeveralSlotsWithoutDeadlock(t *testing.T) {
	s := &Store{heavy: newHeavyReads(4)} // 2 slots
	ctx := context.Background()
	for round := range 20 {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for range 2 {
			wg.Go(func() {
				release, err := s.HeavyReads(ctx, 2)
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(5 * time.Millisecond)
				release()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	// More than there are is all there are; all are free again after.
	release, err := s.HeavyReads(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.heavy.slots); n != 2 {
		t.Fatalf("%d slots held, want 2", n)
	}
	release()
	if n := len(s.heavy.slots); n != 0 {
		t.Fatalf("%d slots held after release", n)
	}
	// A caller that cannot get its slots in time holds none.
	one, _ := s.HeavyRead(ctx)
	one2, _ := s.HeavyRead(ctx)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.HeavyReads(cctx, 2); err == nil {
		t.Fatal("took slots that were all held")
	}
	one()
	one2()
	if n := len(s.heavy.slots); n != 0 {
		t.Fatalf("%d slots held after a refusal", n)
	}
}
