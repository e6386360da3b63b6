package batchstream

import (
	"context"
	"errors"
	"testing"
)

func TestItemsInOrderThenTheProducersError(t *testing.T) {
	boom := errors.New("boom")
	s := Start(context.Background(), func(send func([]int) error) error {
		for _, b := range [][]int{{1, 2}, {}, {3}} {
			if err := send(b); err != nil {
				return err
			}
		}
		return boom
	})
	var got []int
	for {
		v, ok := s.Peek()
		if !ok {
			break
		}
		got = append(got, v)
		s.Next()
	}
	if len(got) != 3 || got[0] != 1 || got[2] != 3 || !errors.Is(s.Err(), boom) {
		t.Fatalf("got %v, err %v", got, s.Err())
	}
	if _, ok := Empty[int]().Peek(); ok {
		t.Fatal("Empty has an item")
	}
}

// A reader that stops early cancels ctx; the producer's send then fails
// instead of blocking forever on a full buffer.
func TestCancelledReaderReleasesTheProducer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := Start(ctx, func(send func([]int) error) error {
		for {
			if err := send([]int{1}); err != nil {
				done <- err
				return err
			}
		}
	})
	s.Peek()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("producer ended with %v", err)
	}
}
