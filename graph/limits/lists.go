package limits

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
// lists of the schema and are not counted. It also refuses input objects
// nested deeper than MaxInputDepth (where: {not: {not: ...}}), literal or
// in variables, which MaxDepth does not see, with DEPTH_LIMIT_EXCEEDED:
// each level becomes a level of the SQL expression, which SQLite and
// PostgreSQL refuse past a depth as an internal error.
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
// argument or an argument nesting input objects too deep.
func (l Lists) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || (l.Limits.MaxListLength <= 0 && l.Limits.MaxInputDepth <= 0) {
		return nil
	}
	c := listCheck{max: l.Limits.MaxListLength, maxDepth: l.Limits.MaxInputDepth, schema: l.Schema, vars: oc.Variables,
		seen: map[*ast.FragmentDefinition]bool{}}
	c.set(oc.Operation.SelectionSet)
	return c.err
}

type listCheck struct {
	max, maxDepth int
	schema        *ast.Schema
	vars          map[string]any
	seen          map[*ast.FragmentDefinition]bool
	err           *gqlerror.Error
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

// The problems value finds.
type inputProblem int

const (
	inputOK inputProblem = iota
	inputLongList
	inputTooDeep
)

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
		switch c.value(def.Type, v, 0) {
		case inputLongList:
			c.err = refuse(CodeBadRequest, "The argument %s of %s holds a list longer than %d items.", a.Name, f.Name, c.max)
		case inputTooDeep:
			c.err = refuse(CodeDepthLimit, "The argument %s of %s nests input objects more than %d levels deep.", a.Name, f.Name, c.maxDepth)
		default:
			continue
		}
		c.err.Path = ast.Path{ast.PathName(f.Alias)}
		return
	}
}

// value checks v, of type t, found inside depth input objects: no list
// longer than max, no input object deeper than maxDepth.
func (c *listCheck) value(t *ast.Type, v any, depth int) inputProblem {
	if t == nil || v == nil {
		return inputOK
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return c.value(t.Elem, v, depth) // a single value stands for a list of one
		}
		if c.max > 0 && len(list) > c.max {
			return inputLongList
		}
		for _, e := range list {
			if p := c.value(t.Elem, e, depth); p != inputOK {
				return p
			}
		}
		return inputOK
	}
	def := c.schema.Types[t.NamedType]
	obj, ok := v.(map[string]any)
	if def == nil || def.Kind != ast.InputObject || !ok {
		return inputOK
	}
	if depth++; c.maxDepth > 0 && depth > c.maxDepth {
		return inputTooDeep
	}
	for k, fv := range obj {
		if fd := def.Fields.ForName(k); fd != nil {
			if p := c.value(fd.Type, fv, depth); p != inputOK {
				return p
			}
		}
	}
	return inputOK
}
