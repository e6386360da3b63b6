package graph

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
)

// notificationPageSize checks a notifications page size: default 100, at
// most 200.
func notificationPageSize(first *int) (int, error) {
	if first == nil {
		return paging.DefaultSize, nil
	}
	if *first < 1 || *first > paging.MaxSize {
		return 0, apperr.Field("page_size", fmt.Sprintf("Must be between 1 and %d.", paging.MaxSize))
	}
	return *first, nil
}

// newestNotification is the id of the user's newest notification, 0 when
// there is none: a subscription without a cursor starts after it.
func (r *Resolver) newestNotification(ctx context.Context, userID int) (int, error) {
	id, err := r.Client.Notification.Query().Where(notification.UserID(userID)).
		Order(notification.ByID(sql.OrderDesc())).FirstID(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	return id, err
}
