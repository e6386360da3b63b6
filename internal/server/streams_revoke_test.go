package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// revocation is a change, made straight in the database as another
// replica would make it, that must end the streams of a credential.
type revocation struct {
	name    string
	session bool // the stream signs in with a session cookie, not a key
	scope   string
	// revoke makes the change; ids are the token's or the session's.
	revoke func(t *testing.T, st *store.Store, userID, id int)
	// ws is the websocket close code, code the GraphQL error code.
	ws   websocket.StatusCode
	code string
}

var revocations = []revocation{
	{name: "token deleted", scope: "notifications:read", ws: 4401, code: "UNAUTHENTICATED",
		revoke: func(t *testing.T, st *store.Store, _, id int) {
			must(t, st.Client.Token.DeleteOneID(id).Exec(context.Background()))
		}},
	{name: "scope taken away", scope: "notifications:read users:read", ws: 4403, code: "FORBIDDEN",
		revoke: func(t *testing.T, st *store.Store, _, id int) {
			must(t, st.Client.Token.UpdateOneID(id).SetScope("users:read").Exec(context.Background()))
		}},
	{name: "user locked", scope: "notifications:read", ws: 4401, code: "UNAUTHENTICATED",
		revoke: func(t *testing.T, st *store.Store, userID, _ int) {
			must(t, st.Client.User.UpdateOneID(userID).SetIsLocked(true).Exec(context.Background()))
		}},
	{name: "session signed out", session: true, ws: 4401, code: "UNAUTHENTICATED",
		revoke: func(t *testing.T, st *store.Store, _, id int) {
			must(t, st.Client.Session.DeleteOneID(id).Exec(context.Background()))
		}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Open streams end within a second of their credential's revocation (the
// token deleted or its scope taken away, the user locked, the session
// signed out), however it was made: websockets of both protocols close
// with 4401 or 4403, SSE sends the error and completes. They used to go
// on delivering.
func TestStreamsEndOnRevocation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		for _, rv := range revocations {
			for _, stream := range []string{"graphql-transport-ws", "graphql-ws", "sse"} {
				t.Run(rv.name+"/"+stream, func(t *testing.T) {
					u := e.NewUser(t, "Reader")
					var c credential
					var id int
					if rv.session {
						value, sess := startSession(t, e, u.User)
						c.cookie, id = value, sess.ID
					} else {
						tok, key := newToken(t, e, u.User, rv.scope)
						c.key, id = key, tok.ID
					}
					if stream == "sse" {
						s := openSSE(t, sseRequest(t, e, c, ""))
						time.Sleep(100 * time.Millisecond) // subscribed
						publishTo(t, e, u.ID, "before")
						if kind, _ := s.notification(); kind != "before" {
							t.Fatalf("first notification %q", kind)
						}
						rv.revoke(t, st, u.ID, id)
						start := time.Now()
						expectSSERevoked(t, s, rv.code, start)
						return
					}
					s := dialWS(t, e, stream, c)
					time.Sleep(100 * time.Millisecond)
					publishTo(t, e, u.ID, "before")
					if kind := s.next(); kind != "before" {
						t.Fatalf("first notification %q", kind)
					}
					rv.revoke(t, st, u.ID, id)
					start := time.Now()
					if code := s.closeCode(time.Second); code != rv.ws {
						t.Fatalf("close code %d, want %d", code, rv.ws)
					}
					t.Logf("closed %v after the revocation", time.Since(start))
				})
			}
		}
	})
}

// expectSSERevoked reads the revocation's error, the completion and the
// end of the stream, within a second of start.
func expectSSERevoked(t *testing.T, s *sseStream, code string, start time.Time) {
	t.Helper()
	deadline := time.After(time.Second - time.Since(start))
	var got []sseEvent
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				if len(got) != 2 || got[0].Event != "next" || got[1].Event != "complete" {
					t.Fatalf("the stream ended with %+v, want the error and complete", got)
				}
				var out struct {
					Errors []struct {
						Extensions struct{ Code string }
					}
				}
				if err := json.Unmarshal([]byte(got[0].Data), &out); err != nil || len(out.Errors) != 1 || out.Errors[0].Extensions.Code != code {
					t.Fatalf("the error event %s, want code %s", got[0].Data, code)
				}
				t.Logf("ended %v after the revocation", time.Since(start))
				return
			}
			if ev.Comment == "" {
				got = append(got, ev)
			}
		case <-deadline:
			t.Fatalf("the stream is still open a second after the revocation; events %+v", got)
		}
	}
}
