package notify

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/internal/freshcache"
	"github.com/geopub/geopub/internal/store"
)

// Reconnection backoff of the PostgreSQL listener.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 10 * time.Second
)

// listen follows the PostgreSQL channel on a dedicated connection until
// ctx ends, reconnecting with exponential backoff.
func (h *Hub) listen(ctx context.Context) {
	backoff := minBackoff
	for {
		connected, err := h.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if connected {
			backoff = minBackoff
		}
		h.logger.WarnContext(ctx, "notify: listener connection lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// listenOnce takes a connection out of the pool for good, LISTENs on it
// and dispatches notifications until it fails; access changes
// (store.AccessChannel) empty this process's fresh caches. connected reports whether
// LISTEN succeeded.
func (h *Hub) listenOnce(ctx context.Context) (connected bool, err error) {
	conn, err := h.st.DB.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("notify: unexpected driver connection %T", dc)
		}
		pc := sc.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+Channel+"; LISTEN "+store.AccessChannel); err != nil {
			return errors.Join(err, driver.ErrBadConn)
		}
		connected = true
		// Whatever committed while nobody listened is in the table, and
		// access may have changed meanwhile.
		freshcache.Invalidate()
		h.resyncAll()
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				// The connection holds LISTEN state: never reuse it.
				return errors.Join(err, driver.ErrBadConn)
			}
			if n.Channel == store.AccessChannel {
				// Another process changed who may see what: this
				// process's remembered decisions are gone.
				freshcache.Invalidate()
				continue
			}
			h.deliver(ctx, n.Payload)
		}
	})
	return connected, err
}

// deliver loads the notification a NOTIFY names and dispatches it.
func (h *Hub) deliver(ctx context.Context, payload string) {
	if !h.subscribed() {
		return
	}
	id, err := strconv.Atoi(payload)
	if err != nil {
		h.logger.WarnContext(ctx, "notify: ignoring malformed payload", "payload", payload)
		return
	}
	n, err := h.st.Client.Notification.Get(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			h.logger.WarnContext(ctx, "notify: loading notification", "id", id, "err", err)
			h.resyncAll()
		}
		return
	}
	h.dispatch(n)
}
