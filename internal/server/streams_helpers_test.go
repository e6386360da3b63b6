package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server/servertest"
)

// The helpers of the stream tests: clients of the notifications
// subscription over both websocket protocols and server-sent events.

const subscribeQuery = `subscription($after: ID) { notifications(after: $after) { id kind } }`

// credential is how a stream client authenticates: an API key (sent in
// connection_init or the Authorization header) or a session cookie.
type credential struct{ key, cookie string }

// publishTo stores a notification for userID through e's hub.
func publishTo(t *testing.T, e *servertest.Env, userID int, kind string) *ent.Notification {
	t.Helper()
	n, err := e.Server.Resolver.Notify.Publish(context.Background(), e.Store.Client, userID, kind, map[string]any{"k": kind})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// startSession signs u in and returns the cookie value and the session.
func startSession(t *testing.T, e *servertest.Env, u *ent.User) (string, *ent.Session) {
	t.Helper()
	sess, value, err := e.Server.Resolver.Auth.StartSession(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return value, sess
}

// newToken creates a token of u and returns it with its key.
func newToken(t *testing.T, e *servertest.Env, u *ent.User, scope string) (*ent.Token, string) {
	t.Helper()
	tok, key, err := e.Server.Resolver.Auth.CreateToken(context.Background(), u, auth.TokenSpec{Name: "stream", Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return tok, key
}

// wsStream is a websocket client of the subscription in either protocol.
type wsStream struct {
	t      *testing.T
	conn   *websocket.Conn
	ctx    context.Context
	legacy bool // graphql-ws rather than graphql-transport-ws
}

func dialWS(t *testing.T, e *servertest.Env, protocol string, c credential) *wsStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	opts := &websocket.DialOptions{Subprotocols: []string{protocol}, HTTPHeader: http.Header{}}
	if c.cookie != "" {
		opts.HTTPHeader.Set("Cookie", auth.SessionCookie+"="+c.cookie)
	}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.HTTP.URL, "http")+"/graphql", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	s := &wsStream{t: t, conn: conn, ctx: ctx, legacy: protocol == "graphql-ws"}
	init := map[string]any{"type": "connection_init"}
	if c.key != "" {
		init["payload"] = map[string]any{"Authorization": "key " + c.key}
	}
	s.send(init)
	if m, err := s.read(); err != nil || m["type"] != "connection_ack" {
		t.Fatalf("connection_init answered %v %v", m, err)
	}
	start := map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": subscribeQuery}}
	if s.legacy {
		start["type"] = "start"
	}
	s.send(start)
	return s
}

func (s *wsStream) send(v any) {
	s.t.Helper()
	if err := wsjson.Write(s.ctx, s.conn, v); err != nil {
		s.t.Fatal(err)
	}
}

// read returns the next message, heartbeats included.
func (s *wsStream) read() (map[string]any, error) {
	var m map[string]any
	err := wsjson.Read(s.ctx, s.conn, &m)
	if err == nil && m["type"] == "ping" {
		err = wsjson.Write(s.ctx, s.conn, map[string]any{"type": "pong"})
	}
	return m, err
}

// next returns the kind of the next notification, skipping heartbeats.
func (s *wsStream) next() string {
	s.t.Helper()
	for {
		m, err := s.read()
		if err != nil {
			s.t.Fatalf("reading websocket: %v", err)
		}
		switch m["type"] {
		case "ping", "pong", "ka":
			continue
		case "next", "data":
			b, _ := json.Marshal(m["payload"])
			var out struct {
				Data struct{ Notifications struct{ Kind string } }
			}
			if err := json.Unmarshal(b, &out); err != nil {
				s.t.Fatal(err)
			}
			return out.Data.Notifications.Kind
		}
		s.t.Fatalf("websocket message %v, want a notification", m)
	}
}

// closeCode reads until the connection closes, at most within, and
// returns the close code; it fails if a notification comes first.
func (s *wsStream) closeCode(within time.Duration) websocket.StatusCode {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, within)
	defer cancel()
	for {
		var m map[string]any
		err := wsjson.Read(ctx, s.conn, &m)
		if err != nil {
			if ctx.Err() != nil {
				s.t.Fatalf("the websocket is still open %v later", within)
			}
			return websocket.CloseStatus(err)
		}
		switch m["type"] {
		case "ping":
			_ = wsjson.Write(ctx, s.conn, map[string]any{"type": "pong"})
		case "next", "data":
			s.t.Fatalf("a notification after the revocation: %v", m)
		}
	}
}

// sseEvent is one server-sent event, or a comment line.
type sseEvent = servertest.SSEEvent

// sseStream reads the events of a server-sent event stream.
type sseStream struct {
	t      *testing.T
	resp   *http.Response
	events chan sseEvent // closed at the end of the stream
}

// sseRequest makes a GET subscription request as EventSource does.
func sseRequest(t *testing.T, e *servertest.Env, c credential, lastEventID string) *http.Request {
	t.Helper()
	q := url.Values{"query": {subscribeQuery}}
	r, err := http.NewRequest(http.MethodGet, e.HTTP.URL+"/graphql?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Accept", "text/event-stream")
	if c.key != "" {
		r.Header.Set("Authorization", "key "+c.key)
	}
	if c.cookie != "" {
		r.Header.Set("Cookie", auth.SessionCookie+"="+c.cookie)
	}
	if lastEventID != "" {
		r.Header.Set("Last-Event-ID", lastEventID)
	}
	return r
}

func openSSE(t *testing.T, r *http.Request) *sseStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(r.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("SSE answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sseStream{t: t, resp: resp, events: make(chan sseEvent, 100)}
	go servertest.ReadSSE(resp.Body, s.events)
	return s
}

// event returns the next event (comments skipped) within 5 s; ok is false
// at the end of the stream.
func (s *sseStream) event() (sseEvent, bool) {
	s.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if ok && ev.Comment != "" {
				continue
			}
			return ev, ok
		case <-timeout:
			s.t.Fatal("no SSE event in 5 s")
		}
	}
}

// notification returns the kind and event id of the next event, which
// must be a notification.
func (s *sseStream) notification() (kind, id string) {
	s.t.Helper()
	ev, ok := s.event()
	if !ok || ev.Event != "next" {
		s.t.Fatalf("SSE event %+v (open %v), want a notification", ev, ok)
	}
	var out struct {
		Data struct {
			Notifications struct{ ID, Kind string }
		}
		Errors []any
	}
	if err := json.Unmarshal([]byte(ev.Data), &out); err != nil || len(out.Errors) > 0 {
		s.t.Fatalf("SSE data %s: %v", ev.Data, err)
	}
	return out.Data.Notifications.Kind, ev.ID
}
