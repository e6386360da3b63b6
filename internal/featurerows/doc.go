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
// The boxes are indexed spatially, the same way on both stores: a B-tree
// on (version_id, cell, minx, maxx, miny, maxy), where cell is the box's
// quadtree key (internal/cellkey) written with the row (migrations
// *_features_cell*; cells.go turns query boxes into key intervals). Only
// this package inserts feature rows (a test holds it), so every row with a
// box has its key. BoxWhere is the one place
// the lookup's SQL is written (vector tiles, OGC API Features and WFS
// items, export crop counts); BoxSelective tells a paged reader whether
// the index should lead.
//
// On PostgreSQL the table is partitioned by version (partitions_pg.go):
// a new version's rows are copied into a table of their own without
// indexes, which is then attached, so the indexes are built once, sorted.
// Every query names a version, so it reads that partition alone.
package featurerows
