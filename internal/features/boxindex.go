package features

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Box is an envelope [minx, miny, maxx, maxy] in the features' CRS
// (EPSG:4326), minx <= maxx.
type Box = [4]float64

// BoxWhere returns a WHERE term (with ? placeholders, for store.Rebind) and
// its arguments keeping the rows of version versionID whose stored box
// meets at least one of boxes (edges touching count), found through the
// dialect's spatial index: on SQLite the features_rtree R*Tree gives the
// candidate ids and the exact box test follows (R*Tree boxes are 32-bit,
// rounded outward); on PostgreSQL the GiST index features_version_box
// answers box(point(minx, miny), point(maxx, maxy)) && box(...) (within
// 1e-6, PostgreSQL's tolerance) and the same exact test follows.
// Rows without a box never match. The term stands for "version_id = ?"
// too; callers add their own ordering.
func BoxWhere(dialectName string, versionID int, boxes ...Box) (string, []any) {
	if len(boxes) == 0 {
		return "version_id = ?", []any{versionID}
	}
	var b strings.Builder
	args := []any{versionID}
	if dialectName == dialect.Postgres {
		b.WriteString("version_id = ? AND (")
		for i, x := range boxes {
			if i > 0 {
				b.WriteString(" OR ")
			}
			// && compares with a tolerance of 1e-6 (PostgreSQL's geometric
			// EPSILON): the stored columns give the exact answer.
			b.WriteString("(" + pgBoxOverlap + " AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)")
			args = append(args, x[0], x[1], x[2], x[3], x[2], x[0], x[3], x[1])
		}
		b.WriteString(")")
		return b.String(), args
	}
	// The unary + keeps SQLite from driving the query by the version's
	// B-tree indexes: the R*Tree's ids lead.
	b.WriteString("+version_id = ? AND id IN (")
	for i, x := range boxes {
		if i > 0 {
			b.WriteString(" UNION ")
		}
		b.WriteString(rtreeCandidates)
		args = append(args, versionID, versionID, x[2], x[0], x[3], x[1])
	}
	b.WriteString(") AND ")
	exact, exactArgs := boxScan(boxes)
	b.WriteString(exact)
	return b.String(), append(args, exactArgs...)
}

// BoxScanWhere is BoxWhere without the spatial index: the version's rows
// are walked by its (version_id, fid) index and each box tested. Better than
// BoxWhere when the boxes hold much of a version and the caller stops
// after a few rows in fid order (see BoxSelective).
func BoxScanWhere(versionID int, boxes ...Box) (string, []any) {
	if len(boxes) == 0 {
		return "version_id = ?", []any{versionID}
	}
	exact, args := boxScan(boxes)
	return "version_id = ? AND " + exact, append([]any{versionID}, args...)
}

// BoxSelective reports whether the spatial index should lead a query for
// a few rows of version versionID meeting boxes, in fid order: true when
// the boxes hold fewer than selectiveRows candidates, so reading and
// sorting them all is cheap (then callers make the index lead, e.g. by a
// MATERIALIZED common table expression: PostgreSQL's planner has no
// statistics for box overlap and guesses 0.5% of the rows, which makes
// it walk the fid index through a whole version for a small box).
// Otherwise walking the fid index finds a page soon.
func BoxSelective(ctx context.Context, st *store.Store, versionID int, boxes ...Box) (bool, error) {
	if len(boxes) == 0 {
		return false, nil
	}
	// On SQLite the R*Tree alone is counted: its candidates stream,
	// where BoxWhere's id list is built whole first.
	where, args := BoxWhere(st.Dialect, versionID, boxes...)
	query := store.Rebind("SELECT count(*) FROM (SELECT 1 FROM features WHERE "+where+" LIMIT ?) c", st.Dialect == dialect.Postgres)
	if st.Dialect != dialect.Postgres {
		var b strings.Builder
		args = nil
		b.WriteString("SELECT count(*) FROM (")
		for i, x := range boxes {
			if i > 0 {
				b.WriteString(" UNION ALL ")
			}
			b.WriteString(rtreeCandidates)
			args = append(args, versionID, versionID, x[2], x[0], x[3], x[1])
		}
		b.WriteString(" LIMIT ?) c")
		query = b.String()
	}
	n, err := countCandidates(ctx, st, query, append(args, selectiveRows))
	if err != nil {
		return false, fmt.Errorf("features: counting box candidates of version %d: %w", versionID, err)
	}
	return n < selectiveRows, nil
}

// countCandidates runs BoxSelective's count. On PostgreSQL bitmap scans
// are turned off for it: a bitmap is built whole before the LIMIT stops
// it, where a plain GiST index scan streams.
func countCandidates(ctx context.Context, st *store.Store, query string, args []any) (int, error) {
	var n int
	if st.Dialect != dialect.Postgres {
		err := st.DB.QueryRowContext(ctx, query, args...).Scan(&n)
		return n, err
	}
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SET LOCAL enable_bitmapscan = off"); err != nil {
		return 0, err
	}
	err = tx.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// selectiveRows (lowered by tests) is the candidate count below which
// BoxSelective lets the spatial index lead: sorting that many rows costs
// about what walking the fid index costs to find a page when the boxes
// hold at least that many.
var selectiveRows = 10000

// rtreeCandidates selects the R*Tree ids of one version (vmin, vmax) whose
// boxes meet one box (maxx >= W, minx <= E, maxy >= S, miny <= N).
const rtreeCandidates = "SELECT id FROM features_rtree WHERE vmin <= ? AND vmax >= ? AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?"

// pgBoxOverlap is the GiST-indexed box test on PostgreSQL; its arguments
// are the box's minx, miny, maxx, maxy.
const pgBoxOverlap = "box(point(minx, miny), point(maxx, maxy)) && box(point(?, ?), point(?, ?))"

// boxScan is the exact test of the stored box columns against boxes.
func boxScan(boxes []Box) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("(")
	for i, x := range boxes {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)")
		args = append(args, x[2], x[0], x[3], x[1])
	}
	b.WriteString(")")
	return b.String(), args
}
