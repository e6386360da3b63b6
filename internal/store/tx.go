package store

import (
	"context"
	"database/sql"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
)

// InTx runs fn in one database transaction and commits when it returns
// nil. fn gets an Ent client bound to the transaction and the *sql.Tx
// itself, so rows written through Ent and work enqueued on the same
// transaction (durable jobs) commit or roll back together.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, c *ent.Client, tx *sql.Tx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	c := ent.NewClient(ent.Driver(entsql.NewDriver(s.Dialect, entsql.Conn{ExecQuerier: tx})))
	if err := fn(ctx, c, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	return nil
}
