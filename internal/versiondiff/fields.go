package versiondiff

import (
	"context"
	"reflect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/metadata"
)

// Field is one named value of a version's metadata (a title, a list of
// tags, a licence id; nil when the version has none).
type Field struct {
	Name  string
	Value any
}

// FieldChange is a metadata field whose value differs between two
// versions: its value in the older and in the newer.
type FieldChange struct {
	Name string `json:"name"`
	Old  any    `json:"old"`
	New  any    `json:"new"`
}

// CompareFields lists the fields whose values differ from old to new, in
// new's order. Both list the same fields (a field missing from one side
// counts as nil there); an empty list or text and nil are the same
// value, so a version without tags and one with none stored agree.
func CompareFields(old, new []Field) []FieldChange {
	before := make(map[string]any, len(old))
	for _, f := range old {
		before[f.Name] = f.Value
	}
	out := []FieldChange{}
	for _, f := range new {
		o := before[f.Name]
		if !sameValue(o, f.Value) {
			out = append(out, FieldChange{Name: f.Name, Old: o, New: f.Value})
		}
	}
	return out
}

// sameValue compares two field values, an empty list or text equal to
// nil.
func sameValue(a, b any) bool {
	if empty(a) && empty(b) {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func empty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.Len() == 0
	case reflect.Slice:
		return rv.Len() == 0
	case reflect.Pointer:
		return rv.IsNil()
	}
	return false
}

// DocumentFields are a version's metadata document as fields to compare:
// its format and the title, abstract and keywords extracted from it
// (each nil when the version has no document). The XML itself is not
// compared: a document re-uploaded unchanged in substance is no change.
func DocumentFields(d *ent.MetadataDocument) []Field {
	if d == nil {
		return []Field{{Name: "metadata.format"}, {Name: "metadata.title"}, {Name: "metadata.abstract"}, {Name: "metadata.keywords"}}
	}
	return []Field{{"metadata.format", string(d.Format)}, {"metadata.title", d.Title}, {"metadata.abstract", d.Abstract},
		{"metadata.keywords", d.Keywords}}
}

// CompareMetadata compares the metadata of two versions of a dataset of
// kind (metadata.KindSet, KindItem): the fields fieldsOf gives of each,
// then its metadata document's (DocumentFields). from nil is nothing:
// every field set in to is new. versionID gives a version's id.
func CompareMetadata[V any](ctx context.Context, c *ent.Client, kind string, from, to *V, versionID func(*V) int, fieldsOf func(*V) []Field) ([]FieldChange, error) {
	read := func(v *V) ([]Field, error) {
		doc, err := metadata.Document(ctx, c, kind, versionID(v))
		if err != nil {
			return nil, err
		}
		return append(fieldsOf(v), DocumentFields(doc)...), nil
	}
	var old []Field
	if from != nil {
		var err error
		if old, err = read(from); err != nil {
			return nil, err
		}
	}
	now, err := read(to)
	if err != nil {
		return nil, err
	}
	return CompareFields(old, now), nil
}
