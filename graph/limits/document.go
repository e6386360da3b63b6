package limits

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/geopub/geopub/internal/apperr"
)

// Document is the gqlgen extension that measures a query document before
// gqlgen parses and validates it: bytes, tokens, then, on a parse bounded
// by those, fragments, directives, aliases, fields with fragments expanded
// and repeats of one response name in a selection set. Documents already
// in Cache (gqlgen's parsed-query cache: they passed these checks before)
// are not measured again.
type Document struct {
	Limits Limits
	Cache  graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = Document{}

// ExtensionName names the extension in gqlgen's list.
func (Document) ExtensionName() string { return "DocumentLimits" }

// Validate accepts every schema.
func (Document) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters refuses a document over a limit. Documents
// that do not parse are left to gqlgen, which reports where.
func (d Document) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	q := p.Query
	if q == "" {
		return nil
	}
	if d.Cache != nil {
		if _, ok := d.Cache.Get(ctx, q); ok {
			return nil
		}
	}
	return d.Limits.checkDocument(q)
}

// checkDocument measures the query document q.
func (l Limits) checkDocument(q string) *gqlerror.Error {
	if l.MaxDocumentBytes > 0 && len(q) > l.MaxDocumentBytes {
		return refuse(CodeDocumentTooLarge, "The GraphQL document is %s long; at most %s are allowed. Pass large values as variables.",
			apperr.ByteSize(int64(len(q))), apperr.ByteSize(int64(l.MaxDocumentBytes)))
	}
	if l.MaxTokens > 0 {
		n, ok := countTokens(q, l.MaxTokens)
		if !ok {
			return nil // a lexical error: gqlgen reports it
		}
		if n > l.MaxTokens {
			return refuse(CodeDocumentTooLarge, "The GraphQL document has more than %d tokens; at most %d are allowed.", l.MaxTokens, l.MaxTokens)
		}
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		return nil // gqlgen parses again and reports the error
	}
	if l.MaxFragments > 0 && len(doc.Fragments) > l.MaxFragments {
		return refuse(CodeDocumentTooLarge, "The GraphQL document defines %d fragments; at most %d are allowed.", len(doc.Fragments), l.MaxFragments)
	}
	var w written
	w.document(doc)
	if l.MaxDirectives > 0 && w.directives > l.MaxDirectives {
		return refuse(CodeDocumentTooLarge, "The GraphQL document uses %d directives; at most %d are allowed.", w.directives, l.MaxDirectives)
	}
	if l.MaxAliases > 0 && w.aliases > l.MaxAliases {
		return refuse(CodeAliasLimit, "The GraphQL document uses %d aliases; at most %d are allowed.", w.aliases, l.MaxAliases)
	}
	e := newExpansion(doc, l.MaxFields)
	if l.MaxFields > 0 {
		if n := e.total(); n > l.MaxFields {
			return refuse(CodeFieldLimit, "The GraphQL document selects more than %d fields once its fragments are expanded; at most %d are allowed.", l.MaxFields, l.MaxFields)
		}
	}
	if l.MaxRepeats > 0 {
		if name, n := e.mostRepeated(); n > l.MaxRepeats {
			return refuse(CodeFieldLimit, "The GraphQL document selects %q %d times in one selection set; at most %d are allowed.", name, n, l.MaxRepeats)
		}
	}
	return nil
}

// refuse builds the error of a refused document.
func refuse(code, format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: map[string]any{"code": code}}
}

// countTokens counts the lexical tokens of q, stopping after max+1. ok is
// false when q does not lex.
func countTokens(q string, max int) (n int, ok bool) {
	lx := lexer.New(&ast.Source{Input: q})
	for n <= max {
		tok, err := lx.ReadToken()
		if err != nil {
			return n, false
		}
		if tok.Kind == lexer.EOF {
			return n, true
		}
		n++
	}
	return n, true
}

// written counts what the document spells out, fragments once each.
type written struct{ aliases, directives int }

func (w *written) document(doc *ast.QueryDocument) {
	for _, op := range doc.Operations {
		w.directives += len(op.Directives)
		for _, v := range op.VariableDefinitions {
			w.directives += len(v.Directives)
		}
		w.set(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		w.directives += len(f.Directives)
		w.set(f.SelectionSet)
	}
}

func (w *written) set(ss ast.SelectionSet) {
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" && s.Alias != s.Name {
				w.aliases++
			}
			w.directives += len(s.Directives)
			w.set(s.SelectionSet)
		case *ast.InlineFragment:
			w.directives += len(s.Directives)
			w.set(s.SelectionSet)
		case *ast.FragmentSpread:
			w.directives += len(s.Directives)
		}
	}
}
