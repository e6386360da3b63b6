package features

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
// rounded outward); on PostgreSQL the GiST index features_version_box
// answers box(point(minx, miny), point(maxx, maxy)) && box(...) exactly.
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
			b.WriteString(pgBoxOverlap)
			args = append(args, x[0], x[1], x[2], x[3])
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
// are read by its B-tree indexes (as when walking them in fid order) and
// each box is tested. Better than BoxWhere when the boxes hold most of a
// version and the caller stops after a few rows (see BoxSelective).
func BoxScanWhere(versionID int, boxes ...Box) (string, []any) {
	if len(boxes) == 0 {
		return "version_id = ?", []any{versionID}
	}
	exact, args := boxScan(boxes)
	return "version_id = ? AND " + exact, append([]any{versionID}, args...)
}

// BoxSelective reports whether the spatial index should lead a query for
// up to limit rows of version versionID meeting boxes, in another order
// than the index's: true when the boxes hold fewer candidates than
// selectiveRows (so reading and sorting them all is cheap). On PostgreSQL
// the planner weighs this itself: always true.
func BoxSelective(ctx context.Context, st *store.Store, versionID int, boxes ...Box) (bool, error) {
	if st.Dialect == dialect.Postgres || len(boxes) == 0 {
		return true, nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("SELECT count(*) FROM (")
	for i, x := range boxes {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString(rtreeCandidates)
		args = append(args, versionID, versionID, x[2], x[0], x[3], x[1])
	}
	b.WriteString(" LIMIT ?)")
	args = append(args, selectiveRows)
	var n int
	if err := st.DB.QueryRowContext(ctx, b.String(), args...).Scan(&n); err != nil {
		return false, fmt.Errorf("features: counting box candidates of version %d: %w", versionID, err)
	}
	return n < selectiveRows, nil
}

// selectiveRows is the candidate count below which BoxSelective lets the
// R*Tree lead: sorting that many rows costs about what walking the fid
// index costs to find a page when the boxes hold at least that many.
const selectiveRows = 10000

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
