package relate

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/gdal"
)

// Predicates are the names Relate takes, as CQL2 spells them.
var Predicates = []string{"s_equals", "s_disjoint", "s_touches", "s_within", "s_overlaps", "s_crosses", "s_intersects", "s_contains"}

// predicates are GEOS's predicates, in the order of Predicates.
var predicates = []gdal.Predicate{gdal.Equals, gdal.Disjoint, gdal.Touches, gdal.Within, gdal.Overlaps, gdal.Crosses, gdal.Intersects, gdal.Contains}

// ErrNoGEOS is returned when GDAL was built without GEOS.
var ErrNoGEOS = errors.New("relate: GDAL has no GEOS")

// Available reports whether the predicates can be evaluated.
func Available() bool { return gdal.HaveGEOS() }

// Relate reports whether predicate op (one of Predicates) holds of a and
// b, in that order: s_within(a, b) is "a lies within b".
func Relate(op string, a, b geom.T) (bool, error) {
	code := -1
	for i, p := range Predicates {
		if p == op {
			code = i
		}
	}
	if code < 0 {
		return false, fmt.Errorf("relate: unknown predicate %q", op)
	}
	if !Available() {
		return false, ErrNoGEOS
	}
	wa, err := wkb.Marshal(a, binary.LittleEndian)
	if err != nil {
		return false, fmt.Errorf("relate: %w", err)
	}
	wb, err := wkb.Marshal(b, binary.LittleEndian)
	if err != nil {
		return false, fmt.Errorf("relate: %w", err)
	}
	holds, ok := gdal.Relate(predicates[code], wa, wb)
	if !ok {
		return false, fmt.Errorf("relate: %s: a geometry could not be read", op)
	}
	return holds, nil
}
