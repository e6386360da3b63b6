package notify

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/notification"
)

// SQLite poll timing: idle, and for hotFor after a local Publish.
const (
	idlePoll = 500 * time.Millisecond
	hotPoll  = 20 * time.Millisecond
	hotFor   = time.Second
)

// poll watches the SQLite table for rows above the highest id seen, which
// covers other processes sharing the file and local transactions that
// commit after Publish returns.
func (h *Hub) poll(ctx context.Context) {
	var last int
	for {
		n, err := h.st.Client.Notification.Query().
			Order(notification.ByID(sql.OrderDesc())).FirstID(ctx)
		if ent.IsNotFound(err) {
			n, err = 0, nil
		}
		if err == nil {
			last = n
			break
		}
		if ctx.Err() != nil {
			return
		}
		h.logger.WarnContext(ctx, "notify: reading the newest notification", "err", err)
		select {
		case <-time.After(retryDelay):
		case <-ctx.Done():
			return
		}
	}
	h.resyncAll()
	var hotUntil time.Time
	timer := time.NewTimer(idlePoll)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.kick:
			hotUntil = time.Now().Add(hotFor)
		case <-timer.C:
		}
		rows, err := h.st.Client.Notification.Query().
			Where(notification.IDGT(last)).Order(notification.ByID()).Limit(pageSize).All(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			h.logger.WarnContext(ctx, "notify: polling notifications", "err", err)
		default:
			for _, n := range rows {
				h.dispatch(n)
				last = n.ID
			}
		}
		wait := idlePoll
		if time.Now().Before(hotUntil) || len(rows) == pageSize {
			wait = hotPoll
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}
