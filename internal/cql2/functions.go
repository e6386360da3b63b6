package cql2

import (
	"strings"

	"github.com/geopub/geopub/internal/relate"
)

// spatialFunctions are the spatial predicates of CQL2 (OGC 21-065r2,
// /req/spatial-functions), by lower-case name: true for those the
// package answers by itself, false for the DE-9IM predicates that need
// GEOS (internal/relate).
var spatialFunctions = map[string]bool{
	"s_intersects": true, "s_disjoint": true,
	"s_equals": false, "s_touches": false, "s_within": false, "s_overlaps": false, "s_crosses": false, "s_contains": false,
}

// SpatialFunctionsServed reports whether every spatial predicate of the
// Spatial Functions class can be evaluated here (GDAL has GEOS); without
// it only S_INTERSECTS and S_DISJOINT are.
func SpatialFunctionsServed() bool { return relate.Available() }

// spatialOp is the Spatial.Op of the spatial function name, or why it is
// refused.
func spatialOp(name string) (string, error) {
	op := strings.ToLower(name)
	own, ok := spatialFunctions[op]
	switch {
	case !ok:
		return "", errorf("%s is not a spatial function: the ones offered are S_INTERSECTS, S_DISJOINT, S_EQUALS, S_TOUCHES, S_WITHIN, S_OVERLAPS, S_CROSSES and S_CONTAINS", name)
	case !own && !SpatialFunctionsServed():
		return "", errorf("%s is not supported here: it needs GEOS, which this server's GDAL lacks (S_INTERSECTS and S_DISJOINT are served)", strings.ToUpper(name))
	}
	return op, nil
}

// stringFunction builds CASEI or ACCENTI (name in any case) of arg.
func stringFunction(name string, arg Expr) Expr {
	if strings.EqualFold(name, "casei") {
		return CaseI{Arg: arg}
	}
	return AccentI{Arg: arg}
}

// isStringFunction reports whether name is CASEI or ACCENTI (any case):
// the functions of the Case-insensitive and Accent-insensitive
// Comparison classes, which take one character expression.
func isStringFunction(name string) bool {
	return strings.EqualFold(name, "casei") || strings.EqualFold(name, "accenti")
}
