// Package featurerows is the bulk path for the rows of a layer version in the
// features table: the import job streams rows into a Writer (COPY on
// PostgreSQL, multi-row prepared INSERTs on SQLite, both inside the
// caller's transaction), and point queries and exports read them back with
// Read, Count and Extent.
//
// A row's geometry is ISO WKB in EPSG:4326 (or nil); its bounding box is
// computed from the WKB when written and stored in the minx/miny/maxx/maxy
// columns. Attributes are stored as JSON text.
//
// The boxes are indexed spatially. On SQLite an R*Tree (migrations
// 20261124170000_*), features_rtree(id, vmin, vmax, minx, maxx, miny,
// maxy), with the version id as a third dimension, kept in step by
// triggers on features. On PostgreSQL a B-tree on (version_id, cell, minx,
// maxx, miny, maxy), where cell is a quadtree key of the box written with
// the row (cells.go; migration *_features_cell). BoxWhere is the one place
// the lookup's SQL is written (vector tiles, OGC API Features and WFS
// items, export crop counts); BoxSelective tells a paged reader whether
// the index should lead.
package featurerows
