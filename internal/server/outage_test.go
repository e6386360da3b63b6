package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 24, point 25: a database outage answered 500, as if the request
// had found a fault, where 503 with Retry-After tells clients and load
// balancers to come back. A service on PostgreSQL reached through a TCP
// proxy; the proxy closes (its listener and every connection), and every
// door answers 503 SERVICE_UNAVAILABLE with a message: REST (anonymous
// and with a key), GraphQL (the error's code), OGC API Features and
// Records, and the point queries.
func TestDatabaseOutageIsUnavailable(t *testing.T) {
	direct := storetest.ScratchPostgres(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startTCPProxy(t, u.Host)
	u.Host = proxy.addr
	ctx := context.Background()
	st, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: u.String(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := servertest.NewWith(t, st, func(c *server.Config) { c.Jobs = jobs.Config{InsertOnly: true} })
	user := e.NewUser(t, "Outage")
	// Whatever the service runs at its stop finds the database again.
	t.Cleanup(proxy.resume)
	if r := e.Do(t, servertest.Request{Method: http.MethodGet, Path: "/layers/"}); r.Status != http.StatusOK {
		t.Fatalf("GET /layers/ before the outage = %d %s", r.Status, r.Body)
	}

	proxy.stop()

	check := func(name string, status int, h http.Header, body []byte) {
		t.Helper()
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
			t.Errorf("%s during the outage = %d (Retry-After %q) %s; want 503 with Retry-After", name, status, h.Get("Retry-After"), body)
			return
		}
		if !strings.Contains(string(body), "database") {
			t.Errorf("%s during the outage says %s; want a message about the database", name, body)
		}
	}
	r := e.Do(t, servertest.Request{Method: http.MethodGet, Path: "/layers/"})
	check("REST GET /layers/", r.Status, r.Header, r.Body)
	if !strings.Contains(string(r.Body), `"SERVICE_UNAVAILABLE"`) {
		t.Errorf("REST body %s lacks the code SERVICE_UNAVAILABLE", r.Body)
	}
	r = e.Do(t, servertest.Request{Method: http.MethodGet, Path: "/users/me/", Key: user.Key})
	check("REST GET /users/me/ with a key", r.Status, r.Header, r.Body)

	g := e.GraphQL(t, "", `{ layer(id: 1) { id } }`, nil)
	if len(g.Errors) == 0 || g.Errors[0].Code() != "SERVICE_UNAVAILABLE" ||
		!strings.Contains(g.Errors[0].Message, "database") || g.Errors[0].Extensions["retryAfter"] == nil {
		t.Errorf("GraphQL during the outage: %+v; want SERVICE_UNAVAILABLE with retryAfter and a message", g.Errors)
	}

	for _, path := range []string{"/services/ogc/features/collections", "/services/ogc/records/collections/catalogue/items", "/services/query/v1/vector.json?layer=1&x=174&y=-41&key=" + user.Key} {
		resp, err := http.Get(e.HTTP.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		check(path, resp.StatusCode, resp.Header, body)
	}
}

// tcpProxy forwards connections to a target until stop closes its
// listener and every connection; resume listens again on the same
// address.
type tcpProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{t: t, addr: ln.Addr().String(), target: target, conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	t.Cleanup(func() { p.stop(); p.wg.Wait() })
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, up) {
				return
			}
			for _, pair := range [][2]net.Conn{{c, up}, {up, c}} {
				p.wg.Add(1)
				go func(dst, src net.Conn) {
					defer p.wg.Done()
					_, _ = io.Copy(dst, src)
					dst.Close()
					src.Close()
				}(pair[0], pair[1])
			}
		}
	}()
}

// track records a forwarded pair, or closes it when the proxy stopped.
func (p *tcpProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *tcpProxy) resume() {
	p.mu.Lock()
	running := p.ln != nil
	p.mu.Unlock()
	if running {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		p.t.Logf("the proxy could not listen again on %s: %v", p.addr, err)
		return
	}
	p.serve(ln)
}
