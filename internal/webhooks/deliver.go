package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
)

// DeliverArgs is the job that sends one delivery.
type DeliverArgs struct {
	DeliveryID int `json:"delivery_id"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "webhook_delivery" }

// Worker runs the delivery jobs of a Service.
type Worker struct {
	river.WorkerDefaults[DeliverArgs]
	S *Service
}

// NextRetry waits the Service's delay for the attempt that failed.
func (w *Worker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	ds := w.S.delays()
	return time.Now().Add(ds[min(max(job.Attempt-1, 0), len(ds)-1)])
}

// Timeout leaves the attempt's own timeout to the HTTP client.
func (w *Worker) Timeout(*river.Job[DeliverArgs]) time.Duration { return time.Minute }

// Payload is the body of a message, as Standard Webhooks shapes it.
type Payload struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      changefeed.Wire `json:"data"`
}

// errAttempt is a failed attempt: retried while attempts remain.
var errAttempt = errors.New("webhooks: the endpoint did not accept the message")

// Work sends the delivery once: delivered on a 2xx answer; otherwise
// logged and retried, and failed when no attempt remains.
func (w *Worker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	s := w.S
	c := s.Store.Client
	d, err := c.WebhookDelivery.Get(ctx, job.Args.DeliveryID)
	if ent.IsNotFound(err) {
		return nil // its endpoint was deleted
	}
	if err != nil {
		return err
	}
	if d.Status != webhookdelivery.StatusPending {
		return nil
	}
	ep, err := c.WebhookEndpoint.Get(ctx, d.EndpointID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !ep.Enabled {
		return s.finish(ctx, d, webhookdelivery.StatusCancelled, nil, "the endpoint is disabled")
	}
	ev, err := c.ChangeEvent.Get(ctx, d.EventID)
	if ent.IsNotFound(err) {
		return s.finish(ctx, d, webhookdelivery.StatusCancelled, nil, "the event no longer exists")
	}
	if err != nil {
		return err
	}
	event := changefeed.FromEnt(ev)
	ok, err := s.mayReceive(ctx, ep, event)
	if err != nil {
		return err
	}
	if !ok {
		return s.finish(ctx, d, webhookdelivery.StatusSuppressed, nil, "the endpoint's owner may no longer see this dataset")
	}
	body, err := json.Marshal(Payload{Type: event.Type, Timestamp: event.At, Data: event.Wire(s.API, s.Site)})
	if err != nil {
		return err
	}
	status, sendErr := s.send(ctx, ep, d.MessageID, body)
	if sendErr == nil {
		return s.delivered(ctx, d, ep, status)
	}
	final := job.Attempt >= job.MaxAttempts
	s.logger().InfoContext(ctx, "webhooks: an attempt failed", "endpoint", ep.ID, "delivery", d.ID,
		"attempt", job.Attempt, "final", final, "err", sendErr)
	if err := s.attemptFailed(ctx, d, ep, status, sendErr, final, job.Attempt); err != nil {
		return err
	}
	if final {
		return nil
	}
	return fmt.Errorf("%w: %v", errAttempt, sendErr)
}

// mayReceive reports whether the endpoint's owner may see e now: its
// user, still an administrator of its group when a group owns it.
func (s *Service) mayReceive(ctx context.Context, ep *ent.WebhookEndpoint, e changefeed.Event) (bool, error) {
	c := s.Store.Client
	u, err := c.User.Get(ctx, ep.UserID)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if u.IsLocked {
		return false, nil
	}
	if ep.GroupID != nil {
		admin, err := c.GroupMembership.Query().Where(groupmembership.UserID(u.ID), groupmembership.GroupID(*ep.GroupID),
			groupmembership.PermissionEQ(groupmembership.PermissionAdmin)).Exist(ctx)
		if err != nil || !admin {
			return false, err
		}
	}
	v, err := access.NewViewer(ctx, c, auth.Principal{Method: auth.SessionAuth, User: u})
	if err != nil {
		return false, err
	}
	return changefeed.MaySee(ctx, c, v, e)
}

// send posts the message once; a nil error is a 2xx answer.
func (s *Service) send(ctx context.Context, ep *ent.WebhookEndpoint, msgID string, body []byte) (int, error) {
	secretList, err := s.signingSecrets(ep)
	if err != nil {
		return 0, err
	}
	h, err := Headers(secretList, msgID, time.Now(), body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = h
	req.Header.Set("User-Agent", "Geopub-Webhooks/1")
	resp, err := s.client().Do(req)
	if err != nil {
		return 0, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the endpoint answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// signingSecrets are the endpoint's secrets, opened: the current one,
// and the previous one while its overlap lasts.
func (s *Service) signingSecrets(ep *ent.WebhookEndpoint) ([]string, error) {
	cur, err := s.Secrets.Open(ep.Secret)
	if err != nil {
		return nil, fmt.Errorf("webhooks: opening endpoint %d's secret: %w", ep.ID, err)
	}
	out := []string{cur}
	if ep.PreviousSecret != "" && ep.PreviousSecretExpiresAt != nil && time.Now().Before(*ep.PreviousSecretExpiresAt) {
		prev, err := s.Secrets.Open(ep.PreviousSecret)
		if err != nil {
			return nil, fmt.Errorf("webhooks: opening endpoint %d's previous secret: %w", ep.ID, err)
		}
		out = append(out, prev)
	}
	return out, nil
}

// finish closes a delivery without sending it.
func (s *Service) finish(ctx context.Context, d *ent.WebhookDelivery, st webhookdelivery.Status, code *int, why string) error {
	return s.Store.Client.WebhookDelivery.UpdateOne(d).SetStatus(st).SetNillableResponseStatus(code).SetError(why).
		ClearNextAttemptAt().Exec(ctx)
}

// delivered logs the successful attempt and clears the endpoint's
// failing streak.
func (s *Service) delivered(ctx context.Context, d *ent.WebhookDelivery, ep *ent.WebhookEndpoint, status int) error {
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		if err := c.WebhookDelivery.UpdateOneID(d.ID).SetStatus(webhookdelivery.StatusDelivered).AddAttempts(1).
			SetResponseStatus(status).SetError("").SetLastAttemptAt(time.Now().UTC()).ClearNextAttemptAt().Exec(ctx); err != nil {
			return err
		}
		if ep.FailingSince != nil {
			return c.WebhookEndpoint.UpdateOneID(ep.ID).ClearFailingSince().Exec(ctx)
		}
		return nil
	})
}

// attemptFailed logs a failed attempt; the last one fails the delivery,
// starts or extends the endpoint's failing streak and disables it, with
// a notification to its owner, when the streak is old enough.
func (s *Service) attemptFailed(ctx context.Context, d *ent.WebhookDelivery, ep *ent.WebhookEndpoint, status int, sendErr error, final bool, attempt int) error {
	now := time.Now().UTC()
	msg := sendErr.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		u := c.WebhookDelivery.UpdateOneID(d.ID).AddAttempts(1).SetError(msg).SetLastAttemptAt(now)
		if status != 0 {
			u.SetResponseStatus(status)
		} else {
			u.ClearResponseStatus()
		}
		if !final {
			ds := s.delays()
			u.SetNextAttemptAt(now.Add(ds[min(attempt-1, len(ds)-1)]))
			return u.Exec(ctx)
		}
		if err := u.SetStatus(webhookdelivery.StatusFailed).ClearNextAttemptAt().Exec(ctx); err != nil {
			return err
		}
		// The streak starts with the first delivery that failed for good,
		// when it was made: its attempts failed from then on.
		since := d.CreatedAt
		if ep.FailingSince != nil {
			since = *ep.FailingSince
		} else if err := c.WebhookEndpoint.UpdateOneID(ep.ID).SetFailingSince(since).Exec(ctx); err != nil {
			return err
		}
		if now.Sub(since) < s.disableAfter() {
			return nil
		}
		reason := fmt.Sprintf("Every delivery since %s failed; the last: %s", since.Format(time.RFC3339), msg)
		if err := c.WebhookEndpoint.UpdateOneID(ep.ID).SetEnabled(false).SetDisabledReason(reason).Exec(ctx); err != nil {
			return err
		}
		_, err := s.Notify.Publish(ctx, c, ep.UserID, "webhook.disabled", map[string]any{"endpoint_id": ep.ID, "url": ep.URL, "reason": reason})
		return err
	})
}

// Abandon fails a delivery whose last attempt died with the process that
// made it (jobs.Abandoner): that attempt counts as one with no answer.
// A delivery no longer pending is left alone, so it may run twice.
func (w *Worker) Abandon(ctx context.Context, job *river.Job[DeliverArgs], reason string) error {
	c := w.S.Store.Client
	d, err := c.WebhookDelivery.Get(ctx, job.Args.DeliveryID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil || d.Status != webhookdelivery.StatusPending {
		return err
	}
	ep, err := c.WebhookEndpoint.Get(ctx, d.EndpointID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return w.S.attemptFailed(ctx, d, ep, 0, fmt.Errorf("no answer: the process sending it stopped (%s)", reason), true, job.Attempt)
}
