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

// updatable is an Ent UpdateOne builder of entities T.
type updatable[T any, M entgo.Mutation] interface {
	Mutation() M
	Save(context.Context) (T, error)
}

// updateInTx runs the field changes assembled on upd (built on r.Client,
// not run) through the builder on(tx) returns, in a transaction of its
// own, so the search feed sees them there; then it reads the row back
// with reread, through r.Client: what the transaction saved belongs to
// it, and it has ended by then.
func updateInTx[T any, M entgo.Mutation, U updatable[T, M]](ctx context.Context, r *Resolver, upd U, on func(tx *ent.Client) U, reread func(context.Context) (T, error)) (T, error) {
	_, err := inTx(ctx, r, func(ctx context.Context, tx *ent.Client) (T, error) {
		u := on(tx)
		if err := copyMutation(u.Mutation(), upd.Mutation()); err != nil {
			var zero T
			return zero, err
		}
		return u.Save(ctx)
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return reread(ctx)
}

// inTx is withTx for a write that returns a value: fn's result when the
// transaction commits.
func inTx[T any](ctx context.Context, r *Resolver, fn func(ctx context.Context, tx *ent.Client) (T, error)) (T, error) {
	return store.InTxFor(ctx, r.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (T, error) { return fn(ctx, c) })
}
