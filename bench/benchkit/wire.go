package benchkit

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WireClient is a minimal HTTP/1.1 load client in the manner of wrk: each
// worker keeps one persistent connection, writes pre-encoded GET requests
// and reads the status line, headers and body (Content-Length or chunked;
// none for 204 and 304).
// It spends far less CPU per request than net/http's client, which matters
// on a 2-core machine where client and server share the cores: more of
// the machine goes to the server being measured. Every response is read
// in full, into a buffer each connection reuses (as wrk does: a 20 KiB
// body allocated per answer costs the client as much again in garbage
// collection), with its headers parsed in place.
type WireClient struct {
	// Timeout bounds one request and its answer (10 s when zero).
	Timeout time.Duration
	addr    string
	conns   chan *wireConn
}

type wireConn struct {
	c    net.Conn
	br   *bufio.Reader
	body []byte // the last answer's body, reused
}

// NewWireClient returns a client of the server at addr (host:port).
func NewWireClient(addr string) *WireClient {
	return &WireClient{addr: addr, conns: make(chan *wireConn, 64)}
}

// Request encodes a GET of path (with its query) for the client's host.
func (w *WireClient) Request(path string) []byte { return w.RequestWith(path, "") }

// RequestWith encodes a GET of path with further header lines, each
// ending in CRLF (e.g. "Accept-Encoding: gzip\r\n").
func (w *WireClient) RequestWith(path, header string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + w.addr + "\r\nUser-Agent: geopub-querybench\r\nAccept: */*\r\n" + header + "\r\n")
}

// Do sends one pre-encoded request and calls fn with the answer's status
// and body, which is only valid until fn returns; fn's error is Do's.
func (w *WireClient) Do(ctx context.Context, req []byte, fn func(status int, body []byte) error) error {
	var wc *wireConn
	select {
	case wc = <-w.conns:
	default:
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", w.addr)
		if err != nil {
			return err
		}
		wc = &wireConn{c: c, br: bufio.NewReaderSize(c, 16<<10)}
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	status, keep, err := wc.roundTrip(req, timeout)
	if err == nil {
		err = fn(status, wc.body)
	}
	if err != nil || !keep {
		wc.c.Close()
		return err
	}
	select {
	case w.conns <- wc:
	default:
		wc.c.Close()
	}
	return nil
}

var (
	contentLength    = []byte("content-length:")
	transferEncoding = []byte("transfer-encoding:")
	connection       = []byte("connection:")
)

// header returns the value of line when it is the header name (lower
// case, with its colon), else nil.
func header(line, name []byte) []byte {
	if len(line) < len(name) || !bytes.EqualFold(line[:len(name)], name) {
		return nil
	}
	return bytes.TrimSpace(line[len(name):])
}

// roundTrip sends req and reads the answer, its body into wc.body.
func (wc *wireConn) roundTrip(req []byte, timeout time.Duration) (status int, keep bool, err error) {
	wc.body = wc.body[:0]
	if err := wc.c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, false, err
	}
	if _, err := wc.c.Write(req); err != nil {
		return 0, false, err
	}
	line, err := wc.br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	if status, err = atoi(line[9:12]); err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, keep := -1, false, true
	for {
		h, err := wc.br.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		if len(h) <= 2 {
			break
		}
		if v := header(h, contentLength); v != nil {
			if length, err = atoi(v); err != nil {
				return 0, false, fmt.Errorf("bad Content-Length %q", v)
			}
		} else if v := header(h, transferEncoding); v != nil {
			chunked = bytes.EqualFold(v, []byte("chunked"))
		} else if v := header(h, connection); v != nil {
			keep = !bytes.EqualFold(v, []byte("close"))
		}
	}
	switch {
	case status == 204 || status == 304 || status < 200:
		// No body, whatever the headers say (RFC 9112 §6.3).
	case chunked:
		wc.body, err = readChunked(wc.br, wc.body)
	case length >= 0:
		wc.body = slices.Grow(wc.body, length)[:length]
		_, err = io.ReadFull(wc.br, wc.body)
	default:
		wc.body, err = io.ReadAll(wc.br)
		keep = false
	}
	return status, keep, err
}

// atoi reads a non-negative decimal number.
func atoi(b []byte) (int, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, fmt.Errorf("bad number %q", b)
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad number %q", b)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// readChunked reads a chunked body (no trailers expected), appending it
// to body.
func readChunked(br *bufio.Reader, body []byte) ([]byte, error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		sizeText, _, _ := strings.Cut(strings.TrimSpace(string(line)), ";")
		size, err := strconv.ParseInt(sizeText, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			_, err := br.ReadSlice('\n') // the blank line after the last chunk
			return body, err
		}
		start := len(body)
		body = slices.Grow(body, int(size))[:start+int(size)]
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, err
		}
		if _, err := br.Discard(2); err != nil {
			return nil, err
		}
	}
}
