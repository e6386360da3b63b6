package storetest

import (
	"context"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// Counter wraps an Ent driver and counts the statements it runs, so tests
// can prove a list is served without N+1 queries.
type Counter struct {
	dialect.Driver
	n atomic.Int64
}

// Wrap is an Options.Driver that installs c.
func (c *Counter) Wrap(d dialect.Driver) dialect.Driver {
	c.Driver = d
	return c
}

// Count is the number of statements run so far.
func (c *Counter) Count() int64 { return c.n.Load() }

// Reset sets the count back to zero.
func (c *Counter) Reset() { c.n.Store(0) }

// Query counts and runs a query.
func (c *Counter) Query(ctx context.Context, query string, args, v any) error {
	c.n.Add(1)
	return c.Driver.Query(ctx, query, args, v)
}

// Exec counts and runs a statement.
func (c *Counter) Exec(ctx context.Context, query string, args, v any) error {
	c.n.Add(1)
	return c.Driver.Exec(ctx, query, args, v)
}

// Tx starts a transaction whose statements are counted too.
func (c *Counter) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := c.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, c: c}, nil
}

type countingTx struct {
	dialect.Tx
	c *Counter
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.c.n.Add(1)
	return t.Tx.Query(ctx, query, args, v)
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.c.n.Add(1)
	return t.Tx.Exec(ctx, query, args, v)
}
