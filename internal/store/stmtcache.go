package store

import (
	"context"
	"database/sql/driver"
	"reflect"
)

// SQLite compiles every statement it runs, and database/sql prepares ad
// hoc queries afresh each time, so a service that asks the same few
// hundred questions (authenticate a token, load a user, check a
// permission) spent a fifth of its time in SQLite's parser. Each gated
// connection therefore keeps its compiled statements by SQL text and runs
// them again with new arguments.
//
// A cached statement serves one result at a time: while its rows are open
// (a query nested in the reading of another with the same text), the same
// text runs as a one-off statement instead. SQLite recompiles a cached
// statement itself when the schema changes under it.

// stmtCacheSize bounds the statements one connection keeps; beyond it the
// cache drops an idle one. The service's own statements number a few
// hundred; texts that differ per call (IN lists of varying length) churn
// the cache without growing it.
const stmtCacheSize = 256

// cachedStmt is a compiled statement and whether rows of it are open.
type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

// stmtCache is one connection's statements by SQL text; like the
// connection, it is used from one goroutine at a time.
type stmtCache struct {
	conn  driver.ConnPrepareContext
	stmts map[string]*cachedStmt
}

// get returns the cached statement for query, compiling it first if need
// be, or nil when the cached one is busy.
func (c *stmtCache) get(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if _, ok := st.(driver.StmtQueryContext); !ok {
		st.Close()
		return nil, nil
	}
	if _, ok := st.(driver.StmtExecContext); !ok {
		st.Close()
		return nil, nil
	}
	if c.stmts == nil {
		c.stmts = make(map[string]*cachedStmt)
	}
	if len(c.stmts) >= stmtCacheSize {
		c.evict()
	}
	s := &cachedStmt{stmt: st}
	c.stmts[query] = s
	return s, nil
}

// evict closes one idle statement (map order makes it a random one).
func (c *stmtCache) evict() {
	for q, s := range c.stmts {
		if !s.busy {
			s.stmt.Close()
			delete(c.stmts, q)
			return
		}
	}
}

// exec runs query as a cached statement when it can, through the
// connection otherwise.
func (c *stmtCache) exec(ctx context.Context, query string, args []driver.NamedValue, direct driver.ExecerContext) (driver.Result, error) {
	s, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return direct.ExecContext(ctx, query, args)
	}
	return s.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

// query runs query as a cached statement when it can, through the
// connection otherwise; the statement is busy until its rows are closed.
func (c *stmtCache) query(ctx context.Context, query string, args []driver.NamedValue, direct driver.QueryerContext) (driver.Rows, error) {
	s, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return direct.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: rows, s: s}, nil
}

// close closes every statement; the connection closes next.
func (c *stmtCache) close() {
	for q, s := range c.stmts {
		s.stmt.Close()
		delete(c.stmts, q)
	}
}

// cachedRows frees its statement for the next caller when closed.
type cachedRows struct {
	driver.Rows
	s *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.s.busy = false
	return err
}

// The column type methods forward what the driver reports.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}
