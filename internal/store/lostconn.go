package store

import (
	"context"
	"database/sql"
	"errors"
	"net"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/internal/apperr"
)

// openPostgres is the pool of dsn whose connections say when they are
// lost: a read or write on a connection the server or the network closed
// (the database restarted, failed over or is out of reach) fails with
// apperr.DatabaseLost, so the caller is answered 503 with Retry-After
// rather than an internal error. The driver itself only says "unexpected
// EOF", which could be anything's.
func openPostgres(dsn string) (*sql.DB, error) {
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	dial := cc.DialFunc
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return lostConn{c}, nil
	}
	return stdlib.OpenDB(*cc), nil
}

// lostConn marks the failures of a database connection that mean it is
// gone: every read or write error but a timeout (the driver's own
// deadlines, which cancel statements, stay as they are).
type lostConn struct{ net.Conn }

func (c lostConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, lost(err)
}

func (c lostConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, lost(err)
}

func lost(err error) error {
	if err == nil {
		return nil
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return apperr.DatabaseLost(err)
}
