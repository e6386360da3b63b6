package apidoc

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"
)

// Schema is a JSON Schema (2020-12) object.
type Schema map[string]any

// Ref is a schema referring to the component named name.
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// Nullable is s or null.
func Nullable(s Schema) Schema { return Schema{"anyOf": []any{s, Schema{"type": "null"}}} }

// String, Integer, Boolean and Object are the plain schemas.
var (
	String  = Schema{"type": "string"}
	Integer = Schema{"type": "integer"}
	Boolean = Schema{"type": "boolean"}
	Object  = Schema{"type": "object"}
)

// ArrayOf is an array of items.
func ArrayOf(items Schema) Schema { return Schema{"type": "array", "items": items} }

// Schemer is a value that states its own schema, for bodies whose shape a
// Go type does not show (a field holding a URL or an inlined object).
type Schemer interface{ APISchema() Schema }

var (
	timeType    = reflect.TypeFor[time.Time]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	schemerType = reflect.TypeFor[Schemer]()
)

// reflector turns Go types into schemas, adding each named struct type to
// the components once.
type reflector struct {
	components map[string]Schema
	names      map[reflect.Type]string
	// request is set while reflecting a request body: its decoders take
	// any subset of the fields, so none is listed as required.
	request bool
}

func newReflector() *reflector {
	return &reflector{components: map[string]Schema{}, names: map[reflect.Type]string{}}
}

// schemaOf returns the schema of v: a Schema as it is, else the schema
// reflected from v's type.
func (rf *reflector) schemaOf(v any) Schema {
	switch v := v.(type) {
	case Schema:
		return v
	case nil:
		return Schema{}
	}
	return rf.typeSchema(reflect.TypeOf(v))
}

func (rf *reflector) typeSchema(t reflect.Type) Schema {
	if t.Implements(schemerType) {
		return reflect.Zero(t).Interface().(Schemer).APISchema()
	}
	switch t {
	case timeType:
		return Schema{"type": "string", "format": "date-time"}
	case rawType:
		return Schema{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(rf.typeSchema(t.Elem()))
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return Schema{"type": "string", "contentEncoding": "base64"}
		}
		// encoding/json writes a nil slice as null.
		return Schema{"type": []any{"array", "null"}, "items": rf.typeSchema(t.Elem())}
	case reflect.Map:
		return Schema{"type": "object", "additionalProperties": rf.typeSchema(t.Elem())}
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		return rf.structRef(t)
	}
	panic(fmt.Sprintf("apidoc: no schema for %s", t))
}

// requestSchemaOf is schemaOf for a request body.
func (rf *reflector) requestSchemaOf(v any) Schema {
	rf.request = true
	defer func() { rf.request = false }()
	return rf.schemaOf(v)
}

// structRef adds a named struct to the components and refers to it; an
// anonymous struct is inlined.
func (rf *reflector) structRef(t reflect.Type) Schema {
	if t.Name() == "" {
		return rf.structSchema(t)
	}
	if name, ok := rf.names[t]; ok {
		return Ref(name)
	}
	name := componentName(t)
	for other, n := range rf.names {
		if n == name {
			panic(fmt.Sprintf("apidoc: %s and %s would both be component %s", t, other, name))
		}
	}
	rf.names[t] = name
	rf.components[name] = rf.structSchema(t)
	return Ref(name)
}

// structSchema lists the JSON fields of t as encoding/json writes them:
// embedded structs' fields inline, "-" and unexported fields left out,
// omitempty fields not required.
func (rf *reflector) structSchema(t reflect.Type) Schema {
	props := map[string]any{}
	var required []string
	rf.addFields(t, props, &required)
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 && !rf.request {
		s["required"] = required
	}
	return s
}

func (rf *reflector) addFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				rf.addFields(ft, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := rf.typeSchema(f.Type)
		if d := f.Tag.Get("doc"); d != "" {
			s = Schema{"allOf": []any{s}, "description": d}
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// componentName names a Go type's component: the type's name with a
// capital first letter and without a JSON suffix (groupJSON is Group).
func componentName(t reflect.Type) string {
	n := strings.TrimSuffix(t.Name(), "JSON")
	if n == "" {
		n = t.Name()
	}
	r := []rune(n)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
