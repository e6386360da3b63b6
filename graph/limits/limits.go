// Package limits bounds what one GraphQL operation may cost before
// gqlgen spends anything on it: the request body is capped before it is
// read, the document is measured (bytes, tokens, fields after fragments
// expand, repeats of one field, aliases, directives, fragments) before it
// is validated, and nesting, list arguments and the nesting of input
// objects (variables included) are checked before the operation runs. Every refusal is immediate and names the limit with a
// stable extensions.code.
//
// Validation is what makes the pre-check necessary: the rule that fields
// of one selection set can be merged compares every pair of fields with
// the same response name, so a document repeating one field n times costs
// O(n²) before any complexity limit sees it.
package limits

import "github.com/99designs/gqlgen/graphql/errcode"

// Limits are the bounds on one operation. The zero value of a field
// turns that check off.
type Limits struct {
	// MaxBodyBytes caps the HTTP request body of a POST to /graphql.
	MaxBodyBytes int64
	// MaxDocumentBytes caps the query document's length.
	MaxDocumentBytes int
	// MaxTokens caps the number of lexical tokens of the document.
	MaxTokens int
	// MaxFields caps the selections of the operation with every fragment
	// spread expanded where it is used.
	MaxFields int
	// MaxRepeats caps how often one response name (field or alias) is
	// selected in one selection set, fragments included.
	MaxRepeats int
	// MaxAliases caps the aliases written in the document.
	MaxAliases int
	// MaxDirectives caps the directives written in the document.
	MaxDirectives int
	// MaxFragments caps the fragment definitions of the document.
	MaxFragments int
	// MaxDepth caps how deeply the selections of an operation nest,
	// introspection excluded.
	MaxDepth int
	// MaxIntrospectionDepth caps the nesting of __schema and __type
	// selections. The validator already limits how deeply their list
	// fields (fields, interfaces, possibleTypes, inputFields) nest, to 3;
	// this bounds the cheap ofType chains the standard introspection
	// queries use (graphql-js nests nine).
	MaxIntrospectionDepth int
	// MaxListLength caps every list an argument carries, literal or from a
	// variable, at any depth of input objects.
	MaxListLength int
	// MaxInputDepth caps how deeply input objects nest in an argument,
	// literal or from a variable (where: {not: {and: [{not: ...}]}}).
	MaxInputDepth int
}

// Default are the limits Geopub serves with.
var Default = Limits{
	// The largest legitimate bodies carry a metadata document (at most
	// 10 MiB of XML, escaped in JSON) in a variable.
	MaxBodyBytes:          16 << 20,
	MaxDocumentBytes:      64 << 10,
	MaxTokens:             10000,
	MaxFields:             1500,
	MaxRepeats:            50,
	MaxAliases:            200,
	MaxDirectives:         200,
	MaxFragments:          100,
	MaxDepth:              12,
	MaxIntrospectionDepth: 24,
	MaxListLength:         1000,
	MaxInputDepth:         16,
}

// The extensions.code values of refusals.
const (
	// CodeBodyTooLarge answers a body over MaxBodyBytes (HTTP 413).
	CodeBodyTooLarge = "PAYLOAD_TOO_LARGE"
	// CodeDocumentTooLarge answers a document over MaxDocumentBytes,
	// MaxTokens, MaxDirectives or MaxFragments.
	CodeDocumentTooLarge = "DOCUMENT_TOO_LARGE"
	// CodeFieldLimit answers a document over MaxFields or MaxRepeats.
	CodeFieldLimit = "FIELD_LIMIT_EXCEEDED"
	// CodeAliasLimit answers a document over MaxAliases.
	CodeAliasLimit = "ALIAS_LIMIT_EXCEEDED"
	// CodeDepthLimit answers an operation, or an argument's input
	// objects, nesting too deep.
	CodeDepthLimit = "DEPTH_LIMIT_EXCEEDED"
	// CodeBadRequest answers a list argument over MaxListLength, as any
	// other invalid input is answered.
	CodeBadRequest = "BAD_REQUEST"
)

func init() {
	// Refusals of the document are protocol errors, like parse and
	// validation failures: HTTP 422 (400 for graphql-response+json).
	for _, c := range []string{CodeDocumentTooLarge, CodeFieldLimit, CodeAliasLimit, CodeDepthLimit} {
		errcode.RegisterErrorType(c, errcode.KindProtocol)
	}
}
