package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// sseGET serves GraphQL over server-sent events to a browser's
// EventSource, which can only send GET: a GET with Accept:
// text/event-stream carries the operation in its query string (query,
// variables and extensions as JSON, operationName), and is answered as
// gqlgen's SSE transport answers the same operation POSTed.
type sseGET struct{ sse transport.SSE }

var _ graphql.Transport = sseGET{}

func (sseGET) Supports(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

func (t sseGET) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	q := r.URL.Query()
	params := map[string]any{"query": q.Get("query")}
	if name := q.Get("operationName"); name != "" {
		params["operationName"] = name
	}
	for _, key := range []string{"variables", "extensions"} {
		raw := q.Get(key)
		if raw == "" {
			continue
		}
		if !json.Valid([]byte(raw)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"message": key + " must be JSON"}}})
			return
		}
		params[key] = json.RawMessage(raw)
	}
	body, err := json.Marshal(params)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	post := r.Clone(r.Context())
	post.Method = http.MethodPost
	post.Header.Set("Content-Type", "application/json")
	post.Body = io.NopCloser(bytes.NewReader(body))
	post.ContentLength = int64(len(body))
	t.sse.Do(w, post, exec)
}
