package benchkit

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
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
// in full and its status checked.
type WireClient struct {
	// Timeout bounds one request and its answer (10 s when zero).
	Timeout time.Duration
	addr    string
	conns   chan *wireConn
}

type wireConn struct {
	c  net.Conn
	br *bufio.Reader
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

// Do sends one pre-encoded request and returns the status and body.
func (w *WireClient) Do(ctx context.Context, req []byte) (int, []byte, error) {
	var wc *wireConn
	select {
	case wc = <-w.conns:
	default:
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", w.addr)
		if err != nil {
			return 0, nil, err
		}
		wc = &wireConn{c: c, br: bufio.NewReaderSize(c, 16<<10)}
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	status, body, keep, err := wc.roundTrip(req, timeout)
	if err != nil || !keep {
		wc.c.Close()
		return status, body, err
	}
	select {
	case w.conns <- wc:
	default:
		wc.c.Close()
	}
	return status, body, nil
}

func (wc *wireConn) roundTrip(req []byte, timeout time.Duration) (status int, body []byte, keep bool, err error) {
	if err := wc.c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, nil, false, err
	}
	if _, err := wc.c.Write(req); err != nil {
		return 0, nil, false, err
	}
	line, err := wc.br.ReadSlice('\n')
	if err != nil {
		return 0, nil, false, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, keep := -1, false, true
	for {
		h, err := wc.br.ReadSlice('\n')
		if err != nil {
			return 0, nil, false, err
		}
		if len(h) <= 2 {
			break
		}
		name, value, ok := strings.Cut(strings.TrimSpace(string(h)), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			if length, err = strconv.Atoi(value); err != nil {
				return 0, nil, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		case "connection":
			keep = !strings.EqualFold(value, "close")
		}
	}
	switch {
	case status == 204 || status == 304 || status < 200:
		// No body, whatever the headers say (RFC 9112 §6.3).
	case chunked:
		body, err = readChunked(wc.br)
	case length >= 0:
		body = make([]byte, length)
		_, err = io.ReadFull(wc.br, body)
	default:
		body, err = io.ReadAll(wc.br)
		keep = false
	}
	return status, body, keep, err
}

// readChunked reads a chunked body (no trailers expected).
func readChunked(br *bufio.Reader) ([]byte, error) {
	var body []byte
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
		body = append(body, make([]byte, size)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, err
		}
		if _, err := br.Discard(2); err != nil {
			return nil, err
		}
	}
}
