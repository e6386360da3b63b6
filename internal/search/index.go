package search

import (
	"context"
	"database/sql"
	"sync"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Index is the search engine as callers see it. Put and Delete run in the
// caller's transaction, so the index changes with the write it reflects
// and rolls back with it; Search reads committed state.
type Index interface {
	// Put adds or replaces docs (by Ref).
	Put(ctx context.Context, tx *sql.Tx, docs ...Doc) error
	// Delete removes docs; unknown refs are ignored. When no doc of a
	// dataset remains, its stars go too.
	Delete(ctx context.Context, tx *sql.Tx, refs ...Ref) error
	// AddPopularity adds views and downloads to the popularity of every
	// doc of a dataset (named as dataset_permissions names it).
	AddPopularity(ctx context.Context, tx *sql.Tx, permKind string, permID int, n int64) error
	// Search runs a query; ErrInvalid marks the caller's mistakes.
	Search(ctx context.Context, q Query) (Result, error)
}

// New returns the index of s's dialect: FTS5 on SQLite, tsvector on
// PostgreSQL. Both live in s's database (migration *_search.sql).
func New(s *store.Store) Index {
	return NewForDB(s.DB, s.Dialect)
}

// NewForDB is New for a bare database handle of the given dialect.
func NewForDB(db *sql.DB, dialectName string) Index {
	return &sqlIndex{db: db, pg: dialectName == dialect.Postgres, view: viewOf(db)}
}

// views holds one view per database handle, shared by every Index over it.
var views sync.Map // *sql.DB -> *view

func viewOf(db *sql.DB) *view {
	v, _ := views.LoadOrStore(db, newView())
	return v.(*view)
}

// sqlIndex implements Index over the store's own database. The two
// dialects share the tables, filters, facets and paging; they differ in
// the full-text part (textSource) and in writing the text (put.go).
type sqlIndex struct {
	db   *sql.DB
	pg   bool
	view *view
}

// rebind turns `?` placeholders into PostgreSQL's `$n` (store.Rebind).
func (ix *sqlIndex) rebind(q string) string { return store.Rebind(q, ix.pg) }
