package geoservices

import (
	"strings"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
)

// esriWhere stands in for esriwhere.Parse (branch esri-where) until it
// lands: 1=1 or nothing selects all, anything else is read as CQL2 text,
// which simple SQL comparisons also are.
func esriWhere(where string, _ []schematype.Field) (cql2.Expr, error) {
	w := strings.TrimSpace(where)
	if w == "" || strings.ReplaceAll(w, " ", "") == "1=1" {
		return nil, nil
	}
	return cql2.ParseText(w)
}
