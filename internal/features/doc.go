// Package features is the bulk path for the rows of a layer version in the
// features table: the import job streams rows into a Writer (COPY on
// PostgreSQL, multi-row prepared INSERTs on SQLite, both inside the
// caller's transaction), and point queries and exports read them back with
// Read, Count and Extent.
//
// A row's geometry is ISO WKB in EPSG:4326 (or nil); its bounding box is
// computed from the WKB when written and stored in the minx/miny/maxx/maxy
// columns. Attributes are stored as JSON text.
package features
