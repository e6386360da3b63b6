package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"reflect"

	"github.com/geopub/geopub/ent"
)

// Transactor runs fn in one transaction and commits when fn returns nil:
// the store's InTx (store.Store satisfies it), so that an audited change
// passes SQLite's write gate and the store's observers (change feed,
// search feed, caches) see it like any other write.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context, c *ent.Client, tx *sql.Tx) error) error
}

// Atomically runs fn, which makes a change and Records it, in one
// transaction of t, so that the entry and the change commit together.
// Code already in a transaction records through that transaction's
// client instead.
func Atomically(ctx context.Context, t Transactor, fn func(ctx context.Context, c *ent.Client) error) error {
	return t.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return fn(ctx, c) })
}

// Changed keeps of before and after the fields whose values differ (as
// SameJSON compares them): the Before and After of an update's entry.
// Fields only before holds are left out.
func Changed(before, after map[string]any) (map[string]any, map[string]any) {
	b, a := map[string]any{}, map[string]any{}
	for k, v := range after {
		if !SameJSON(before[k], v) {
			b[k], a[k] = before[k], v
		}
	}
	return b, a
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
