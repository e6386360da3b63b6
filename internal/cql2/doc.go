// Package cql2 parses OGC Common Query Language filters (CQL2, OGC
// 21-065r2, text and JSON encodings) into an expression tree and
// evaluates it against a feature's properties and geometry. It covers
// basic CQL2 (comparisons, AND, OR, NOT, IS NULL), the advanced
// comparison operators (LIKE, BETWEEN, IN), CASEI and ACCENTI
// (case- and accent-insensitive comparison), timestamps and dates, and
// the spatial functions S_INTERSECTS, S_DISJOINT, S_EQUALS, S_TOUCHES,
// S_WITHIN, S_OVERLAPS, S_CROSSES and S_CONTAINS with WKT, GeoJSON and
// BBOX literals (all but the first two through GEOS, internal/relate).
// Evaluation follows SQL's three-valued logic: a comparison with a null
// or a missing property is unknown, and a filter keeps a feature only
// when it is true.
package cql2
