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
// dialect's spatial index: on SQLite the features_rtree R*Tree gives the
// candidate ids and the exact box test follows (R*Tree boxes are 32-bit,
// rounded outward); on PostgreSQL the B-tree over (version_id, cell,
// minx, maxx, miny, maxy) gives the rows whose cell key lies in the
// boxes' key intervals (cells.go) and applies the exact test to its
// entries.
// Rows without a box never match. The term stands for "version_id = ?"
// too; callers add their own ordering.
func BoxWhere(dialectName string, versionID int, boxes ...Box) (string, []any) {
	if len(boxes) == 0 {
		return "version_id = ?", []any{versionID}
	}
	var b strings.Builder
	args := []any{versionID}
	if dialectName == dialect.Postgres {
		b.WriteString("version_id = ? AND ")
		args = appendCellTerm(&b, args, cellSpans(boxes...))
		b.WriteString(" AND ")
		exact, exactArgs := boxScan(boxes)
		b.WriteString(exact)
		return b.String(), append(args, exactArgs...)
	}
	// The unary + keeps SQLite from driving the query by the version's
	// B-tree indexes: the R*Tree's ids lead.
	b.WriteString("+version_id = ? AND id IN (")
	args = appendRtreeCandidates(&b, args, " UNION ", versionID, boxes)
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
	// LIMIT: on SQLite the R*Tree's, where BoxWhere's id list is built
	// whole first; on PostgreSQL the rows of the cell key intervals that
	// pass the exact test (on the index entries), one interval after
	// another, where a bitmap of BoxWhere's intervals would be built
	// whole first.
	var b strings.Builder
	var args []any
	if st.Dialect == dialect.Postgres {
		spans := cellSpans(boxes...)
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
		args = appendRtreeCandidates(&b, args, " UNION ALL ", versionID, boxes)
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

// rtreeCandidates selects the R*Tree ids of one version (vmin, vmax) whose
// boxes meet one box (maxx >= W, minx <= E, maxy >= S, miny <= N).
const rtreeCandidates = "SELECT id FROM features_rtree WHERE vmin <= ? AND vmax >= ? AND minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?"

// appendRtreeCandidates writes rtreeCandidates once per box, joined by
// union (UNION or UNION ALL), and appends their arguments.
func appendRtreeCandidates(b *strings.Builder, args []any, union string, versionID int, boxes []Box) []any {
	for i, x := range boxes {
		if i > 0 {
			b.WriteString(union)
		}
		b.WriteString(rtreeCandidates)
		args = append(args, versionID, versionID, x[2], x[0], x[3], x[1])
	}
	return args
}

// appendCellTerm writes the test of the cell key against spans, OR-ed
// arms each a range of the (version_id, cell, ...) index: the single keys
// as one = ANY(array), the rest as BETWEEN. The array is read through a
// sub-select, so the planner does not estimate each of its keys (which
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
