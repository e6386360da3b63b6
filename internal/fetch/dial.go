package fetch

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// Dialer dials through a Guard (see Guard.Dialer).
type Dialer struct{ d net.Dialer }

// DialContext connects to address on network. A failure is a DialError:
// what went wrong, never the address or port dialled (which, after DNS,
// may be one the caller should not learn).
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, dialError(err)
	}
	return conn{c}, nil
}

// conn is a guarded connection: its read and write errors keep their
// reason (a reset, a deadline) and drop the addresses *net.OpError names.
type conn struct{ net.Conn }

func (c conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, ioError(err)
}

func (c conn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, ioError(err)
}

// ioError is err without the *net.OpError around it, which names both
// ends of the connection; a timeout stays a net.Error.
func ioError(err error) error {
	var op *net.OpError
	if err == nil || !errors.As(err, &op) || op.Err == nil {
		return err
	}
	return &DialError{msg: op.Err.Error(), reasons: []error{op.Err}, timeout: op.Timeout()}
}

// DialError is a failed dial (or read or write of a guarded connection)
// told without its address: Error says why
// (refused, timed out, not allowed, ...), and errors.Is still answers
// for the reason (ErrForbiddenAddress, syscall.ECONNREFUSED, a context
// error, a *net.DNSError without its server).
type DialError struct {
	msg     string
	reasons []error
	timeout bool
}

func (e *DialError) Error() string   { return e.msg }
func (e *DialError) Unwrap() []error { return e.reasons }

// Timeout and Temporary make a DialError a net.Error.
func (e *DialError) Timeout() bool   { return e.timeout }
func (e *DialError) Temporary() bool { return e.timeout }

// dialErrnos are the connection failures told by name.
var dialErrnos = []struct {
	errno syscall.Errno
	msg   string
}{
	{syscall.ECONNREFUSED, "connection refused"},
	{syscall.ECONNRESET, "connection reset"},
	{syscall.EHOSTUNREACH, "host unreachable"},
	{syscall.ENETUNREACH, "network unreachable"},
	{syscall.ETIMEDOUT, "connection timed out"},
}

func dialError(err error) error {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return &DialError{msg: ErrForbiddenAddress.Error() + ": a private or internal address", reasons: []error{ErrForbiddenAddress}}
	case errors.Is(err, context.Canceled):
		return &DialError{msg: "connection canceled", reasons: []error{context.Canceled}}
	case errors.Is(err, context.DeadlineExceeded):
		return &DialError{msg: "connection timed out", reasons: []error{context.DeadlineExceeded}, timeout: true}
	case errors.As(err, &dns):
		d := *dns
		d.Server = "" // the resolver's address
		return &DialError{msg: d.Error(), reasons: []error{&d}, timeout: d.IsTimeout}
	}
	for _, e := range dialErrnos {
		if errors.Is(err, e.errno) {
			return &DialError{msg: e.msg, reasons: []error{e.errno}, timeout: e.errno == syscall.ETIMEDOUT}
		}
	}
	if errors.As(err, &ne) && ne.Timeout() {
		return &DialError{msg: "connection timed out", timeout: true}
	}
	return &DialError{msg: "could not connect"}
}
