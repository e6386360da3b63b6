package graph

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// eventIDs hands the SSE transport the id of each notification a
// subscription yields, in order: gqlgen turns each value into one result,
// and the transport takes one id per result. The ids are notification
// ids, the same on every replica, so Last-Event-ID resumes anywhere.
type eventIDs struct {
	mu sync.Mutex
	q  []int
}

func (e *eventIDs) push(id int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.q = append(e.q, id)
}

// take returns the id of the oldest result not yet written, 0 when the
// result carries none.
func (e *eventIDs) take() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.q) == 0 {
		return 0
	}
	id := e.q[0]
	e.q = e.q[1:]
	return id
}

// relay passes in on, recording each id before the value is handed over.
func (e *eventIDs) relay(ctx context.Context, in <-chan *ent.Notification) <-chan *ent.Notification {
	out := make(chan *ent.Notification)
	go func() {
		defer close(out)
		for n := range in {
			e.push(n.ID)
			select {
			case out <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// notificationStream wraps a subscription's channel so that, over SSE,
// its results carry their ids.
func notificationStream(ctx context.Context, ch <-chan *ent.Notification) <-chan *ent.Notification {
	if ids, ok := ctx.Value(eventIDsKey).(*eventIDs); ok {
		return ids.relay(ctx, ch)
	}
	return ch
}

// lastEventID reads the event id a reconnecting client saw last: the
// Last-Event-ID header, or the LastEventIDParam query parameter. It must
// be a notification id (a non-negative integer).
func lastEventID(r *http.Request) (int, bool, error) {
	v := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	if v == "" {
		v = strings.TrimSpace(r.URL.Query().Get(LastEventIDParam))
	}
	if v == "" {
		return 0, false, nil
	}
	id, err := strconv.Atoi(v)
	if err != nil || id < 0 {
		return 0, false, apperr.New(apperr.Invalid, "Last-Event-ID must be the id of an event of this stream (a non-negative integer).")
	}
	return id, true, nil
}
