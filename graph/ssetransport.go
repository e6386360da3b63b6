package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// sseTransport serves GraphQL over server-sent events (graphql-sse's
// distinct connections mode): a POST of the operation as JSON, or a GET
// with it in the query string (query, operationName, and variables and
// extensions as JSON) as a browser's EventSource sends it, each with
// Accept: text/event-stream. Results are "next" events, the end a
// "complete" event. Beyond gqlgen's own SSE transport:
//
//   - notifications carry their id as the event id, and a reconnecting
//     client's Last-Event-ID (the header, or the lastEventId query
//     parameter) resumes the subscription after it, on any replica;
//   - the stream lives only as long as its credential (auth.Watch): once
//     revoked it sends the error as a "next" event and completes;
//   - an idle stream sends a ": ping" comment every heartbeat, so that
//     proxies do not cut it.
type sseTransport struct {
	auth      *auth.Service
	heartbeat time.Duration
}

var _ graphql.Transport = sseTransport{}

// LastEventIDParam is the query parameter that stands for the
// Last-Event-ID header, for clients that cannot set headers.
const LastEventIDParam = "lastEventId"

func (sseTransport) Supports(r *http.Request) bool {
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		return false
	}
	switch r.Method {
	case http.MethodGet:
		return true
	case http.MethodPost:
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		return err == nil && mediaType == "application/json"
	}
	return false
}

func (t sseTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	params, err := sseParams(r)
	if err == nil {
		var resume int
		var ok bool
		if resume, ok, err = lastEventID(r); ok {
			r = r.WithContext(withResume(r.Context(), resume))
		}
	}
	if err != nil {
		sseRefuse(w, err)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		sseRefuse(w, apperr.New(apperr.Invalid, "Streaming is not supported on this connection."))
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	ctx, stop := t.auth.Watch(r.Context(), auth.FromContext(r.Context()))
	defer stop()
	ids := &eventIDs{}
	ctx = withEventIDs(ctx, ids)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on at once
	w.WriteHeader(http.StatusOK)
	write := func(s string) {
		_, _ = io.WriteString(w, s)
		flusher.Flush()
	}
	write(":\n\n")

	rc, opErr := exec.CreateOperationContext(ctx, params)
	ctx = graphql.WithOperationContext(ctx, rc)
	if opErr != nil {
		write(nextEvent(exec.DispatchError(ctx, opErr), 0))
		write("event: complete\n\n")
		return
	}
	responses, dctx := exec.DispatchOperation(ctx, rc)
	// Results are read aside so that heartbeats go out meanwhile; the next
	// is asked for only once the last is written (gqlgen reuses its
	// buffer).
	out, written := make(chan *graphql.Response), make(chan struct{}, 1)
	go func() {
		defer close(out)
		for {
			resp := responses(dctx)
			if resp == nil {
				return
			}
			select {
			case out <- resp:
			case <-dctx.Done():
				return
			}
			select {
			case <-written:
			case <-dctx.Done():
				return
			}
		}
	}()
	beat := time.NewTicker(t.heartbeat)
	defer beat.Stop()
	for {
		select {
		case resp, ok := <-out:
			if !ok {
				if rv := auth.RevokedFrom(ctx); rv != nil {
					write(revokedEvent(rv))
				}
				write("event: complete\n\n")
				return
			}
			write(nextEvent(resp, ids.take()))
			written <- struct{}{}
			beat.Reset(t.heartbeat)
		case <-beat.C:
			write(": ping\n\n")
		case <-ctx.Done():
			if rv := auth.RevokedFrom(ctx); rv != nil {
				write(revokedEvent(rv))
				write("event: complete\n\n")
			}
			return
		}
	}
}

// sseParams reads the operation of r: the JSON body of a POST, the query
// string of a GET.
func sseParams(r *http.Request) (*graphql.RawParams, error) {
	params := &graphql.RawParams{}
	if r.Method == http.MethodGet {
		q := r.URL.Query()
		params.Query = q.Get("query")
		params.OperationName = q.Get("operationName")
		for key, into := range map[string]any{"variables": &params.Variables, "extensions": &params.Extensions} {
			if raw := q.Get(key); raw != "" {
				if err := decodeJSON(strings.NewReader(raw), into); err != nil {
					return nil, apperr.New(apperr.Invalid, "%s must be a JSON object.", key)
				}
			}
		}
		return params, nil
	}
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, apperr.New(apperr.TooLarge, "The request body exceeds %d bytes.", tooLarge.Limit)
	}
	if err != nil {
		return nil, apperr.New(apperr.Invalid, "The request body could not be read.")
	}
	if err := decodeJSON(bytes.NewReader(body), params); err != nil {
		return nil, apperr.New(apperr.Invalid, "The request body must be a JSON object with query, variables and operationName.")
	}
	return params, nil
}

func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return dec.Decode(v)
}

// sseRefuse answers a request refused before its stream starts with the
// error's status and a GraphQL error body.
func sseRefuse(w http.ResponseWriter, err error) {
	e := apperr.As(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Code.HTTPStatus())
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{
		{"message": e.Message, "extensions": map[string]any{"code": string(e.Code)}},
	}})
}

// nextEvent renders a result; id, when above 0, is its event id.
func nextEvent(resp *graphql.Response, id int) string {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(graphql.Response{Errors: gqlerror.List{{Message: "Internal server error."}}})
	}
	var sb strings.Builder
	sb.WriteString("event: next\n")
	if id > 0 {
		fmt.Fprintf(&sb, "id: %d\n", id)
	}
	fmt.Fprintf(&sb, "data: %s\n\n", b)
	return sb.String()
}

// revokedEvent is the error that ends a stream whose credential was
// revoked.
func revokedEvent(rv *auth.Revoked) string {
	code := apperr.Unauthenticated
	if rv.Status == http.StatusForbidden {
		code = apperr.PermissionDenied
	}
	return nextEvent(&graphql.Response{Errors: gqlerror.List{{
		Message: rv.Detail, Extensions: map[string]any{"code": string(code)},
	}}}, 0)
}

// streamContext is a key of the values the SSE transport hands the
// subscription resolvers.
type streamContext int

const (
	eventIDsKey streamContext = iota
	resumeKey
)

func withEventIDs(ctx context.Context, q *eventIDs) context.Context {
	return context.WithValue(ctx, eventIDsKey, q)
}

func withResume(ctx context.Context, after int) context.Context {
	return context.WithValue(ctx, resumeKey, after)
}

// resumeFrom is the Last-Event-ID a subscription resumes after, if any.
func resumeFrom(ctx context.Context) (int, bool) {
	id, ok := ctx.Value(resumeKey).(int)
	return id, ok
}
