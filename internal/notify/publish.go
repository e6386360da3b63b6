package notify

import (
	"context"
	stdsql "database/sql"
	"strconv"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/ent/user"
)

// lockClass is the first key of the advisory lock serializing the
// publishes to one user ("geop").
const lockClass = 0x67656f70

// Publish stores a notification for userID through c and signals the
// listeners once it commits. Pass a transaction-bound client (ent.Tx's
// Client, or the one store.InTx gives) so the notification commits or rolls
// back with the change it reports; given the store's own client (or nil),
// Publish runs its own transaction.
//
// A nil Hub only stores the row.
func (h *Hub) Publish(ctx context.Context, c *ent.Client, userID int, kind string, payload map[string]any) (*ent.Notification, error) {
	if h == nil {
		return c.Notification.Create().SetUserID(userID).SetKind(kind).SetPayload(payload).Save(ctx)
	}
	if c == nil || c == h.st.Client {
		var n *ent.Notification
		err := h.st.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *stdsql.Tx) error {
			var err error
			n, err = h.publish(ctx, c, userID, kind, payload)
			return err
		})
		return n, err
	}
	return h.publish(ctx, c, userID, kind, payload)
}

func (h *Hub) publish(ctx context.Context, c *ent.Client, userID int, kind string, payload map[string]any) (*ent.Notification, error) {
	pg := h.st.Dialect == dialect.Postgres
	if pg {
		// Ids come from a sequence before commit; holding this lock until
		// commit makes one user's notifications commit in id order.
		if _, err := c.User.Query().Where(user.ID(userID)).
			Modify(func(s *sql.Selector) {
				s.Select().AppendSelectExpr(sql.ExprFunc(func(b *sql.Builder) {
					b.WriteString("pg_advisory_xact_lock(").Arg(lockClass).Comma().Arg(userID).WriteString(")::text")
				}))
			}).Strings(ctx); err != nil {
			return nil, err
		}
	}
	n, err := c.Notification.Create().SetUserID(userID).SetKind(kind).SetPayload(payload).Save(ctx)
	if err != nil {
		return nil, err
	}
	if pg {
		// Transactional: listeners hear it only when the row commits.
		if _, err := c.Notification.Query().Where(notification.ID(n.ID)).
			Modify(func(s *sql.Selector) {
				s.Select().AppendSelectExpr(sql.ExprFunc(func(b *sql.Builder) {
					b.WriteString("pg_notify(").Arg(Channel).Comma().Arg(strconv.Itoa(n.ID)).WriteString(")::text")
				}))
			}).Strings(ctx); err != nil {
			return nil, err
		}
	} else {
		select {
		case h.kick <- struct{}{}:
		default:
		}
	}
	return n, nil
}
