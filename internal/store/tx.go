package store

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
)

// InTxFor is InTx for a write that returns a value: fn's result once the
// transaction commits; the zero value with the error when it does not.
func InTxFor[T any](ctx context.Context, s *Store, fn func(ctx context.Context, c *ent.Client, tx *sql.Tx) (T, error)) (T, error) {
	var out T
	err := s.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		var err error
		out, err = fn(ctx, c, tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// InTx runs fn in one database transaction and commits when it returns
// nil. fn gets an Ent client bound to the transaction and the *sql.Tx
// itself, so rows written through Ent and work enqueued on the same
// transaction (durable jobs) commit or roll back together.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, c *ent.Client, tx *sql.Tx) error) error {
	if s.gate != nil {
		// SQLite: queue at the write gate before taking a connection, so
		// no connection is held while waiting (see writegate.go).
		if err := s.gate.enterFor(ctx); err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		defer s.gate.leave()
		ctx = withGateHeld(ctx)
	}
	// The transaction runs on a pinned connection so that TxConn can hand
	// the driver connection to code that speaks the driver's native API on
	// the same transaction (River's pgx driver).
	conn, err := s.txPool().Conn(ctx)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	// Ends tx before its connection is released, even if fn panics (a
	// no-op after Commit).
	defer tx.Rollback()
	s.txConns.Store(tx, conn)
	defer s.txConns.Delete(tx)
	// fn's context is marked, so a write through any other connection
	// fails at once instead of waiting for tx (ErrWriteBesideTx).
	fnCtx, end := withOpenTx(ctx)
	defer end()
	c := newClient(inTx{entsql.NewDriver(s.Dialect, entsql.Conn{ExecQuerier: tx})})
	obs := s.observations(c)
	if err := fn(fnCtx, c, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := beforeCommit(fnCtx, obs, c, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	end()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	afterCommit(obs)
	return nil
}

// TxConn returns the connection an open InTx transaction runs on, or nil
// when tx did not come from InTx or has ended. Use it only while fn runs,
// through (*sql.Conn).Raw, and only for statements that belong to tx.
func (s *Store) TxConn(tx *sql.Tx) *sql.Conn {
	if c, ok := s.txConns.Load(tx); ok {
		return c.(*sql.Conn)
	}
	return nil
}

// inTx is the Ent driver of a client bound to an open transaction: the
// nested transactions Ent opens for multi-statement writes become no-ops
// on the outer one, which the caller commits.
type inTx struct{ dialect.Driver }

// Tx returns the outer transaction with no-op Commit and Rollback.
func (d inTx) Tx(context.Context) (dialect.Tx, error) { return dialect.NopTx(d.Driver), nil }
