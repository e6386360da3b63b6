package featurerows

import (
	"context"
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
// B-tree over (version_id, cell, minx, maxx, miny, maxy): the rows whose
// cell key lies in the boxes' key intervals (cells.go), with the exact box
// test applied to the index entries. Rows without a box never match. The
// term stands for "version_id = ?" too; callers add their own ordering.
func BoxWhere(dialectName string, versionID int, boxes ...Box) (string, []any) {
	if len(boxes) == 0 {
		return "version_id = ?", []any{versionID}
	}
	var b strings.Builder
	var args []any
	if dialectName == dialect.Postgres {
		b.WriteString("version_id = ? AND ")
		args = append(args, versionID)
		args = appendCellTerm(&b, args, cellSpans(pgBudget, boxes...))
	} else {
		// The ids come first from the index alone (it covers the
		// candidates' compound SELECT, which tests the exact box), then
		// the rows in id order: fetched in key order instead, as an OR of
		// the arms in the outer WHERE has it, the rows' pages are visited
		// at random (a z8 tile of 9,340 points among 1,000,000: 68 ms
		// against 48 ms). The unary + keeps the version's (version_id,
		// fid) index from leading.
		b.WriteString("+version_id = ? AND id IN (")
		args = append(args, versionID)
		args = appendSQLiteCandidates(&b, args, versionID, boxes)
		b.WriteString(")")
		return b.String(), args
	}
	b.WriteString(" AND ")
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
// MATERIALIZED common table expression: PostgreSQL's planner takes the
// four box conditions for independent and misjudges small boxes badly
// (55,976 rows expected for 47 found on 1,000,000 points), which makes
// it walk the fid index through a whole version for a small box).
// Otherwise walking the fid index finds a page soon.
func BoxSelective(ctx context.Context, st *store.Store, versionID int, boxes ...Box) (bool, error) {
	if len(boxes) == 0 {
		return false, nil
	}
	// The index's candidates are counted, each stream stopped by the
	// LIMIT: the rows of the key intervals that pass the exact test (on
	// the index entries), one interval after another, where BoxWhere
	// builds a bitmap (PostgreSQL) or a list of ids (SQLite) of them all
	// first.
	var b strings.Builder
	var args []any
	if st.Dialect == dialect.Postgres {
		spans := cellSpans(pgBudget, boxes...)
		los, his := make([]int64, len(spans)), make([]int64, len(spans))
		for i, s := range spans {
			los[i], his[i] = s.lo, s.hi
		}
		exact, exactArgs := boxScan(boxes)
		b.WriteString(store.Rebind("SELECT count(*) FROM (SELECT 1 FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) s(lo, hi) "+
			"CROSS JOIN LATERAL (SELECT 1 FROM features WHERE version_id = ? AND cell BETWEEN s.lo AND s.hi AND "+exact+" LIMIT ?) f LIMIT ?) c", true))
		args = append(append(append(args, los, his, versionID), exactArgs...), selectiveRows)
	} else {
		b.WriteString("SELECT count(*) FROM (")
		args = appendSQLiteCandidates(&b, args, versionID, boxes)
		b.WriteString(" LIMIT ?) c")
	}
	var n int
	if err := st.DB.QueryRowContext(ctx, b.String(), append(args, selectiveRows)...).Scan(&n); err != nil {
		return false, fmt.Errorf("features: counting box candidates of version %d: %w", versionID, err)
	}
	return n < selectiveRows, nil
}

// selectiveRows (lowered by tests) is the candidate count below which
// BoxSelective lets the spatial index lead: sorting that many rows costs
// about what walking the fid index costs to find a page when the boxes
// hold at least that many.
var selectiveRows = 10000

// appendSQLiteCandidates writes a compound SELECT of the ids of SQLite's
// candidates, one simple range of the index per arm (UNION ALL: the arms'
// keys are disjoint), each with the exact box test on the index's own
// columns.
func appendSQLiteCandidates(b *strings.Builder, args []any, versionID int, boxes []Box) []any {
	exact, exactArgs := boxScan(boxes)
	var keys []int64
	arms := 0
	arm := func() {
		if arms > 0 {
			b.WriteString(" UNION ALL ")
		}
		arms++
		b.WriteString("SELECT id FROM features WHERE version_id = ? AND ")
		args = append(args, versionID)
	}
	for _, s := range cellSpans(sqliteBudget, boxes...) {
		if s.lo == s.hi {
			keys = append(keys, s.lo)
			continue
		}
		arm()
		b.WriteString("cell BETWEEN ? AND ? AND " + exact)
		args = append(append(args, s.lo, s.hi), exactArgs...)
	}
	if len(keys) > 0 {
		arm()
		b.WriteString("cell IN (")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("?")
			args = append(args, k)
		}
		b.WriteString(") AND " + exact)
		args = append(args, exactArgs...)
	}
	if arms == 0 {
		b.WriteString("SELECT NULL WHERE false")
	}
	return args
}

// appendCellTerm writes PostgreSQL's test of the cell key against spans,
// OR-ed arms each a range of the (version_id, cell, ...) index: the
// intervals as BETWEEN, the single keys as one = ANY(array) read through
// a sub-select, so the planner does not estimate each of its keys (which
// cost more than the lookup for a few dozen keys).
func appendCellTerm(b *strings.Builder, args []any, spans []cellSpan) []any {
	var keys []int64
	arms := 0
	b.WriteString("(")
	for _, s := range spans {
		if s.lo == s.hi {
			keys = append(keys, s.lo)
			continue
		}
		if arms > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("cell BETWEEN ? AND ?")
		args = append(args, s.lo, s.hi)
		arms++
	}
	if len(keys) > 0 {
		if arms > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("cell = ANY(CAST((SELECT CAST(? AS bigint[])) AS bigint[]))")
		args = append(args, keys)
	}
	if arms == 0 && len(keys) == 0 {
		b.WriteString("false")
	}
	b.WriteString(")")
	return args
}

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
