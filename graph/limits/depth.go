package limits

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Depth is the gqlgen extension that refuses operations nesting deeper
// than MaxDepth. Introspection (__schema and __type) is measured apart
// against MaxIntrospectionDepth: the standard introspection queries of
// GraphiQL, graphql-js and code generators nest their type references
// fifteen levels deep, yet cost little, since the validator keeps their
// list fields within three levels and ofType chains are single objects.
type Depth struct{ Limits Limits }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = Depth{}

// ExtensionName names the extension in gqlgen's list.
func (Depth) ExtensionName() string { return "DepthLimit" }

// Validate accepts every schema.
func (Depth) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext refuses an operation nesting too deep.
func (d Depth) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	m := depths{}
	m.set(oc.Operation.SelectionSet, 0, false, map[*ast.FragmentDefinition]bool{})
	if max := d.Limits.MaxDepth; max > 0 && m.plain > max {
		return refuse(CodeDepthLimit, "The operation nests %d levels deep; at most %d are allowed.", m.plain, max)
	}
	if max := d.Limits.MaxIntrospectionDepth; max > 0 && m.introspection > max {
		return refuse(CodeDepthLimit, "The introspection nests %d levels deep; at most %d are allowed.", m.introspection, max)
	}
	return nil
}

// depths are the deepest nesting of ordinary and of introspection
// selections.
type depths struct{ plain, introspection int }

func (m *depths) set(ss ast.SelectionSet, depth int, intro bool, seen map[*ast.FragmentDefinition]bool) {
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			in := intro || s.Name == "__schema" || s.Name == "__type"
			d := depth + 1
			if in {
				m.introspection = max(m.introspection, d)
			} else {
				m.plain = max(m.plain, d)
			}
			if !intro && in {
				d = 1 // introspection counts from its own root
			}
			m.set(s.SelectionSet, d, in, seen)
		case *ast.InlineFragment:
			m.set(s.SelectionSet, depth, intro, seen)
		case *ast.FragmentSpread:
			if f := s.Definition; f != nil && !seen[f] {
				seen[f] = true
				m.set(f.SelectionSet, depth, intro, seen)
				delete(seen, f)
			}
		}
	}
}
