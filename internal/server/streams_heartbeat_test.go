package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket/wsjson"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Idle subscriptions send a heartbeat every StreamHeartbeat, so that
// proxies (HAProxy, nginx: 50-60 s) do not cut them: graphql-transport-ws
// pings, graphql-ws "ka", SSE ": ping" comments. graphql-transport-ws and
// SSE used to send nothing at all.
func TestIdleStreamsHeartbeat(t *testing.T) {
	if graph.DefaultHeartbeat < 5*time.Second || graph.DefaultHeartbeat > 25*time.Second {
		t.Fatalf("DefaultHeartbeat %v, want 5-25 s", graph.DefaultHeartbeat)
	}
	const every, idle = 100 * time.Millisecond, time.Second
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.NewWith(t, st, func(c *server.Config) { c.StreamHeartbeat = every })
		u := e.NewUser(t, "Idle")
		for _, tc := range []struct{ stream, beat string }{
			{"graphql-transport-ws", "ping"}, {"graphql-ws", "ka"}, {"sse", ": ping"},
		} {
			t.Run(tc.stream, func(t *testing.T) {
				beats := 0
				if tc.stream == "sse" {
					s := openSSE(t, sseRequest(t, e, credential{key: u.Key}, ""))
					deadline := time.After(idle)
				read:
					for {
						select {
						case ev, ok := <-s.events:
							if !ok {
								t.Fatal("the stream ended")
							}
							if ev.Comment == "" {
								t.Fatalf("event %+v while idle", ev)
							}
							if strings.TrimSpace(ev.Comment) == tc.beat {
								beats++
							}
						case <-deadline:
							break read
						}
					}
				} else {
					s := dialWS(t, e, tc.stream, credential{key: u.Key})
					ctx, cancel := context.WithTimeout(s.ctx, idle)
					defer cancel()
					for {
						var m map[string]any
						if err := wsjson.Read(ctx, s.conn, &m); err != nil {
							if ctx.Err() == nil {
								t.Fatalf("reading: %v", err)
							}
							break
						}
						if m["type"] == tc.beat {
							beats++
						} else {
							t.Fatalf("message %v while idle", m)
						}
						// No pong is sent: a client that answers late is
						// not cut off.
					}
				}
				if want := int(idle/every) / 2; beats < want {
					t.Fatalf("%d heartbeats in %v, want at least %d", beats, idle, want)
				}
				t.Logf("%d heartbeats in %v", beats, idle)
			})
		}
	})
}
