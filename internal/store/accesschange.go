package store

import (
	"context"
	"database/sql"

	entgo "entgo.io/ent"
	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/freshcache"
)

// The read services remember access decisions for a moment
// (internal/freshcache). A committed change that bears on access must
// reach every process's next request, so the store watches every
// mutation: when one of the kinds below changes, the process forgets its
// remembered decisions after the commit (and at the mutation, for the
// requests that finish before it), and on PostgreSQL the transaction
// sends AccessChannel a notification, delivered to every listening
// process at commit (ListenAccessChanges). SQLite serves from one process.

// AccessChannel is the PostgreSQL channel of access changes.
const AccessChannel = "geopub_access"

// accessKinds are the entities whose changes bear on who may see what.
var accessKinds = map[string]bool{
	ent.TypeDatasetPermission: true, ent.TypeServicePermission: true, ent.TypeDatasetService: true,
	ent.TypeLayer: true, ent.TypeSet: true, ent.TypeSetItem: true, ent.TypeCatalogItem: true, ent.TypeDocument: true,
	ent.TypeGroup: true, ent.TypeGroupMembership: true, ent.TypeUser: true, ent.TypeToken: true,
	ent.TypeSession: true, ent.TypeSiteSetting: true, ent.TypeLayerVersion: true, ent.TypeSetVersion: true,
}

// bookkeeping are fields whose changes alone bear on nothing remembered:
// a token's last use, a session's last use, a version's import progress.
var bookkeeping = map[string]bool{"last_used_at": true, "last_seen_at": true, "progress": true, "status": true, "updated_at": true}

// bearsOnAccess reports whether m changes what callers may see.
func bearsOnAccess(m entgo.Mutation) bool {
	if !accessKinds[m.Type()] {
		return false
	}
	if m.Op().Is(entgo.OpDelete | entgo.OpDeleteOne | entgo.OpCreate) {
		return true
	}
	if len(m.ClearedFields()) > 0 || len(m.AddedEdges()) > 0 || len(m.RemovedEdges()) > 0 || len(m.ClearedEdges()) > 0 {
		return true
	}
	for _, f := range m.Fields() {
		if !bookkeeping[f] {
			return true
		}
	}
	return false
}

// txOf is the Ent transaction a mutation runs in, if any.
type txOf interface{ Tx() (*ent.Tx, error) }

// accessHook is installed on the store's own client: a change outside a
// transaction signals once written; one in an Ent transaction, at its
// commit. (InTx transactions are watched by accessObservation.)
func (s *Store) accessHook(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		v, err := next.Mutate(ctx, m)
		if err != nil || !bearsOnAccess(m) {
			return v, err
		}
		freshcache.Invalidate()
		if t, ok := m.(txOf); ok {
			if tx, terr := t.Tx(); terr == nil {
				tx.OnCommit(func(next ent.Committer) ent.Committer {
					return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
						err := next.Commit(ctx, tx)
						if err == nil {
							s.accessChanged(context.WithoutCancel(ctx))
						}
						return err
					})
				})
				return v, nil
			}
		}
		s.accessChanged(context.WithoutCancel(ctx))
		return v, nil
	})
}

// accessChanged forgets this process's decisions and tells the others.
func (s *Store) accessChanged(ctx context.Context) {
	freshcache.Invalidate()
	if s.Dialect == dialect.Postgres {
		// Best effort: a lost signal costs at most the freshness window.
		_, _ = s.DB.ExecContext(ctx, "SELECT pg_notify($1, '')", AccessChannel)
	}
}

// accessObservation watches one InTx transaction: its changes are
// signalled in the transaction (PostgreSQL delivers at commit) and
// forgotten in this process after the commit.
func (s *Store) accessObservation() TxObservation {
	changed := false
	return TxObservation{
		Hooks: []entgo.Hook{func(next entgo.Mutator) entgo.Mutator {
			return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
				v, err := next.Mutate(ctx, m)
				if err == nil && bearsOnAccess(m) {
					changed = true
					freshcache.Invalidate()
				}
				return v, err
			})
		}},
		BeforeCommit: func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			if !changed || s.Dialect != dialect.Postgres {
				return nil
			}
			_, err := tx.ExecContext(ctx, "SELECT pg_notify($1, '')", AccessChannel)
			return err
		},
		AfterCommit: func() {
			if changed {
				freshcache.Invalidate()
			}
		},
	}
}
