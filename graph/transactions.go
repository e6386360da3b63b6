package graph

import (
	"context"
	"database/sql"

	entgo "entgo.io/ent"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
)

// withTx runs fn in a store transaction (store.InTx), committing when it
// returns nil; tx is the Ent client bound to it. The search feed's work
// for what fn changed runs in the same transaction, before the commit.
func (r *Resolver) withTx(ctx context.Context, fn func(ctx context.Context, tx *ent.Client) error) error {
	return r.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return fn(ctx, c) })
}

// copyMutation copies the field changes of src (a mutation built but not
// run) onto dst, so an update assembled on r.Client runs through a
// transaction's client instead (and the search feed sees it there).
func copyMutation(dst, src entgo.Mutation) error {
	for _, f := range src.Fields() {
		v, _ := src.Field(f)
		if err := dst.SetField(f, v); err != nil {
			return err
		}
	}
	for _, f := range src.AddedFields() {
		v, _ := src.AddedField(f)
		if err := dst.AddField(f, v); err != nil {
			return err
		}
	}
	for _, f := range src.ClearedFields() {
		if err := dst.ClearField(f); err != nil {
			return err
		}
	}
	return nil
}

// inTx is withTx for a write that returns a value: fn's result when the
// transaction commits.
func inTx[T any](ctx context.Context, r *Resolver, fn func(ctx context.Context, tx *ent.Client) (T, error)) (T, error) {
	return store.InTxFor(ctx, r.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (T, error) { return fn(ctx, c) })
}
