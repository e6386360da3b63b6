package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// Limits on one GraphQL operation.
const (
	// MaxComplexity bounds the estimated cost of an operation.
	MaxComplexity = 5000
	// MaxDepth bounds how deeply selections nest.
	MaxDepth = 12
)

// NewHandler builds the GraphQL server over r with the transports Geopub
// serves (POST, GET, websocket graphql-transport-ws, SSE), a query cache,
// complexity and depth limits, and an error presenter that shows callers
// only safe messages with a stable extensions.code.
func NewHandler(r *Resolver, logger *slog.Logger) http.Handler {
	srv := handler.New(NewSchema(r))
	srv.AddTransport(transport.SSE{})
	srv.AddTransport(transport.Websocket{KeepAlivePingInterval: 10 * time.Second, InitFunc: r.websocketInit})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(depthLimit{max: MaxDepth})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		return presentError(ctx, err, logger)
	})
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		logger.ErrorContext(ctx, "graphql resolver panicked", "panic", fmt.Sprint(v))
		return apperr.New(apperr.Internal, "Internal server error.")
	})
	return srv
}

// presentError maps an error to what the caller sees: apperr messages and
// codes, gqlgen's own validation errors as they are, anything else an
// internal error whose detail only the log gets.
func presentError(ctx context.Context, err error, logger *slog.Logger) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var e *apperr.Error
	if errors.As(err, &e) {
		gqlErr.Message = e.Message
		ext := map[string]any{"code": string(e.Code)}
		if len(e.Fields) > 0 {
			ext["fields"] = e.Fields
		}
		gqlErr.Extensions = ext
		if e.Code == apperr.Internal {
			logger.ErrorContext(ctx, "graphql internal error", "path", gqlErr.Path.String(), "err", err)
		}
		return gqlErr
	}
	var parsed *gqlerror.Error
	if errors.As(err, &parsed) && parsed.Err == nil {
		// A parse or validation error of the operation: safe to show.
		return gqlErr
	}
	logger.ErrorContext(ctx, "graphql internal error", "path", gqlErr.Path.String(), "err", err)
	gqlErr.Message = "Internal server error."
	gqlErr.Extensions = map[string]any{"code": string(apperr.Internal)}
	return gqlErr
}

// depthLimit rejects operations whose selections nest deeper than max.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string { return "DepthLimit" }

func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, 0); depth > d.max {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("operation nests %d levels deep; at most %d are allowed", depth, d.max),
			Extensions: map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"},
		}
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, depth int) int {
	max := depth
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = depth + 1
			} else {
				d = selectionDepth(s.SelectionSet, depth+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, depth)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				d = selectionDepth(s.Definition.SelectionSet, depth)
			}
		}
		if d > max {
			max = d
		}
	}
	return max
}

// websocketInit authenticates a websocket connection: an Authorization
// entry of the connection_init payload ("key <token>" or "Bearer <token>")
// replaces the principal the upgrade request's headers or cookie gave.
func (r *Resolver) websocketInit(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	v := p.Authorization()
	if v == "" {
		return ctx, nil, nil
	}
	key, ok := auth.KeyFromAuthorization(v)
	if !ok {
		return ctx, nil, errors.New("unsupported Authorization scheme: use key <token> or Bearer <token>")
	}
	pr, err := r.Auth.AuthenticateKey(ctx, key, p.GetString("Referer"))
	if err != nil {
		return ctx, nil, err
	}
	return auth.WithPrincipal(ctx, pr), nil, nil
}
