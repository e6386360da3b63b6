package usage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func contextCanceled(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

// discard is a response writer that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// The counting path of one tile request: the middleware's writer, the
// door's mark and the counters, in parallel over the processors (no
// store: nothing is flushed during the benchmark).
func BenchmarkCountingPath(b *testing.B) {
	c := New(nil, nil)
	body := make([]byte, 512)
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Served(w, Layer, 12, Tiles, Amounts{Tiles: 1})
		_, _ = w.Write(body)
	}))
	r := httptest.NewRequest(http.MethodGet, "/tiles", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

// The same handler without counting, to compare.
func BenchmarkCountingPathOff(b *testing.B) {
	var c *Counter
	body := make([]byte, 512)
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Served(w, Layer, 12, Tiles, Amounts{Tiles: 1})
		_, _ = w.Write(body)
	}))
	r := httptest.NewRequest(http.MethodGet, "/tiles", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

// Counter.Add alone, one hot key from every processor.
func BenchmarkAddHotKey(b *testing.B) {
	c := New(nil, nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(Layer, 12, Tiles, 0, Amounts{Requests: 1, Tiles: 1})
		}
	})
}
