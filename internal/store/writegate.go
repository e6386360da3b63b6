package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", wrapped here
)

// SQLite allows one writer at a time. Its own answer to a second writer is
// a busy handler that polls for the lock and gives up with SQLITE_BUSY after
// busy_timeout, with no queue: under load a writer can lose every poll,
// and a writer waiting on a lock its own goroutine holds waits the full
// timeout. So the service's writes to one SQLite file queue in the process
// instead, at a write gate shared by everything that writes to that file:
//
//   - a transaction passes the gate before it takes a connection (InTx and
//     Ent's own transactions, through gatedEnt) or at BEGIN (River's pool,
//     through the SQLiteDriver), and leaves it at COMMIT or ROLLBACK; every
//     transaction begins IMMEDIATE, so it is a writer from its first
//     statement;
//   - a statement outside a transaction passes the gate when SQLite says
//     it writes (classify.go) and leaves when its result has been read;
//   - reads outside transactions never wait: WAL keeps them concurrent.
//
// Waiters are served in arrival order; a wait ends with the caller's
// context or after maxGateWait. The busy_timeout still covers other
// processes on the same file (the command-line tools) and the few
// statements that use the pool directly.
//
// A write on another connection while the caller's own store transaction
// is open (InTx marks its context) could only wait for that transaction,
// which waits for it: it fails at once with ErrWriteBesideTx instead.

// SQLiteDriver is the database/sql driver name of SQLite behind the write
// gate; open every pool on the store's SQLite file with it.
const SQLiteDriver = "geopub-sqlite"

// maxGateWait bounds a wait at the write gate of a caller whose context has
// no deadline.
const maxGateWait = time.Minute

// ErrWriteBesideTx reports a write through another connection while the
// caller's store transaction is open; on SQLite it could never proceed.
var ErrWriteBesideTx = errors.New("store: write outside the open transaction of this context (use the transaction's client)")

// baseDriver is modernc's SQLite driver, under the gate.
var baseDriver driver.Driver

func init() {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		panic(err)
	}
	baseDriver = db.Driver()
	db.Close()
	sql.Register(SQLiteDriver, gatedDriver{base: baseDriver})
}

// writeGate admits one writer at a time, first come first served, and
// knows which statements write (classify.go).
type writeGate struct {
	slot chan struct{}
	cls  *classifier
}

var (
	gatesMu sync.Mutex
	gates   = map[string]*writeGate{}
)

// gateFor returns the write gate of the database file a DSN names.
func gateFor(dsn string) *writeGate {
	file := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(file, '?'); i >= 0 {
		file = file[:i]
	}
	gatesMu.Lock()
	defer gatesMu.Unlock()
	g := gates[file]
	if g == nil {
		g = &writeGate{slot: make(chan struct{}, 1), cls: &classifier{dsn: dsn, base: baseDriver}}
		gates[file] = g
	}
	return g
}

// enter waits for the gate.
func (g *writeGate) enter(ctx context.Context) error {
	select {
	case g.slot <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(maxGateWait)
	defer timer.Stop()
	select {
	case g.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("store: waited %s for the SQLite write lock", maxGateWait)
	}
}

// leave lets the next writer in.
func (g *writeGate) leave() { <-g.slot }

type (
	openTxKey   struct{}
	gateHeldKey struct{}
)

// withOpenTx marks ctx as running inside a store transaction until end is
// called (a context kept after the transaction is then unmarked).
func withOpenTx(ctx context.Context) (_ context.Context, end func()) {
	open := new(atomic.Bool)
	open.Store(true)
	return context.WithValue(ctx, openTxKey{}, open), func() { open.Store(false) }
}

// hasOpenTx reports whether ctx runs inside an open store transaction.
func hasOpenTx(ctx context.Context) bool {
	open, _ := ctx.Value(openTxKey{}).(*atomic.Bool)
	return open != nil && open.Load()
}

// withGateHeld marks ctx as belonging to a caller that has passed the
// gate already, so the connection does not wait for it again.
func withGateHeld(ctx context.Context) context.Context {
	return context.WithValue(ctx, gateHeldKey{}, true)
}

func gateHeld(ctx context.Context) bool { v, _ := ctx.Value(gateHeldKey{}).(bool); return v }

// enterFor passes g for a write outside any transaction of ctx, refusing
// one beside an open store transaction.
func (g *writeGate) enterFor(ctx context.Context) error {
	if hasOpenTx(ctx) {
		return ErrWriteBesideTx
	}
	return g.enter(ctx)
}

// gatedDriver opens SQLite connections behind their file's write gate.
type gatedDriver struct{ base driver.Driver }

func (d gatedDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.base.Open(dsn)
	if err != nil {
		return nil, err
	}
	for _, need := range []reflect.Type{
		reflect.TypeFor[driver.ConnBeginTx](), reflect.TypeFor[driver.ExecerContext](),
		reflect.TypeFor[driver.QueryerContext](), reflect.TypeFor[driver.ConnPrepareContext](),
	} {
		if !reflect.TypeOf(c).Implements(need) {
			c.Close()
			return nil, fmt.Errorf("store: the SQLite driver's connection lacks %s", need)
		}
	}
	return &gatedConn{Conn: c, gate: gateFor(dsn), stmts: stmtCache{conn: c.(driver.ConnPrepareContext)}}, nil
}

// gatedConn is one SQLite connection; inTx is set while a transaction it
// began is open (database/sql uses a connection from one goroutine at a
// time).
type gatedConn struct {
	driver.Conn
	gate  *writeGate
	inTx  bool
	stmts stmtCache
}

// admit passes the gate for a write outside a transaction, unless the
// caller holds it already; done leaves it again.
func (c *gatedConn) admit(ctx context.Context) (done func(), err error) {
	if hasOpenTx(ctx) {
		return nil, ErrWriteBesideTx
	}
	if gateHeld(ctx) {
		return func() {}, nil
	}
	if err := c.gate.enterFor(ctx); err != nil {
		return nil, err
	}
	return sync.OnceFunc(c.gate.leave), nil
}

func (c *gatedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	done, err := c.admit(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		done()
		return nil, err
	}
	c.inTx = true
	return &gatedTx{Tx: tx, c: c, done: done}, nil
}

func (c *gatedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *gatedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if !c.inTx {
		done, err := c.admit(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
	}
	return c.stmts.exec(ctx, query, args, c.Conn.(driver.ExecerContext))
}

func (c *gatedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q := c.Conn.(driver.QueryerContext)
	if c.inTx || c.gate.cls.readOnly(query) {
		return c.stmts.query(ctx, query, args, q)
	}
	// INSERT ... RETURNING and the like: the statement holds the lock
	// until its rows are read.
	done, err := c.admit(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.stmts.query(ctx, query, args, q)
	if err != nil {
		done()
		return nil, err
	}
	return &gatedRows{Rows: rows, leave: done}, nil
}

func (c *gatedConn) Close() error {
	c.stmts.close()
	return c.Conn.Close()
}

func (c *gatedConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *gatedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *gatedConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// gatedTx leaves the gate when the transaction ends.
type gatedTx struct {
	driver.Tx
	c    *gatedConn
	done func()
}

func (t *gatedTx) Commit() error {
	defer t.end()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.end()
	return t.Tx.Rollback()
}

func (t *gatedTx) end() {
	t.c.inTx = false
	t.done()
}

// gatedRows leaves the gate when a writing statement's rows are closed.
type gatedRows struct {
	driver.Rows
	leave func()
}

func (r *gatedRows) Close() error {
	defer r.leave()
	return r.Rows.Close()
}

// ColumnTypeDatabaseTypeName forwards the column type names database/sql
// reports, when the driver gives them.
func (r *gatedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}
