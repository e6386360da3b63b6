package versiondiff

import (
	"slices"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// SchemaChange is how a version's schema differs from the older one's.
// Fields keep the newer version's order (removed ones the older's).
type SchemaChange struct {
	Added   []schematype.Field `json:"fields_added,omitempty"`
	Removed []schematype.Field `json:"fields_removed,omitempty"`
	Retyped []Retyped          `json:"fields_retyped,omitempty"`
	// CRS, GeometryType and PrimaryKey are set when they changed.
	CRS          *ValueChange `json:"crs,omitempty"`
	GeometryType *ValueChange `json:"geometry_type,omitempty"`
	PrimaryKey   *KeyChange   `json:"primary_key_fields,omitempty"`
}

// Retyped is a field whose type changed.
type Retyped struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// ValueChange is a value before and after.
type ValueChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// KeyChange is a primary key before and after.
type KeyChange struct {
	Old []string `json:"old"`
	New []string `json:"new"`
}

// Empty reports whether nothing changed.
func (s SchemaChange) Empty() bool {
	return len(s.Added) == 0 && len(s.Removed) == 0 && len(s.Retyped) == 0 &&
		s.CRS == nil && s.GeometryType == nil && s.PrimaryKey == nil
}

// compareSchema compares the schemas of a and b. From nothing (a the zero
// Version) nothing is a schema change: the features say it all.
func compareSchema(a, b Version) SchemaChange {
	var s SchemaChange
	if a.ID == 0 {
		return s
	}
	old := map[string]string{}
	for _, f := range a.Fields {
		old[f.Name] = f.Type
	}
	now := map[string]bool{}
	for _, f := range b.Fields {
		now[f.Name] = true
		t, ok := old[f.Name]
		switch {
		case !ok:
			s.Added = append(s.Added, f)
		case t != f.Type:
			s.Retyped = append(s.Retyped, Retyped{Name: f.Name, Old: t, New: f.Type})
		}
	}
	for _, f := range a.Fields {
		if !now[f.Name] {
			s.Removed = append(s.Removed, f)
		}
	}
	if a.CRS != b.CRS {
		s.CRS = &ValueChange{Old: a.CRS, New: b.CRS}
	}
	if a.GeometryType != b.GeometryType {
		s.GeometryType = &ValueChange{Old: a.GeometryType, New: b.GeometryType}
	}
	if !slices.Equal(a.PrimaryKey, b.PrimaryKey) {
		s.PrimaryKey = &KeyChange{Old: nonNil(a.PrimaryKey), New: nonNil(b.PrimaryKey)}
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
