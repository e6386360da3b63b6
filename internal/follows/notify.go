package follows

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetfollow"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/search"
)

// NotifyArgs is the job that notifies an event's followers.
type NotifyArgs struct {
	EventID int   `json:"event_id"`
	UserIDs []int `json:"user_ids"`
}

// Kind names the job.
func (NotifyArgs) Kind() string { return "follow_notify" }

// fanOut enqueues, in the transaction that appends es, the notification
// of each event's followers; a deletion then ends its dataset's follows.
func (s *Service) fanOut(ctx context.Context, c *ent.Client, tx *sql.Tx, es []changefeed.Event) error {
	st := search.NewStars(s.Store.DB, s.Store.Dialect)
	for _, e := range es {
		d := Dataset{Type: e.DatasetType, ID: e.Dataset.ID}
		if !KnownType(d.Type) {
			continue
		}
		ids, err := followers(ctx, c, st, tx, d)
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			if _, err := s.Jobs.InsertTx(ctx, tx, NotifyArgs{EventID: int(e.ID), UserIDs: ids}, &river.InsertOpts{MaxAttempts: 10}); err != nil {
				return fmt.Errorf("follows: enqueueing the notification of %s %d's followers: %w", d.Type, d.ID, err)
			}
		}
		if e.Type == changefeed.Deleted {
			if _, err := c.DatasetFollow.Delete().Where(datasetfollow.DatasetTypeEQ(datasetfollow.DatasetType(d.Type)),
				datasetfollow.DatasetID(d.ID)).Exec(ctx); err != nil {
				return fmt.Errorf("follows: ending the follows of %s %d: %w", d.Type, d.ID, err)
			}
		}
	}
	return nil
}

// Worker runs the notification jobs of a Service.
type Worker struct {
	river.WorkerDefaults[NotifyArgs]
	S *Service
}

// Work notifies, in one transaction, each follower who may see the event
// now; a locked or deleted user is passed over.
func (w *Worker) Work(ctx context.Context, job *river.Job[NotifyArgs]) error {
	s := w.S
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		row, err := c.ChangeEvent.Get(ctx, job.Args.EventID)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		e := changefeed.FromEnt(row)
		// The payload is the event as the API renders it, as a map.
		b, err := json.Marshal(e.Wire(s.API, s.Site))
		if err != nil {
			return err
		}
		var payload map[string]any
		if err := json.Unmarshal(b, &payload); err != nil {
			return err
		}
		for _, uid := range job.Args.UserIDs {
			u, err := c.User.Get(ctx, uid)
			if ent.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if u.IsLocked {
				continue
			}
			v, err := access.NewViewer(ctx, c, auth.Principal{Method: auth.SessionAuth, User: u})
			if err != nil {
				return err
			}
			if ok, err := changefeed.MaySee(ctx, c, v, e); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			if _, err := s.Notify.Publish(ctx, c, uid, e.Type, payload); err != nil {
				return fmt.Errorf("follows: notifying user %d: %w", uid, err)
			}
		}
		return nil
	})
}
