package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	entgo "entgo.io/ent"

	"github.com/geopub/geopub/ent"
)

// TxObservation is what an observer attaches to one InTx transaction:
// Hooks go on the transaction's Ent client (so they see every mutation
// made through it, whatever context the caller passes), and BeforeCommit
// runs in the transaction after fn returned nil and before the commit, so
// whatever it writes commits or rolls back with the transaction.
type TxObservation struct {
	Hooks        []entgo.Hook
	BeforeCommit func(ctx context.Context, c *ent.Client, tx *sql.Tx) error
	// AfterCommit runs once the transaction has committed.
	AfterCommit func()
}

// observer is one registered Observe call.
type observer struct {
	name  string
	begin func() TxObservation
}

// Observe registers begin, called at the start of every InTx transaction
// for the hooks and pre-commit work of that transaction (see
// TxObservation). It returns false, registering nothing, when an observer
// of that name is already registered, so installing the same observer
// twice on one store is harmless. Writes outside InTx are not observed
// here: hook s.Client for them.
func (s *Store) Observe(name string, begin func() TxObservation) bool {
	s.obsMu.Lock()
	defer s.obsMu.Unlock()
	for _, o := range s.observers {
		if o.name == name {
			return false
		}
	}
	// Copy on write: InTx reads the slice without the lock held.
	s.observers = append(slices.Clip(s.observers), observer{name: name, begin: begin})
	return true
}

// observations starts the observations of one transaction and installs
// their hooks on c.
func (s *Store) observations(c *ent.Client) []TxObservation {
	s.obsMu.Lock()
	obs := s.observers
	s.obsMu.Unlock()
	out := make([]TxObservation, 0, len(obs))
	for _, o := range obs {
		t := o.begin()
		if len(t.Hooks) > 0 {
			c.Use(t.Hooks...)
		}
		out = append(out, t)
	}
	return out
}

// beforeCommit runs the observations' pre-commit work in order.
func beforeCommit(ctx context.Context, obs []TxObservation, c *ent.Client, tx *sql.Tx) error {
	for _, o := range obs {
		if o.BeforeCommit == nil {
			continue
		}
		if err := o.BeforeCommit(ctx, c, tx); err != nil {
			return fmt.Errorf("before committing: %w", err)
		}
	}
	return nil
}

// afterCommit runs the observations' post-commit work.
func afterCommit(obs []TxObservation) {
	for _, o := range obs {
		if o.AfterCommit != nil {
			o.AfterCommit()
		}
	}
}
