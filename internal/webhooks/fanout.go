package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/webhookendpoint"
	"github.com/geopub/geopub/internal/changefeed"
)

// fanOut writes, in the transaction that appends es, a delivery of each
// event to each enabled endpoint subscribed to it, with its job. Whether
// the endpoint's owner may see the event is decided when it is sent.
func (s *Service) fanOut(ctx context.Context, c *ent.Client, tx *sql.Tx, es []changefeed.Event) error {
	eps, err := c.WebhookEndpoint.Query().Where(webhookendpoint.Enabled(true)).All(ctx)
	if err != nil || len(eps) == 0 {
		return err
	}
	for _, e := range es {
		for _, ep := range eps {
			if !subscribed(ep, e) {
				continue
			}
			d, err := c.WebhookDelivery.Create().SetEndpointID(ep.ID).SetEventID(int(e.ID)).
				SetMessageID(fmt.Sprintf("msg_%d_%d", ep.ID, e.ID)).Save(ctx)
			if err != nil {
				return fmt.Errorf("webhooks: recording a delivery: %w", err)
			}
			if err := s.enqueue(ctx, tx, d.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// enqueue adds the job of delivery id to tx.
func (s *Service) enqueue(ctx context.Context, tx *sql.Tx, id int) error {
	_, err := s.Jobs.InsertTx(ctx, tx, DeliverArgs{DeliveryID: id}, &river.InsertOpts{MaxAttempts: len(s.delays()) + 1})
	if err != nil {
		return fmt.Errorf("webhooks: enqueueing a delivery: %w", err)
	}
	return nil
}

// subscribed reports whether ep wants e: of its event types (all when
// none) and its datasets (all when none).
func subscribed(ep *ent.WebhookEndpoint, e changefeed.Event) bool {
	if len(ep.EventTypes) > 0 && !slices.Contains(ep.EventTypes, e.Type) {
		return false
	}
	return len(ep.Datasets) == 0 || slices.Contains(ep.Datasets, DatasetKey(e.Dataset))
}

// DatasetKey names a dataset in an endpoint's list: layer:5, set:2,
// document:3, catalog_item:12.
func DatasetKey(r changefeed.Ref) string { return fmt.Sprintf("%s:%d", r.Kind, r.ID) }
