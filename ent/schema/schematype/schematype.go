// Package schematype holds the Go types of structured (JSON) columns in the
// Ent schemas, shared with the GraphQL layer.
package schematype

// Field is one attribute of a datasource or dataset, in file order.
type Field struct {
	Name string `json:"name"`
	// Type is geometry, integer, double, string, date, datetime or boolean.
	Type string `json:"type"`
}
