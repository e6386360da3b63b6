// Package cql2 parses OGC Common Query Language filters (CQL2, text and
// JSON encodings) into an expression tree and evaluates it against a
// feature's properties and geometry. It covers basic CQL2 (comparisons,
// AND, OR, NOT, IS NULL), the advanced comparison operators (LIKE,
// BETWEEN, IN), timestamps and dates, and S_INTERSECTS with WKT, GeoJSON
// and BBOX literals. Evaluation follows SQL's three-valued logic: a
// comparison with a null or a missing property is unknown, and a filter
// keeps a feature only when it is true.
package cql2
