package featurerows

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// sqliteBatchRows is the number of rows per INSERT statement on SQLite (10
// parameters each, well under SQLite's 32766). A variable so tests can
// exercise batch boundaries.
var sqliteBatchRows = 500

// OR FAIL: with the default ABORT, a multi-row INSERT that could fail on
// a NOT NULL column after writing some rows makes SQLite keep a statement
// journal of every page it changes, to undo that statement alone (4 s of
// a 16 s import of 1,000,000 points, bench/import/RESULTS.md). A Writer
// that fails fails its caller's transaction, which rolls back everything,
// so the rows a failed statement keeps never outlive it.
const sqliteInsertHead = "INSERT OR FAIL INTO features (version_id, fid, geom, attrs, minx, miny, maxx, maxy, cell, sum) VALUES "

// sqliteArgs is the number of parameters per row.
const sqliteArgs = 10

// sqliteBatcher buffers rows and inserts them with one prepared multi-row
// INSERT per full batch; the remainder goes in one statement of its own
// size at the end. Batches are double-buffered, as on PostgreSQL: a full
// batch is inserted on another goroutine (on the same transaction, whose
// connection serializes it with any other statement of the caller) while
// the next one fills, so SQLite's work overlaps the caller's reading and
// encoding. close waits for the last batch.
type sqliteBatcher struct {
	tx        *sql.Tx
	versionID int64
	full      *sql.Stmt // prepared on first use for sqliteBatchRows rows
	sqliteBatch
	spare    sqliteBatch // the other buffer, free when inflight is nil
	inflight chan error  // result of the batch being inserted, nil if none
	cache    *int64      // the connection's cache_size before the Writer raised it
}

// sqliteBatch is one buffer of rows.
type sqliteBatch struct {
	args  []any
	rows  int
	arena []byte // geometries and attribute JSON of the buffered rows
	refs  []ref
}

// sqliteCacheKiB is the page cache the Writer gives its connection while it
// writes: random-order inserts into the cell index of a large version
// thrash SQLite's default 2 MiB cache.
const sqliteCacheKiB = 64 << 10

// ref locates a buffered row's bytes in the arena; off -1 is NULL.
type ref struct{ geomOff, geomLen, attrOff, attrLen int }

func newSQLiteBatcher(tx *sql.Tx, versionID int) *sqliteBatcher {
	return &sqliteBatcher{tx: tx, versionID: int64(versionID), sqliteBatch: sqliteBatch{args: make([]any, 0, sqliteArgs*sqliteBatchRows)}}
}

func (s *sqliteBatcher) add(r *Row, attrs []byte, box *[4]float64, sum int64) bool {
	rf := ref{geomOff: -1, attrOff: -1}
	if r.Geom != nil {
		rf.geomOff, rf.geomLen = len(s.arena), len(r.Geom)
		s.arena = append(s.arena, r.Geom...)
	}
	if attrs != nil {
		rf.attrOff, rf.attrLen = len(s.arena), len(attrs)
		s.arena = append(s.arena, attrs...)
	}
	s.refs = append(s.refs, rf)
	s.args = append(s.args, s.versionID, r.FID, nil, nil)
	if box == nil {
		s.args = append(s.args, nil, nil, nil, nil, nil)
	} else {
		s.args = append(s.args, box[0], box[1], box[2], box[3], cellKey(*box))
	}
	s.args = append(s.args, sum)
	s.rows++
	return s.rows >= sqliteBatchRows
}

// bind fills the geometry and attribute arguments from the arena, which no
// longer grows until the batch is written.
func (b *sqliteBatch) bind() {
	for i, rf := range b.refs {
		if rf.geomOff >= 0 {
			b.args[sqliteArgs*i+2] = b.arena[rf.geomOff : rf.geomOff+rf.geomLen : rf.geomOff+rf.geomLen]
		}
		if rf.attrOff >= 0 {
			b.args[sqliteArgs*i+3] = string(b.arena[rf.attrOff : rf.attrOff+rf.attrLen])
		}
	}
}

func insertSQL(rows int) string {
	var b strings.Builder
	b.Grow(len(sqliteInsertHead) + rows*20)
	b.WriteString(sqliteInsertHead)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?)")
	}
	return b.String()
}

// setUp raises the connection's page cache while the Writer writes.
func (s *sqliteBatcher) setUp(ctx context.Context) error {
	var prev int64
	if err := s.tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&prev); err != nil {
		return fmt.Errorf("features: reading cache_size: %w", err)
	}
	if _, err := s.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", sqliteCacheKiB)); err != nil {
		return fmt.Errorf("features: setting cache_size: %w", err)
	}
	s.cache = &prev
	return nil
}

func (s *sqliteBatcher) flush(ctx context.Context) error {
	if s.rows == 0 {
		return nil
	}
	if err := s.wait(); err != nil {
		return err
	}
	if s.cache == nil {
		if err := s.setUp(ctx); err != nil {
			return err
		}
	}
	if s.rows == sqliteBatchRows && s.full == nil {
		var err error
		if s.full, err = s.tx.PrepareContext(ctx, insertSQL(sqliteBatchRows)); err != nil {
			return fmt.Errorf("features: preparing insert: %w", err)
		}
	}
	s.bind()
	b := s.sqliteBatch
	done := make(chan error, 1)
	s.inflight = done
	go func() { done <- s.insert(ctx, b) }()
	s.sqliteBatch, s.spare = s.spare, b
	s.args = s.args[:0]
	s.arena = s.arena[:0]
	s.refs = s.refs[:0]
	s.rows = 0
	return nil
}

// insert inserts one bound batch; it runs on its own goroutine.
func (s *sqliteBatcher) insert(ctx context.Context, b sqliteBatch) error {
	var err error
	if b.rows == sqliteBatchRows {
		_, err = s.full.ExecContext(ctx, b.args...)
	} else {
		_, err = s.tx.ExecContext(ctx, insertSQL(b.rows), b.args...)
	}
	clear(b.args)
	if err != nil {
		return fmt.Errorf("features: inserting rows: %w", err)
	}
	return nil
}

// wait waits for the batch being inserted, if any.
func (s *sqliteBatcher) wait() error {
	if s.inflight == nil {
		return nil
	}
	err := <-s.inflight
	s.inflight = nil
	return err
}

func (s *sqliteBatcher) close() error {
	err := s.wait()
	if s.full != nil {
		if e := s.full.Close(); e != nil && err == nil {
			err = e
		}
	}
	if s.cache != nil {
		// Restored with the statement's own context: the Writer's may be
		// done, and the pooled connection must not keep the large cache.
		if _, e := s.tx.Exec(fmt.Sprintf("PRAGMA cache_size = %d", *s.cache)); e != nil && err == nil {
			err = fmt.Errorf("features: restoring cache_size: %w", e)
		}
	}
	s.sqliteBatch, s.spare = sqliteBatch{}, sqliteBatch{}
	return err
}
