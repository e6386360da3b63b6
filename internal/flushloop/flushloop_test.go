package flushloop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoopFlushesUntilStopped(t *testing.T) {
	var n atomic.Int32
	var l Loop
	flush := func(context.Context) error { n.Add(1); return errors.New("logged, not fatal") }
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	l.Start(context.Background(), time.Millisecond, flush, logger, "flushing")
	l.Start(context.Background(), time.Millisecond, flush, logger, "flushing") // started: nothing
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n.Load() < 3 {
		t.Fatalf("flushed %d times, want at least 3 (and going on after a failure)", n.Load())
	}
	l.Stop()
	after := n.Load()
	time.Sleep(20 * time.Millisecond)
	if n.Load() != after {
		t.Errorf("flushed %d more times after Stop", n.Load()-after)
	}
	l.Stop() // stopped: nothing
}

func TestLoopEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var l Loop
	l.Start(ctx, time.Hour, func(context.Context) error { return nil }, slog.Default(), "flushing")
	cancel()
	done := make(chan struct{})
	go func() { l.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop waited on a loop whose context ended")
	}
}
