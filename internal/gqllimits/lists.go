package gqllimits

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Lists is the gqlgen extension that refuses list arguments longer than
// MaxListLength (idIn filters, grant lists, ...), literal or passed in a
// variable, at any depth of input objects, with BAD_REQUEST: such a list
// would otherwise reach the database as one enormous IN (...) or as
// thousands of writes. Scalars holding JSON (geometries, maps) are not
// lists of the schema and are not counted.
type Lists struct {
	Limits Limits
	Schema *ast.Schema
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = Lists{}

// ExtensionName names the extension in gqlgen's list.
func (Lists) ExtensionName() string { return "ListLimit" }

// Validate accepts every schema.
func (Lists) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext refuses an operation with an over-long list
// argument.
func (l Lists) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || l.Limits.MaxListLength <= 0 {
		return nil
	}
	c := listCheck{max: l.Limits.MaxListLength, schema: l.Schema, vars: oc.Variables, seen: map[*ast.FragmentDefinition]bool{}}
	c.set(oc.Operation.SelectionSet)
	return c.err
}

type listCheck struct {
	max    int
	schema *ast.Schema
	vars   map[string]any
	seen   map[*ast.FragmentDefinition]bool
	err    *gqlerror.Error
}

// set checks the arguments of every field in ss; each fragment once,
// since its arguments read the same variables wherever it is spread.
func (c *listCheck) set(ss ast.SelectionSet) {
	for _, sel := range ss {
		if c.err != nil {
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			c.field(s)
			c.set(s.SelectionSet)
		case *ast.InlineFragment:
			c.set(s.SelectionSet)
		case *ast.FragmentSpread:
			if f := s.Definition; f != nil && !c.seen[f] {
				c.seen[f] = true
				c.set(f.SelectionSet)
			}
		}
	}
}

func (c *listCheck) field(f *ast.Field) {
	if f.Definition == nil {
		return
	}
	for _, a := range f.Arguments {
		def := f.Definition.Arguments.ForName(a.Name)
		if def == nil || a.Value == nil {
			continue
		}
		v, err := a.Value.Value(c.vars)
		if err != nil {
			continue // the executor reports bad values
		}
		if !c.value(def.Type, v) {
			c.err = refuse(CodeBadRequest, "The argument %s of %s holds a list longer than %d items.", a.Name, f.Name, c.max)
			c.err.Path = ast.Path{ast.PathName(f.Alias)}
			return
		}
	}
}

// value reports whether v, of type t, holds no list longer than max.
func (c *listCheck) value(t *ast.Type, v any) bool {
	if t == nil || v == nil {
		return true
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return c.value(t.Elem, v) // a single value stands for a list of one
		}
		if len(list) > c.max {
			return false
		}
		for _, e := range list {
			if !c.value(t.Elem, e) {
				return false
			}
		}
		return true
	}
	def := c.schema.Types[t.NamedType]
	obj, ok := v.(map[string]any)
	if def == nil || def.Kind != ast.InputObject || !ok {
		return true
	}
	for k, fv := range obj {
		if fd := def.Fields.ForName(k); fd != nil && !c.value(fd.Type, fv) {
			return false
		}
	}
	return true
}
