// Package relate evaluates the DE-9IM spatial predicates (equals,
// disjoint, touches, within, overlaps, crosses, intersects, contains)
// of two geometries through GDAL's GEOS, the same engine PostGIS uses, so
// that a filter answers alike whichever database stores the features.
package relate
