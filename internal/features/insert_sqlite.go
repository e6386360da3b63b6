package features

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
// size at the end.
type sqliteBatcher struct {
	tx        *sql.Tx
	versionID int64
	full      *sql.Stmt // prepared on first use for sqliteBatchRows rows
	args      []any
	rows      int
	arena     []byte // geometries and attribute JSON of the buffered rows
	refs      []ref
	cache     *int64 // the connection's cache_size before the Writer raised it
}

// sqliteCacheKiB is the page cache the Writer gives its connection while it
// writes: random-order inserts into the bbox index of a large version
// thrash SQLite's default 2 MiB cache.
const sqliteCacheKiB = 64 << 10

// ref locates a buffered row's bytes in the arena; off -1 is NULL.
type ref struct{ geomOff, geomLen, attrOff, attrLen int }

func newSQLiteBatcher(tx *sql.Tx, versionID int) *sqliteBatcher {
	return &sqliteBatcher{tx: tx, versionID: int64(versionID), args: make([]any, 0, 8*sqliteBatchRows)}
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
func (s *sqliteBatcher) bind() {
	for i, rf := range s.refs {
		if rf.geomOff >= 0 {
			s.args[8*i+2] = s.arena[rf.geomOff : rf.geomOff+rf.geomLen : rf.geomOff+rf.geomLen]
		}
		if rf.attrOff >= 0 {
			s.args[8*i+3] = string(s.arena[rf.attrOff : rf.attrOff+rf.attrLen])
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

func (s *sqliteBatcher) flush(ctx context.Context) error {
	if s.rows == 0 {
		return nil
	}
	s.bind()
	var err error
	if s.cache == nil {
		var prev int64
		if err := s.tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&prev); err != nil {
			return fmt.Errorf("features: reading cache_size: %w", err)
		}
		if _, err := s.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", sqliteCacheKiB)); err != nil {
			return fmt.Errorf("features: setting cache_size: %w", err)
		}
		s.cache = &prev
	}
	if s.rows == sqliteBatchRows {
		if s.full == nil {
			if s.full, err = s.tx.PrepareContext(ctx, insertSQL(sqliteBatchRows)); err != nil {
				return fmt.Errorf("features: preparing insert: %w", err)
			}
		}
		_, err = s.full.ExecContext(ctx, s.args...)
	} else {
		_, err = s.tx.ExecContext(ctx, insertSQL(s.rows), s.args...)
	}
	if err != nil {
		return fmt.Errorf("features: inserting rows: %w", err)
	}
	clear(s.args)
	s.args = s.args[:0]
	s.arena = s.arena[:0]
	s.refs = s.refs[:0]
	s.rows = 0
	return nil
}

func (s *sqliteBatcher) close() error {
	var err error
	if s.full != nil {
		err = s.full.Close()
	}
	if s.cache != nil {
		// Restored with the statement's own context: the Writer's may be
		// done, and the pooled connection must not keep the large cache.
		if _, e := s.tx.Exec(fmt.Sprintf("PRAGMA cache_size = %d", *s.cache)); e != nil && err == nil {
			err = fmt.Errorf("features: restoring cache_size: %w", e)
		}
	}
	return err
}
