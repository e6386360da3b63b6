package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"

	"github.com/geopub/geopub/internal/store"
)

// Insert enqueues a job in its own transaction.
func (j *Jobs) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	res, err := j.client.Insert(ctx, args, opts)
	if err != nil {
		return 0, fmt.Errorf("jobs: inserting %s: %w", args.Kind(), err)
	}
	return res.Job.ID, nil
}

// InsertTx enqueues a job on tx, a transaction of store.InTx: the job exists
// if and only if tx commits, so a record and the job that works on it are
// never apart. Workers see the job after the commit.
//
// On SQLite, River's driver runs on the *sql.Tx itself. On PostgreSQL,
// River's driver speaks pgx while tx is database/sql (the pgx stdlib
// driver): InsertTx takes the *pgx.Conn under tx from the store (the
// connection store.InTx pinned for it) and gives River a pgx.Tx view of
// that connection, whose statements therefore belong to tx; River cannot
// commit or roll it back, and its nested transactions are savepoints.
// River's insert notification (pg_notify) is sent in tx too, so it reaches
// listening workers on commit and is dropped on rollback.
func (j *Jobs) InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	res, err := j.insertTx(ctx, tx, args, opts)
	if err != nil {
		return 0, fmt.Errorf("jobs: inserting %s: %w", args.Kind(), err)
	}
	return res.Job.ID, nil
}

// onPgxTx runs fn with a pgx.Tx on the connection of tx, a PostgreSQL
// transaction of st.InTx.
func onPgxTx(st *store.Store, tx *sql.Tx, fn func(pgx.Tx) error) error {
	conn := st.TxConn(tx)
	if conn == nil {
		return errors.New("the transaction is not an open store.InTx transaction")
	}
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the store's connection is %T, not pgx", dc)
		}
		return fn(&borrowedTx{conn: sc.Conn()})
	})
}

var savepointSeq atomic.Int64

// borrowedTx is a pgx.Tx over a connection whose transaction somebody else
// (database/sql) owns. Statements run in that transaction; Commit and
// Rollback of the outer level are refused; Begin makes a savepoint, whose
// Commit releases it and Rollback rolls back to it, as pgx's own nested
// transactions do.
type borrowedTx struct {
	conn      *pgx.Conn
	savepoint string // "" for the borrowed transaction itself
	closed    bool
}

var errBorrowed = errors.New("jobs: the transaction belongs to database/sql; commit or roll it back there")

func (t *borrowedTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	name := fmt.Sprintf("geopub_jobs_sp_%d", savepointSeq.Add(1))
	if _, err := t.conn.Exec(ctx, "SAVEPOINT "+name); err != nil {
		return nil, err
	}
	return &borrowedTx{conn: t.conn, savepoint: name}, nil
}

func (t *borrowedTx) Commit(ctx context.Context) error {
	if t.savepoint == "" {
		return errBorrowed
	}
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	_, err := t.conn.Exec(ctx, "RELEASE SAVEPOINT "+t.savepoint)
	return err
}

func (t *borrowedTx) Rollback(ctx context.Context) error {
	if t.savepoint == "" {
		return errBorrowed
	}
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	_, err := t.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT "+t.savepoint+"; RELEASE SAVEPOINT "+t.savepoint)
	return err
}

func (t *borrowedTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *borrowedTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

// LargeObjects is not supported on a borrowed transaction.
func (t *borrowedTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *borrowedTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *borrowedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t *borrowedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t *borrowedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *borrowedTx) Conn() *pgx.Conn { return t.conn }
