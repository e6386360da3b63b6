package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// SSE notifications carry their notification id as the event id, and a
// client that reconnects with Last-Event-ID (the header EventSource sends,
// or the lastEventId query parameter), to this replica or another one
// over the same database, gets what it missed meanwhile, its own
// notifications only, then live ones. Events used to carry no id, and
// Last-Event-ID was ignored: a reconnecting EventSource lost them.
func TestSSEResumesFromLastEventID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		one, two := servertest.New(t, st), servertest.New(t, st) // two replicas
		carol, bob := one.NewUser(t, "Carol"), one.NewUser(t, "Bob")
		c := credential{key: carol.Key}

		first := openSSE(t, sseRequest(t, one, c, ""))
		time.Sleep(100 * time.Millisecond) // subscribed
		n1 := publishTo(t, one, carol.ID, "one")
		if kind, id := first.notification(); kind != "one" || id != strconv.Itoa(n1.ID) {
			t.Fatalf("first event %q id %q, want one id %d", kind, id, n1.ID)
		}
		first.resp.Body.Close() // the connection drops

		n2 := publishTo(t, two, carol.ID, "two")
		publishTo(t, two, bob.ID, "bob's")
		n3 := publishTo(t, one, carol.ID, "three")

		// EventSource reconnects, here to the other replica.
		again := openSSE(t, sseRequest(t, two, c, strconv.Itoa(n1.ID)))
		for _, want := range []struct {
			kind string
			id   int
		}{{"two", n2.ID}, {"three", n3.ID}} {
			if kind, id := again.notification(); kind != want.kind || id != strconv.Itoa(want.id) {
				t.Fatalf("resumed with %q id %q, want %q id %d", kind, id, want.kind, want.id)
			}
		}
		n4 := publishTo(t, one, carol.ID, "four")
		if kind, id := again.notification(); kind != "four" || id != strconv.Itoa(n4.ID) {
			t.Fatalf("live after the replay: %q id %q, want four id %d", kind, id, n4.ID)
		}

		// The query parameter form, for clients that cannot set headers.
		r := sseRequest(t, one, c, "")
		r.URL.RawQuery += "&" + graph.LastEventIDParam + "=" + strconv.Itoa(n3.ID)
		if kind, id := openSSE(t, r).notification(); kind != "four" || id != strconv.Itoa(n4.ID) {
			t.Fatalf("resumed by %s with %q id %q, want four", graph.LastEventIDParam, kind, id)
		}

		// An id that is not one is refused with 400 and a message.
		for _, bad := range []string{"abc", "-1", "99999999999999999999999"} {
			resp, err := http.DefaultClient.Do(sseRequest(t, two, c, bad))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var out struct{ Errors []struct{ Message string } }
			_ = json.Unmarshal(body, &out)
			if resp.StatusCode != http.StatusBadRequest || len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, "Last-Event-ID") {
				t.Fatalf("Last-Event-ID %q: %d %s", bad, resp.StatusCode, body)
			}
		}
	})
}
