package notify

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/store"
)

// Channel is the PostgreSQL notification channel; its payload is the id of
// the new notification.
const Channel = "geopub_notifications"

const (
	// liveBuffer bounds a subscriber's live feed before it falls back to
	// reading the table.
	liveBuffer = 64
	// pageSize is how many rows a subscriber reads from the table at once.
	pageSize = 100
	// retryDelay is the pause after a failed table read.
	retryDelay = time.Second
)

// Hub publishes notifications and serves subscriptions to them.
type Hub struct {
	st     *store.Store
	logger *slog.Logger

	mu   sync.Mutex
	subs map[int]map[*subscriber]struct{} // by user id

	done    chan struct{} // closed by Stop
	stop    sync.Once
	wg      sync.WaitGroup
	started atomic.Bool
	kick    chan struct{} // SQLite: a local Publish, poll soon
}

// New returns a Hub over st. Publish and Subscribe work at once; live
// delivery needs Start.
func New(st *store.Store, logger *slog.Logger) *Hub {
	if logger == nil {
		logger = slog.Default()
	}
	return &Hub{
		st:     st,
		logger: logger,
		subs:   map[int]map[*subscriber]struct{}{},
		done:   make(chan struct{}),
		kick:   make(chan struct{}, 1),
	}
}

// Start runs the listener (PostgreSQL LISTEN, or the SQLite poll) until ctx
// ends or Stop is called. It returns at once; a second call does nothing.
func (h *Hub) Start(ctx context.Context) {
	if !h.started.CompareAndSwap(false, true) {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	h.wg.Add(2)
	go func() {
		defer h.wg.Done()
		select {
		case <-h.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	go func() {
		defer h.wg.Done()
		if h.st.Dialect == dialect.Postgres {
			h.listen(ctx)
		} else {
			h.poll(ctx)
		}
	}()
}

// Stop ends the listener and every subscription, and waits for them.
func (h *Hub) Stop() {
	h.stop.Do(func() { close(h.done) })
	h.wg.Wait()
}

// subscriber is one Subscribe call.
type subscriber struct {
	userID int
	live   chan *ent.Notification
	lagged atomic.Bool   // live rows were dropped: read the table
	wake   chan struct{} // cap 1: look at lagged
}

// Subscribe delivers every notification of userID with an id above after,
// in id order and without gaps: first those already stored, then new ones
// as they are published. The channel closes when ctx ends or the Hub stops.
// A consumer that falls behind is served from the table, never skipped.
func (h *Hub) Subscribe(ctx context.Context, userID int, after int64) <-chan *ent.Notification {
	out := make(chan *ent.Notification)
	s := &subscriber{userID: userID, live: make(chan *ent.Notification, liveBuffer), wake: make(chan struct{}, 1)}
	// Registered before the first table read, so nothing committed in
	// between is missed; duplicates are dropped by the cursor.
	h.add(s)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(out)
		defer h.remove(s)
		h.serve(ctx, s, out, after)
	}()
	return out
}

func (h *Hub) serve(ctx context.Context, s *subscriber, out chan<- *ent.Notification, cursor int64) {
	send := func(n *ent.Notification) bool {
		select {
		case out <- n:
			return true
		case <-ctx.Done():
		case <-h.done:
		}
		return false
	}
	backlog := true
	for {
		if backlog {
			rows, err := h.st.Client.Notification.Query().
				Where(notification.UserID(s.userID), notification.IDGT(int(cursor))).
				Order(notification.ByID()).Limit(pageSize).All(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				h.logger.WarnContext(ctx, "notify: reading notifications", "user_id", s.userID, "err", err)
				select {
				case <-time.After(retryDelay):
					continue
				case <-ctx.Done():
				case <-h.done:
				}
				return
			}
			for _, n := range rows {
				if !send(n) {
					return
				}
				cursor = int64(n.ID)
			}
			if len(rows) == pageSize {
				continue
			}
			backlog = false
		}
		select {
		case <-ctx.Done():
			return
		case <-h.done:
			return
		case <-s.wake:
			backlog = s.resync()
		case n := <-s.live:
			if s.resync() {
				backlog = true
				continue
			}
			if int64(n.ID) > cursor {
				if !send(n) {
					return
				}
				cursor = int64(n.ID)
			}
		}
	}
}

// resync reports whether the live feed lost rows; if so it clears the flag
// and the buffer, and the caller reads the table instead.
func (s *subscriber) resync() bool {
	if !s.lagged.Swap(false) {
		return false
	}
	for {
		select {
		case <-s.live:
		default:
			return true
		}
	}
}

func (h *Hub) add(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.subs[s.userID]
	if m == nil {
		m = map[*subscriber]struct{}{}
		h.subs[s.userID] = m
	}
	m[s] = struct{}{}
}

func (h *Hub) remove(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[s.userID], s)
	if len(h.subs[s.userID]) == 0 {
		delete(h.subs, s.userID)
	}
}

// dispatch hands a committed row to its user's subscribers without ever
// blocking: a full buffer marks the subscriber lagged instead.
func (h *Hub) dispatch(n *ent.Notification) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[n.UserID] {
		select {
		case s.live <- n:
		default:
			s.lagged.Store(true)
			s.signal()
		}
	}
}

// resyncAll sends every subscriber back to the table: signals may have
// been missed (a listener connection was down).
func (h *Hub) resyncAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.subs {
		for s := range m {
			s.lagged.Store(true)
			s.signal()
		}
	}
}

// subscribed reports whether anyone in this process listens.
func (h *Hub) subscribed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

func (s *subscriber) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
