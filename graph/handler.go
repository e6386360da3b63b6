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

	"github.com/geopub/geopub/graph/limits"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// MaxComplexity bounds the estimated cost of an operation.
const MaxComplexity = 5000

// DefaultHeartbeat is how often idle streams send something when
// Options.Heartbeat is zero: below the 50-60 s after which common proxies
// (HAProxy, nginx) cut an idle connection.
const DefaultHeartbeat = 15 * time.Second

// Options tunes the handler.
type Options struct {
	// Heartbeat is how often idle streams (websockets, server-sent
	// events) send a heartbeat; default DefaultHeartbeat.
	Heartbeat time.Duration
}

// NewHandler builds the GraphQL server over r with the transports Geopub
// serves (POST, GET, websocket graphql-transport-ws and graphql-ws, SSE;
// streams end when their credential is revoked), a query cache,
// the limits of limits.Default (body size, document size and shape,
// depth, list arguments) and a complexity limit, and an error presenter
// that shows callers only safe messages with a stable extensions.code.
func NewHandler(r *Resolver, logger *slog.Logger, opts Options) http.Handler {
	bounds := limits.Default
	schema := NewSchema(r)
	queries := lru.New[*ast.QueryDocument](1000)
	srv := handler.New(schema)
	srv.AroundFields(r.guardFields(EntityFields(schema.Schema())))
	srv.AroundOperations(memoizeQueryViewers)
	heartbeat := opts.Heartbeat
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	srv.AddTransport(sseTransport{auth: r.Auth, heartbeat: heartbeat}) // before GET, which would refuse a subscription
	srv.AddTransport(guardedWebsocket{r: r, heartbeat: heartbeat})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(queries)
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	// After the persisted-query lookup, so that the document it found is
	// the one measured; before gqlgen parses and validates it.
	srv.Use(limits.Document{Limits: bounds, Cache: queries})
	srv.Use(limits.Depth{Limits: bounds})
	srv.Use(limits.Lists{Limits: bounds, Schema: schema.Schema()})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(literalGuard{})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		return presentError(ctx, err, logger)
	})
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		logger.ErrorContext(ctx, "graphql resolver panicked", "panic", fmt.Sprint(v))
		return apperr.New(apperr.Internal, "Internal server error.")
	})
	// The body cap applies before anything reads the body.
	return bounds.Body(textGuard(srv))
}

// presentError maps an error to what the caller sees: apperr messages and
// codes, gqlgen's own validation errors as they are, anything else an
// internal error whose detail only the log gets.
func presentError(ctx context.Context, err error, logger *slog.Logger) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var e *apperr.Error
	if !errors.As(err, &e) {
		// Failures apperr recognises without being told (a database out
		// of reach, a time budget spent) are presented as their codes.
		if a := apperr.As(err); a.Code != apperr.Internal {
			e = a
		}
	}
	if e != nil {
		gqlErr.Message = e.Message
		ext := map[string]any{"code": string(e.Code)}
		if len(e.Fields) > 0 {
			ext["fields"] = e.Fields
		}
		if e.RetryAfter > 0 {
			// What REST sends as Retry-After, in seconds.
			ext["retryAfter"] = e.RetryAfter
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
	if parsed != nil && inputError(ctx, parsed) {
		return presentError(ctx, asInputError(ctx, parsed), logger)
	}
	logger.ErrorContext(ctx, "graphql internal error", "path", gqlErr.Path.String(), "err", err)
	gqlErr.Message = "Internal server error."
	gqlErr.Extensions = map[string]any{"code": string(apperr.Internal)}
	return gqlErr
}

// CloseUnauthorized is the graphql-transport-ws close code for a
// connection_init whose credentials are refused. Stock clients (graphql-ws)
// treat it as fatal and stop, where a plain 1000 close made them reconnect
// at once, over and over.
const CloseUnauthorized = 4401

// websocketInit authenticates a websocket connection: an Authorization
// entry of the connection_init payload ("key <token>" or "Bearer <token>")
// replaces the principal the upgrade request's headers or cookie gave.
// Refused credentials close the socket with CloseUnauthorized.
func (r *Resolver) websocketInit(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	v := p.Authorization()
	if v == "" {
		return ctx, nil, nil
	}
	refuse := func(err error) (context.Context, *transport.InitPayload, error) {
		ctx = transport.AppendCloseReason(ctx, "Unauthorized")
		return transport.WithWebsocketCloseCode(ctx, CloseUnauthorized), nil, err
	}
	key, ok := auth.KeyFromAuthorization(v)
	if !ok {
		return refuse(errors.New("unsupported Authorization scheme: use key <token> or Bearer <token>"))
	}
	pr, err := r.Auth.AuthenticateKey(ctx, key, p.GetString("Referer"))
	if err != nil {
		return refuse(err)
	}
	return auth.WithPrincipal(ctx, pr), nil, nil
}

// memoizeQueryViewers lets a query resolve its caller's memberships once
// for all its fields' access checks. Mutations (which may change
// memberships, then resolve their payloads) and subscriptions (which
// outlive a change) resolve them afresh each time.
func memoizeQueryViewers(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Query {
		ctx = access.WithViewerMemo(ctx)
	}
	return next(ctx)
}
