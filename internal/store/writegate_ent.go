package store

import (
	"context"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// gatedEnt is the Ent driver of a SQLite store: reads run on the readers'
// pool (the embedded Driver); writes pass the file's write gate before
// they take a connection from the writers' pool, so a writer never holds
// a connection while it queues, and readers never hold the connections a
// writer needs.
type gatedEnt struct {
	dialect.Driver
	writer dialect.Driver
	gate   *writeGate
}

// Close closes both pools.
func (d gatedEnt) Close() error {
	err := d.Driver.Close()
	if werr := d.writer.Close(); err == nil {
		err = werr
	}
	return err
}

func (d gatedEnt) Exec(ctx context.Context, query string, args, v any) error {
	if hasOpenTx(ctx) {
		return ErrWriteBesideTx
	}
	if gateHeld(ctx) {
		return d.writer.Exec(ctx, query, args, v)
	}
	if err := d.gate.enterFor(ctx); err != nil {
		return err
	}
	defer d.gate.leave()
	return d.writer.Exec(withGateHeld(ctx), query, args, v)
}

func (d gatedEnt) Query(ctx context.Context, query string, args, v any) error {
	if d.gate.cls.readOnly(query) {
		return d.Driver.Query(ctx, query, args, v)
	}
	if hasOpenTx(ctx) {
		return ErrWriteBesideTx
	}
	if gateHeld(ctx) {
		return d.writer.Query(ctx, query, args, v)
	}
	if err := d.gate.enterFor(ctx); err != nil {
		return err
	}
	leave := sync.OnceFunc(d.gate.leave)
	if err := d.writer.Query(withGateHeld(ctx), query, args, v); err != nil {
		leave()
		return err
	}
	if rows, ok := v.(*entsql.Rows); ok && rows.ColumnScanner != nil {
		rows.ColumnScanner = closeHook{ColumnScanner: rows.ColumnScanner, after: leave}
	} else {
		leave()
	}
	return nil
}

func (d gatedEnt) Tx(ctx context.Context) (dialect.Tx, error) {
	if hasOpenTx(ctx) {
		return nil, ErrWriteBesideTx
	}
	if gateHeld(ctx) {
		return d.writer.Tx(ctx)
	}
	if err := d.gate.enterFor(ctx); err != nil {
		return nil, err
	}
	tx, err := d.writer.Tx(withGateHeld(ctx))
	if err != nil {
		d.gate.leave()
		return nil, err
	}
	return &gatedEntTx{Tx: tx, leave: sync.OnceFunc(d.gate.leave)}, nil
}

// gatedEntTx leaves the gate when the transaction ends.
type gatedEntTx struct {
	dialect.Tx
	leave func()
}

func (t *gatedEntTx) Commit() error {
	defer t.leave()
	return t.Tx.Commit()
}

func (t *gatedEntTx) Rollback() error {
	defer t.leave()
	return t.Tx.Rollback()
}

// closeHook runs after once the rows are closed.
type closeHook struct {
	entsql.ColumnScanner
	after func()
}

func (c closeHook) Close() error {
	defer c.after()
	return c.ColumnScanner.Close()
}
