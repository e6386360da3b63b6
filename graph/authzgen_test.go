package graph_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// The matrix's queries are generated from the schema: each root query
// field selects every scalar of what it returns and every entity field
// below it, maxHops entity fields deep, each entity field expanded once
// per query (its later occurrences, and those deeper, select the scalars
// of what they return). Operations the complexity limit refuses are split
// until they pass. So a field added to the schema is queried without the test being
// told.

// maxNesting keeps generated operations under the depth limit
// (limits.Default.MaxDepth, 12).
const maxNesting = 8

// maxHops is how many entity fields a generated path goes through before
// it selects only the scalars of what the next one returns: every entity
// field is still reached from every root that leads to it within three
// steps, and the cost of sets' member lists stays within reach.
const maxHops = 3

type queryGen struct {
	s        *ast.Schema
	entities map[string]bool // "Type.field" of entity fields
}

// sel is a generated selection set: its scalars and its object fields.
type sel struct {
	scalars []string
	kids    []kid
}

// kid is an object field (or an inline fragment) with its selection.
type kid struct {
	name string
	sel  *sel
}

func (s *sel) String() string {
	parts := append([]string{}, s.scalars...)
	for _, k := range s.kids {
		parts = append(parts, k.name+k.sel.String())
	}
	return " { " + strings.Join(parts, " ") + " }"
}

// split divides a selection the complexity limit refuses: in two halves
// of its object fields at its first branch, or, for a single chain, the chain
// without its deepest object. nil when nothing is left to divide.
func (s *sel) split() []*sel {
	switch len(s.kids) {
	case 0:
		return nil
	case 1:
		parts := s.kids[0].sel.split()
		if parts == nil {
			return []*sel{{scalars: s.scalars}}
		}
		out := make([]*sel, len(parts))
		for i, p := range parts {
			out[i] = &sel{scalars: s.scalars, kids: []kid{{s.kids[0].name, p}}}
		}
		return out
	}
	half := len(s.kids) / 2
	return []*sel{{scalars: s.scalars, kids: s.kids[:half]}, {scalars: s.scalars, kids: s.kids[half:]}}
}

// rootOp is one generated operation of a root query field.
type rootOp struct {
	field *ast.FieldDefinition
	args  map[string]any
	sel   *sel
}

// String renders the operation, declaring the arguments that are set.
func (o rootOp) String() string {
	var decl, pass []string
	names := make([]string, 0, len(o.args))
	for n := range o.args {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := o.field.Arguments.ForName(n)
		if a == nil {
			panic(fmt.Sprintf("Query.%s has no argument %s", o.field.Name, n))
		}
		decl = append(decl, "$"+n+": "+a.Type.String())
		pass = append(pass, n+": $"+n)
	}
	var sb strings.Builder
	sb.WriteString("query")
	if len(decl) > 0 {
		sb.WriteString("(" + strings.Join(decl, ", ") + ")")
	}
	sb.WriteString(" { " + o.field.Name)
	if len(pass) > 0 {
		sb.WriteString("(" + strings.Join(pass, ", ") + ")")
	}
	if o.sel != nil {
		sb.WriteString(o.sel.String())
	}
	sb.WriteString(" }")
	return sb.String()
}

// operation builds the operation of one root query field with the given
// argument values (only those set are passed).
func (g *queryGen) operation(field *ast.FieldDefinition, args map[string]any) rootOp {
	return rootOp{field: field, args: args, sel: g.selection(field.Type.Name(), 1, 1, map[string]bool{"Query." + field.Name: true})}
}

// selection is the selection set of a value of type name at the given
// nesting; nil for scalars and enums.
func (g *queryGen) selection(name string, depth, hops int, expanded map[string]bool) *sel {
	def := g.s.Types[name]
	switch def.Kind {
	case ast.Scalar, ast.Enum:
		return nil
	case ast.Union, ast.Interface:
		out := &sel{scalars: []string{"__typename"}}
		for _, p := range g.s.GetPossibleTypes(def) {
			out.kids = append(out.kids, kid{"... on " + p.Name, g.selection(p.Name, depth+1, hops, expanded)})
		}
		return out
	}
	out := &sel{scalars: []string{"__typename"}}
	for _, f := range def.Fields {
		if strings.HasPrefix(f.Name, "__") || requiresArgs(f) {
			continue
		}
		t := g.s.Types[f.Type.Name()]
		if t.Kind == ast.Scalar || t.Kind == ast.Enum {
			out.scalars = append(out.scalars, f.Name)
			continue
		}
		key := name + "." + f.Name
		switch {
		case depth >= maxNesting:
			// Too deep for anything but scalars.
		case g.entities[key] && (expanded[key] || hops >= maxHops):
			if s := g.flat(f.Type.Name(), depth+1); s != nil {
				out.kids = append(out.kids, kid{f.Name, s})
			}
		case g.entities[key]:
			expanded[key] = true
			out.kids = append(out.kids, kid{f.Name, g.selection(f.Type.Name(), depth+1, hops+1, expanded)})
		default:
			out.kids = append(out.kids, kid{f.Name, g.selection(f.Type.Name(), depth+1, hops, expanded)})
		}
	}
	return out
}

// flat selects the scalars of the entities of a type (what identifies
// them and their parents), through the edges, items or nodes of a
// connection or page; nil when there is no entity within reach.
func (g *queryGen) flat(name string, depth int) *sel {
	def := g.s.Types[name]
	if def.Fields.ForName("id") != nil {
		out := &sel{scalars: []string{"__typename"}}
		for _, f := range def.Fields {
			if t := g.s.Types[f.Type.Name()]; !requiresArgs(f) && (t.Kind == ast.Scalar || t.Kind == ast.Enum) {
				out.scalars = append(out.scalars, f.Name)
			}
		}
		return out
	}
	if depth >= maxNesting-1 {
		return nil
	}
	for _, c := range []string{"items", "nodes", "edges", "node"} {
		if f := def.Fields.ForName(c); f != nil {
			if inner := g.flat(f.Type.Name(), depth+1); inner != nil {
				return &sel{kids: []kid{{c, inner}}}
			}
		}
	}
	return nil
}

// requiresArgs: a field that cannot be selected without arguments.
func requiresArgs(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return true
		}
	}
	return false
}

// visit walks a decoded answer of a value of type name alongside the
// schema: fn gets every object with its type and its path, and reached
// every entity field that returned something.
func (g *queryGen) visit(v any, name, path string, ancestors []map[string]any,
	fn func(obj map[string]any, path string, ancestors []map[string]any), reached func(key, path string)) {
	switch x := v.(type) {
	case []any:
		for _, c := range x {
			g.visit(c, name, path+"[]", ancestors, fn, reached)
		}
	case map[string]any:
		if tn, ok := x["__typename"].(string); ok {
			name = tn
		}
		def := g.s.Types[name]
		if def == nil {
			return
		}
		fn(x, path, ancestors)
		if x["id"] != nil {
			ancestors = append(ancestors[:len(ancestors):len(ancestors)], x)
		}
		for k, c := range x {
			f := def.Fields.ForName(k)
			if f == nil {
				continue
			}
			key := name + "." + k
			if g.entities[key] && nonEmpty(c) {
				reached(key, path+"."+k)
			}
			g.visit(c, f.Type.Name(), path+"."+k, ancestors, fn, reached)
		}
	}
}

// nonEmpty: a value that holds at least one object.
func nonEmpty(v any) bool {
	found := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["id"] != nil {
				found = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return found
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
