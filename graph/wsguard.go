package graph

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/geopub/geopub/internal/auth"
)

// CloseForbidden is the graphql-transport-ws close code for a connection
// whose credentials no longer allow what it does (a token lost a scope).
const CloseForbidden = 4403

// guardedWebsocket is gqlgen's websocket transport (graphql-transport-ws
// and the legacy graphql-ws) whose connections live only as long as their
// credentials: after connection_init the principal is watched (auth.Watch)
// and, once it is revoked, the connection closes with CloseUnauthorized or
// CloseForbidden, its subscriptions with it. Idle connections get a
// heartbeat every heartbeat: graphql-transport-ws pings, graphql-ws "ka".
type guardedWebsocket struct {
	r         *Resolver
	heartbeat time.Duration
}

var _ graphql.Transport = guardedWebsocket{}

func (guardedWebsocket) Supports(r *http.Request) bool { return r.Header.Get("Upgrade") != "" }

func (t guardedWebsocket) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	var watched atomic.Pointer[context.Context] // the watched connection context, once initialised
	var stop context.CancelFunc
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	ws := transport.Websocket{
		Implementation: revocableImplementation{watched: &watched},
		// The pings need no pong in time: a client that reads late is not
		// cut off (dead peers fail the writes).
		PingPongInterval: t.heartbeat, MissingPongOk: true,
		KeepAlivePingInterval: t.heartbeat,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			ctx, ack, err := t.r.websocketInit(ctx, p)
			if err != nil {
				return ctx, ack, err
			}
			ctx, stop = t.r.Auth.Watch(ctx, auth.FromContext(ctx))
			watched.Store(&ctx)
			return ctx, ack, nil
		},
	}
	ws.Do(w, r, exec)
}

// revocableImplementation accepts connections whose close, once their
// watched context was revoked, carries the revocation's code.
type revocableImplementation struct {
	watched *atomic.Pointer[context.Context]
}

func (i revocableImplementation) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := transport.CoderWebsocketImplementation{}.Accept(w, r, opts)
	if err != nil {
		return nil, err
	}
	return revocableConn{WebsocketConn: c, watched: i.watched}, nil
}

type revocableConn struct {
	transport.WebsocketConn
	watched *atomic.Pointer[context.Context]
}

// WriteClose replaces gqlgen's close on a cancelled connection (1000
// "terminated") by 4401 Unauthorized or 4403 Forbidden when a revocation
// cancelled it.
func (c revocableConn) WriteClose(code int, message string) error {
	if ctx := c.watched.Load(); ctx != nil {
		if rv := auth.RevokedFrom(*ctx); rv != nil {
			code, message = CloseUnauthorized, "Unauthorized"
			if rv.Status == http.StatusForbidden {
				code, message = CloseForbidden, "Forbidden"
			}
		}
	}
	return c.WebsocketConn.WriteClose(code, message)
}

func (c revocableConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

func (c revocableConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
