// Package queryapi serves the point-query APIs: vector, raster and set
// lookups at a longitude, latitude. Its geo package measures distances the
// way PostGIS geography does (nearest point on the sphere, distance on the
// WGS 84 spheroid).
package queryapi
