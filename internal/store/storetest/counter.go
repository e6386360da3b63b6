package storetest

import (
	"context"
	"strings"
	"sync"

	"entgo.io/ent/dialect"
)

// Counter wraps an Ent driver and counts the statements it runs, so tests
// can prove a list is served without N+1 queries. It keeps the statements'
// text, so a failing bound can say which ran.
type Counter struct {
	dialect.Driver
	// Only, when set, limits the count to statements whose context it
	// accepts: a test that counts one request's statements leaves out
	// what background work (flushes, sweeps) runs meanwhile.
	Only func(ctx context.Context) bool

	mu   sync.Mutex
	seen []string
}

// Wrap is an Options.Driver that installs c.
func (c *Counter) Wrap(d dialect.Driver) dialect.Driver {
	c.Driver = d
	return c
}

// Count is the number of statements run so far.
func (c *Counter) Count() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(len(c.seen))
}

// Statements lists the statements counted so far, one line each.
func (c *Counter) Statements() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.seen, "\n")
}

// Reset sets the count back to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = nil
}

// add counts query when Only accepts ctx.
func (c *Counter) add(ctx context.Context, query string) {
	if c.Only != nil && !c.Only(ctx) {
		return
	}
	if len(query) > 160 {
		query = query[:160] + "…"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, query)
}

// Query counts and runs a query.
func (c *Counter) Query(ctx context.Context, query string, args, v any) error {
	c.add(ctx, query)
	return c.Driver.Query(ctx, query, args, v)
}

// Exec counts and runs a statement.
func (c *Counter) Exec(ctx context.Context, query string, args, v any) error {
	c.add(ctx, query)
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
	t.c.add(ctx, query)
	return t.Tx.Query(ctx, query, args, v)
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.c.add(ctx, query)
	return t.Tx.Exec(ctx, query, args, v)
}
