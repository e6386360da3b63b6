package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/geopub/geopub/ent"
)

// Atomically runs fn, which makes a change and Records it, in one
// transaction on c, so that the entry and the change commit together. A
// client already bound to a transaction (store.InTx) gets the outer
// transaction; an Ent transaction's client runs fn directly.
func Atomically(ctx context.Context, c *ent.Client, fn func(c *ent.Client) error) error {
	tx, err := c.Tx(ctx)
	if errors.Is(err, ent.ErrTxStarted) {
		return fn(c)
	}
	if err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	if err := fn(tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	return nil
}

// SameJSON reports whether x and y are the same once written as JSON, the
// way before and after values are stored.
func SameJSON(x, y any) bool {
	if reflect.DeepEqual(x, y) {
		return true
	}
	bx, err1 := json.Marshal(x)
	by, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && string(bx) == string(by)
}
