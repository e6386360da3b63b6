package ratelimit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
)

// benchRequests are requests of many callers: tokens, users and anonymous
// addresses, each with its principal in the context as the
// authentication middleware leaves it.
func benchRequests(n int) []*http.Request {
	reqs := make([]*http.Request, n)
	for i := range reqs {
		r := httptest.NewRequest(http.MethodGet, "/services/api/v1.x/layers/1", nil)
		var p auth.Principal
		switch i % 3 {
		case 0:
			p = auth.Principal{Method: auth.TokenAuth, User: &ent.User{ID: i}, Token: &ent.Token{ID: i}}
		case 1:
			p = auth.Principal{Method: auth.SessionAuth, User: &ent.User{ID: i}}
		default:
			r.RemoteAddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1234).String()
		}
		reqs[i] = r.WithContext(auth.WithPrincipal(context.Background(), p))
	}
	return reqs
}

// discard is a ResponseWriter that keeps headers and drops the body.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

func benchMiddleware(b *testing.B, quota int64) {
	l := New(Config{Policies: map[Class]Policy{Reads: {Quota: quota, Window: time.Hour}}, SyncEvery: -1}, nil, nil)
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	h := l.Fixed(Reads, auth.WriteFailure)(ok)
	if quota == 0 {
		h = ok // the baseline: the same loop without the limiter
	}
	reqs := benchRequests(10_000)
	if quota == 1 {
		// The refused path: every caller's one request is spent.
		for _, r := range reqs {
			h.ServeHTTP(&discard{h: http.Header{}}, r)
		}
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, reqs[next.Add(1)%int64(len(reqs))])
		}
	})
}

// BenchmarkMiddlewareBaseline is the loop without the limiter: what the
// other two cost above it is the limiter's.
func BenchmarkMiddlewareBaseline(b *testing.B) { benchMiddleware(b, 0) }

// BenchmarkMiddlewareAllowed is the cost of an admitted request among
// 10,000 callers (the quota is never reached).
func BenchmarkMiddlewareAllowed(b *testing.B) { benchMiddleware(b, MaxQuota) }

// BenchmarkMiddlewareRefused is the cost of a 429 among 10,000 callers
// whose quota is spent, the refusal's JSON body included.
func BenchmarkMiddlewareRefused(b *testing.B) { benchMiddleware(b, 1) }
