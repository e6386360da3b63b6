// Package batchstream reads what a producer writes in batches on its own
// goroutine, one item at a time: the merge joins of version diffs read two
// key orders this way, so the database read of each side overlaps the
// comparison. A small buffer of batches bounds the memory in flight.
package batchstream

import "context"

// depth is how many batches the producer may run ahead.
const depth = 4

// Stream is one producer's items, in order.
type Stream[T any] struct {
	ch   chan []T
	done chan error
	buf  []T
	end  bool
	err  error
}

// Start runs produce on its own goroutine; produce hands each batch to
// send, which fails with ctx's error once ctx is done. Produce's error is
// the stream's Err once every batch before it was read.
func Start[T any](ctx context.Context, produce func(send func([]T) error) error) *Stream[T] {
	s := &Stream[T]{ch: make(chan []T, depth), done: make(chan error, 1)}
	go func() {
		defer close(s.ch)
		s.done <- produce(func(b []T) error {
			if len(b) == 0 {
				return nil
			}
			select {
			case s.ch <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return s
}

// Empty is a stream with no items.
func Empty[T any]() *Stream[T] {
	s := &Stream[T]{end: true}
	return s
}

// Peek returns the next item without taking it; ok is false at the end,
// or on the producer's error, which Err then holds.
func (s *Stream[T]) Peek() (item T, ok bool) {
	for len(s.buf) == 0 {
		if s.end {
			return item, false
		}
		b, open := <-s.ch
		if !open {
			s.end = true
			s.err = <-s.done
			continue
		}
		s.buf = b
	}
	return s.buf[0], true
}

// Next drops the item Peek returned.
func (s *Stream[T]) Next() { s.buf = s.buf[1:] }

// Err is the producer's error, once Peek has reported the end.
func (s *Stream[T]) Err() error { return s.err }
