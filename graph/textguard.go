package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/textrules"
)

// textGuard refuses, before gqlgen decodes them, request bodies and GET
// variables whose JSON holds an unpaired UTF-16 surrogate escape, which
// Go's decoder would silently turn into U+FFFD (textrules.CheckJSON). The
// answer is a GraphQL error with code BAD_REQUEST and HTTP status 400.
func textGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch {
		case r.Method == http.MethodPost && r.Body != nil:
			var body []byte
			body, err = io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "reading the request body failed", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			err = textrules.CheckJSON(body)
		case r.Method == http.MethodGet:
			if v := r.URL.Query().Get("variables"); v != "" {
				err = textrules.CheckJSON([]byte(v))
			}
		}
		if err != nil {
			e := apperr.As(err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{
				"message":    e.Message,
				"extensions": map[string]any{"code": string(e.Code), "fields": e.Fields},
			}}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// literalGuard refuses operations whose string literals hold an unpaired
// surrogate escape: the GraphQL parser, like Go's JSON decoder, would turn
// it into U+FFFD.
type literalGuard struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = literalGuard{}

func (literalGuard) ExtensionName() string { return "LiteralGuard" }

func (literalGuard) Validate(graphql.ExecutableSchema) error { return nil }

func (literalGuard) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if err := textrules.CheckJSON([]byte(oc.RawQuery)); err != nil {
		e := apperr.As(err)
		return &gqlerror.Error{Message: e.Message, Extensions: map[string]any{"code": string(e.Code), "fields": e.Fields}}
	}
	return nil
}
