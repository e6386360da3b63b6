// Package schematype holds the Go types of structured (JSON) columns in the
// Ent schemas, shared with the GraphQL layer.
package schematype

// Field is one attribute of a datasource or dataset, in file order.
type Field struct {
	Name string `json:"name"`
	// Type is geometry, integer, double, string, date, datetime, time (a
	// time of day, stored as "12:34:56" or with its fraction,
	// "12:34:56.25") or boolean.
	Type string `json:"type"`
}

// Skipped is a file a scan found but did not describe as a datasource,
// and why: an archive it could not unpack, a file GDAL could not read, a
// raster beyond the size limit.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}
