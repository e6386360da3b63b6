package rest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/geopub/geopub/internal/server/servertest"
)

const subscribeNotifications = `subscription($after: ID) { notifications(after: $after) { id kind payload createdAt } }`

type gqlNotification struct {
	ID      string         `json:"id"`
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload"`
}

// wsSubscription is a graphql-transport-ws client of the notifications
// subscription.
type wsSubscription struct {
	t    *testing.T
	conn *websocket.Conn
	ctx  context.Context
}

func subscribeWS(t *testing.T, e *env, initKey, after string) *wsSubscription {
	t.Helper()
	vars := map[string]any{}
	if after != "" {
		vars["after"] = after
	}
	return subscribeWSTo(t, e, initKey, subscribeNotifications, vars)
}

// subscribeWSTo starts a subscription to query over graphql-transport-ws.
func subscribeWSTo(t *testing.T, e *env, initKey, query string, vars map[string]any) *wsSubscription {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	url := "ws" + strings.TrimPrefix(e.HTTP.URL, "http") + "/graphql"
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	s := &wsSubscription{t: t, conn: conn, ctx: ctx}
	s.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "key " + initKey}})
	if m := s.read(); m["type"] != "connection_ack" {
		t.Fatalf("connection_init answered %v", m)
	}
	s.send(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	return s
}

func (s *wsSubscription) send(v any) {
	s.t.Helper()
	if err := wsjson.Write(s.ctx, s.conn, v); err != nil {
		s.t.Fatal(err)
	}
}

func (s *wsSubscription) read() map[string]any {
	s.t.Helper()
	for {
		var m map[string]any
		if err := wsjson.Read(s.ctx, s.conn, &m); err != nil {
			s.t.Fatalf("reading websocket: %v", err)
		}
		if m["type"] == "ping" {
			s.send(map[string]any{"type": "pong"})
			continue
		}
		return m
	}
}

// next returns the next notification, failing on anything else.
func (s *wsSubscription) next() gqlNotification {
	s.t.Helper()
	m := s.read()
	if m["type"] != "next" {
		s.t.Fatalf("websocket message %v, want next", m)
	}
	var out struct {
		Data struct {
			Notifications gqlNotification `json:"notifications"`
		} `json:"data"`
	}
	b, _ := json.Marshal(m["payload"])
	if err := json.Unmarshal(b, &out); err != nil {
		s.t.Fatal(err)
	}
	return out.Data.Notifications
}

// sseSubscription is the notifications subscription over SSE.
type sseSubscription struct {
	t    *testing.T
	body *bufio.Reader
}

// subscribeSSE subscribes by POST, or by GET with the operation in the
// query string, as a browser's EventSource does.
func subscribeSSE(t *testing.T, e *env, key, after, method string) *sseSubscription {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	vars := map[string]any{}
	if after != "" {
		vars["after"] = after
	}
	varsJSON, _ := json.Marshal(vars)
	body, _ := json.Marshal(map[string]any{"query": subscribeNotifications, "variables": vars})
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, e.HTTP.URL+"/graphql", strings.NewReader(string(body)))
	if method == http.MethodGet {
		q := url.Values{"query": {subscribeNotifications}, "variables": {string(varsJSON)}}
		r, err = http.NewRequestWithContext(ctx, http.MethodGet, e.HTTP.URL+"/graphql?"+q.Encode(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream")
	r.Header.Set("Authorization", "key "+key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("SSE answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sseSubscription{t: t, body: bufio.NewReader(resp.Body)}
}

func (s *sseSubscription) next() gqlNotification {
	s.t.Helper()
	event := ""
	for {
		line, err := s.body.ReadString('\n')
		if err != nil {
			s.t.Fatalf("reading SSE: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:") && event == "next":
			var out struct {
				Data struct {
					Notifications gqlNotification `json:"notifications"`
				} `json:"data"`
				Errors []any `json:"errors"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "data:"))), &out); err != nil {
				s.t.Fatal(err)
			}
			if len(out.Errors) > 0 {
				s.t.Fatalf("SSE errors: %v", out.Errors)
			}
			return out.Data.Notifications
		case strings.HasPrefix(line, "event:") || line == "":
		}
	}
}

// requestAndApprove has u ask to join a new group, which admin approves.
func requestAndApprove(t *testing.T, e *env, admin, u *user, name string) int {
	t.Helper()
	g := createGroup(t, e, admin, map[string]any{"name": name, "country": "NZ", "access_requests_enabled": true})
	r := e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/groups/%d/request-access/", g.ID), Key: u.Key})
	expectStatus(t, r, http.StatusAccepted)
	var ar accessRequestRecord
	r.JSON(t, &ar)
	expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/groups/%d/access-requests/%d/approve/", g.ID, ar.ID), Key: admin.Key}), http.StatusCreated)
	return g.ID
}

func checkApproved(t *testing.T, how string, n gqlNotification, groupID int) {
	t.Helper()
	if n.Kind != "access_request.approved" || n.Payload["group_id"] != float64(groupID) {
		t.Fatalf("%s: notification %+v, want approval of group %d", how, n, groupID)
	}
}

func TestNotificationSubscriptions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		carol := e.NewUser(t, "Carol")
		// A token with only notifications:read, given in connection_init
		// while the upgrade request carries no credentials.
		readKey := e.Token(t, carol.User, "notifications:read")
		ws := subscribeWS(t, e, readKey, "0")
		sse := subscribeSSE(t, e, carol.Key, "0", http.MethodPost)

		g1 := requestAndApprove(t, e, admin, carol, "First")
		first := ws.next()
		checkApproved(t, "websocket", first, g1)
		checkApproved(t, "SSE", sse.next(), g1)

		g2 := requestAndApprove(t, e, admin, carol, "Second")
		second := ws.next()
		checkApproved(t, "websocket", second, g2)
		checkApproved(t, "SSE", sse.next(), g2)

		// Resuming after the first delivers the second, then live ones.
		ws2 := subscribeWS(t, e, carol.Key, first.ID)
		sse2 := subscribeSSE(t, e, carol.Key, first.ID, http.MethodGet) // as EventSource sends it
		if n := ws2.next(); n.ID != second.ID {
			t.Fatalf("websocket resumed with %+v, want %s", n, second.ID)
		}
		if n := sse2.next(); n.ID != second.ID {
			t.Fatalf("SSE resumed with %+v, want %s", n, second.ID)
		}
		g3 := requestAndApprove(t, e, admin, carol, "Third")
		checkApproved(t, "websocket resumed", ws2.next(), g3)
		checkApproved(t, "SSE resumed", sse2.next(), g3)

		// A token without the scope is refused (gqlgen sends the resolver's
		// error as a result carrying errors, then completes).
		bad := subscribeWS(t, e, e.Token(t, carol.User, "users:read"), "")
		if m := bad.read(); (m["type"] != "error" && m["type"] != "next") || !strings.Contains(fmt.Sprint(m["payload"]), "notifications:read") {
			t.Fatalf("subscription without scope: %v", m)
		}
	})
}

func TestNotificationList(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		carol := e.NewUser(t, "Carol")
		var groups []int
		for i := range 3 {
			groups = append(groups, requestAndApprove(t, e, admin, carol, fmt.Sprint("Group ", i)))
		}
		type item struct {
			ID        int            `json:"id"`
			Kind      string         `json:"kind"`
			Payload   map[string]any `json:"payload"`
			CreatedAt time.Time      `json:"created_at"`
			ReadAt    *time.Time     `json:"read_at"`
			URL       string         `json:"url"`
		}
		var all []item
		path := "/notifications/?page_size=2"
		for page := 0; path != ""; page++ {
			r := e.Do(t, req{Path: path, Key: carol.Key})
			expectStatus(t, r, http.StatusOK)
			var items []item
			r.JSON(t, &items)
			all = append(all, items...)
			if got := r.Header.Get("X-Paginate-By"); got != "2" {
				t.Fatalf("X-Paginate-By = %q", got)
			}
			if got, want := r.Header.Get("X-Resource-Range"), fmt.Sprintf("0-%d/%d", len(items), 3-2*page); got != want {
				t.Fatalf("page %d: X-Resource-Range = %q, want %q", page, got, want)
			}
			path = ""
			for _, l := range strings.Split(r.Header.Get("Link"), ", ") {
				if strings.HasSuffix(l, `rel="page-next"`) {
					path = strings.TrimSuffix(strings.TrimPrefix(l, "<"), `>; rel="page-next"`)
					if want := "after=" + strconv.Itoa(items[len(items)-1].ID); !strings.Contains(path, want) {
						t.Fatalf("page-next %q lacks %s", path, want)
					}
				}
			}
			if page > 3 {
				t.Fatal("paging does not end")
			}
		}
		if len(all) != 3 {
			t.Fatalf("listed %d notifications, want 3", len(all))
		}
		for i, n := range all {
			if n.Kind != "access_request.approved" || n.Payload["group_id"] != float64(groups[i]) || n.ReadAt != nil ||
				n.CreatedAt.IsZero() || !strings.HasPrefix(n.URL, e.API+"/notifications/") {
				t.Fatalf("notification %d = %+v", i, n)
			}
		}
		// Other users see none of them.
		r := e.Do(t, req{Path: "/notifications/", Key: admin.Key})
		expectStatus(t, r, http.StatusOK)
		if strings.TrimSpace(string(r.Body)) != "[]" {
			t.Fatalf("admin sees %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: "/notifications/?page_size=201", Key: carol.Key}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Path: "/notifications/?after=x", Key: carol.Key}), http.StatusBadRequest)

		// Mark read up to the second.
		r = e.Do(t, req{Method: "POST", Path: "/notifications/read/", Key: carol.Key, Body: map[string]any{"up_to": all[1].ID}})
		expectStatus(t, r, http.StatusOK)
		var marked struct{ Marked int }
		r.JSON(t, &marked)
		if marked.Marked != 2 {
			t.Fatalf("marked %d, want 2", marked.Marked)
		}
		r = e.Do(t, req{Path: "/notifications/", Key: carol.Key})
		var after []item
		r.JSON(t, &after)
		if after[0].ReadAt == nil || after[1].ReadAt == nil || after[2].ReadAt != nil {
			t.Fatalf("after marking: %+v", after)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/notifications/read/", Key: carol.Key, Body: map[string]any{}}), http.StatusBadRequest)

		authMatrix(t, e, req{Path: "/notifications/"}, "notifications:read", nil)
		authMatrix(t, e, req{Method: "POST", Path: "/notifications/read/", Body: map[string]any{"up_to": 1}}, "notifications:read", nil)
	})
}
