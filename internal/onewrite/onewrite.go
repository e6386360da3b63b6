// Package onewrite sends a whole HTTP/1.1 answer to its connection in
// one write. Go's HTTP server buffers an answer in 4 KiB (a size it does
// not let servers change, golang/go#13870): a body larger than that goes
// out as two writes, the buffer holding the header and the body's first
// bytes, then the rest, which on loopback and in virtual machines costs
// about as much again as the whole of a small answer, on both sides (two
// system calls, two segments, two wake-ups of the reader). Handlers that
// answer from memory (a cached tile) write with Send, and the connection
// holds what net/http writes until the answer is whole, then sends it at
// once.
//
// It takes a listener whose connections are wrapped (Listen) and the
// server's ConnContext (ConnContext); without them, or for HTTP/2, Send
// writes as any handler does.
package onewrite

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// maxHold is the most a connection holds: larger answers go out as
// net/http writes them.
const maxHold = 1 << 20

// Listen wraps ln's connections so that Send can hold their writes.
func Listen(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

type connKey struct{}

// ConnContext is an http.Server's ConnContext that lets Send find the
// request's connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if oc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, oc)
	}
	return ctx
}

// conn is a connection that can hold its writes and send them as one.
type conn struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	held    []byte
}

// Write sends p, or keeps a copy of it while the connection holds.
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.holding && len(c.held)+len(p) <= maxHold {
		c.held = append(c.held, p...)
		c.mu.Unlock()
		return len(p), nil
	}
	// Too much to hold: what is held goes first, then p, as usual.
	err := c.releaseLocked()
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// ReadFrom keeps the underlying connection's sendfile and splice (net/http
// copies files through it) when nothing is held.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	err := c.releaseLocked()
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite half-closes the connection when the underlying one can, as
// net/http asks of TCP connections before closing them.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// hold starts holding writes.
func (c *conn) hold() {
	c.mu.Lock()
	c.holding = true
	c.mu.Unlock()
}

// release sends what is held in one write and stops holding.
func (c *conn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = false
	return c.releaseLocked()
}

func (c *conn) releaseLocked() error {
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.held)
	if cap(c.held) > 64<<10 {
		c.held = nil
	} else {
		c.held = c.held[:0]
	}
	return err
}

// Send writes an answer of status and body (no body for HEAD) with its
// Content-Length. For an HTTP/1.x request on a connection from Listen,
// the header and body reach the connection in one write; otherwise they
// go as net/http sends them. A failure to send shows on the connection,
// which net/http then closes.
func Send(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	c, ok := r.Context().Value(connKey{}).(*conn)
	if !ok || r.ProtoMajor != 1 {
		write(w, r, status, body)
		return
	}
	c.hold()
	defer func() { _ = c.release() }()
	write(w, r, status, body)
	// What net/http still buffers joins what it wrote.
	_ = http.NewResponseController(w).Flush()
}

func write(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// Serve serves hs on ln, its connections wrapped so that Send writes
// answers whole (hs's ConnContext is set).
func Serve(hs *http.Server, ln net.Listener) error {
	hs.ConnContext = ConnContext
	return hs.Serve(Listen(ln))
}
