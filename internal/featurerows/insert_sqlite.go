package featurerows

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// sqliteBatchRows is the number of rows per INSERT statement on SQLite (8
// parameters each, well under SQLite's 32766). A variable so tests can
// exercise batch boundaries.
var sqliteBatchRows = 500

const sqliteInsertHead = "INSERT INTO features (version_id, fid, geom, attrs, minx, miny, maxx, maxy) VALUES "

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
	deferred bool        // the Writer holds the version's R*Tree marker
	firstID  int64       // every row this Writer inserts has a larger id
}

// sqliteBatch is one buffer of rows.
type sqliteBatch struct {
	args  []any
	rows  int
	arena []byte // geometries and attribute JSON of the buffered rows
	refs  []ref
}

// sqliteCacheKiB is the page cache the Writer gives its connection while it
// writes: random-order inserts into the bbox index of a large version
// thrash SQLite's default 2 MiB cache.
const sqliteCacheKiB = 64 << 10

// ref locates a buffered row's bytes in the arena; off -1 is NULL.
type ref struct{ geomOff, geomLen, attrOff, attrLen int }

func newSQLiteBatcher(tx *sql.Tx, versionID int) *sqliteBatcher {
	return &sqliteBatcher{tx: tx, versionID: int64(versionID), sqliteBatch: sqliteBatch{args: make([]any, 0, 8*sqliteBatchRows)}}
}

func (s *sqliteBatcher) add(r *Row, attrs []byte, box *[4]float64) bool {
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
		s.args = append(s.args, nil, nil, nil, nil)
	} else {
		s.args = append(s.args, box[0], box[1], box[2], box[3])
	}
	s.rows++
	return s.rows >= sqliteBatchRows
}

// bind fills the geometry and attribute arguments from the arena, which no
// longer grows until the batch is written.
func (b *sqliteBatch) bind() {
	for i, rf := range b.refs {
		if rf.geomOff >= 0 {
			b.args[8*i+2] = b.arena[rf.geomOff : rf.geomOff+rf.geomLen : rf.geomOff+rf.geomLen]
		}
		if rf.attrOff >= 0 {
			b.args[8*i+3] = string(b.arena[rf.attrOff : rf.attrOff+rf.attrLen])
		}
	}
}

func insertSQL(rows int) string {
	var b strings.Builder
	b.Grow(len(sqliteInsertHead) + rows*18)
	b.WriteString(sqliteInsertHead)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?)")
	}
	return b.String()
}

// setUp raises the connection's page cache while the Writer writes, and
// defers the version's R*Tree entries to close: it inserts the version's
// marker entry (id = -version_id), which makes the insert trigger skip the
// version's rows. Filled by the trigger, every multi-row INSERT kept a
// statement journal of the R*Tree nodes it changed (hundreds per batch,
// spilled to a temporary file); filled by one INSERT … SELECT at close,
// each node is journaled at most once.
func (s *sqliteBatcher) setUp(ctx context.Context) error {
	var prev int64
	if err := s.tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&prev); err != nil {
		return fmt.Errorf("features: reading cache_size: %w", err)
	}
	if _, err := s.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", sqliteCacheKiB)); err != nil {
		return fmt.Errorf("features: setting cache_size: %w", err)
	}
	s.cache = &prev
	var held bool
	err := s.tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0), EXISTS (SELECT 1 FROM features_rtree WHERE id = ?) FROM features", -s.versionID).
		Scan(&s.firstID, &held)
	if err != nil {
		return fmt.Errorf("features: reading the last feature id: %w", err)
	}
	if held {
		return fmt.Errorf("features: another Writer of version %d is open in this transaction", s.versionID)
	}
	_, err = s.tx.ExecContext(ctx, "INSERT INTO features_rtree (id, vmin, vmax, minx, maxx, miny, maxy) VALUES (?, ?, ?, 0, 0, 0, 0)",
		-s.versionID, float64(-s.versionID)-1, float64(-s.versionID)-0.5)
	if err != nil {
		return fmt.Errorf("features: deferring the spatial index: %w", err)
	}
	s.deferred = true
	return nil
}

// index writes the R*Tree entries of the rows this Writer inserted (those
// with a box, as the trigger would have) and removes the version's marker.
// It runs even after a failed batch, so a caller that commits anyway
// leaves no marker and no row missing from the index.
func (s *sqliteBatcher) index() error {
	if !s.deferred {
		return nil
	}
	s.deferred = false
	// Their own context, as for cache_size: the Writer's may be done.
	if _, err := s.tx.Exec("DELETE FROM features_rtree WHERE id = ?", -s.versionID); err != nil {
		return fmt.Errorf("features: removing the spatial index marker: %w", err)
	}
	_, err := s.tx.Exec(`INSERT INTO features_rtree (id, vmin, vmax, minx, maxx, miny, maxy)
		SELECT id, version_id, version_id + 0.5, minx, maxx, miny, maxy FROM features
		WHERE id > ? AND +version_id = ? AND minx IS NOT NULL AND miny IS NOT NULL AND maxx IS NOT NULL AND maxy IS NOT NULL`,
		s.firstID, s.versionID)
	if err != nil {
		return fmt.Errorf("features: filling the spatial index: %w", err)
	}
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
	if e := s.index(); e != nil && err == nil {
		err = e
	}
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
