package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/ent/webhookendpoint"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/changefeed"
)

// Input is what an endpoint's owner sets.
type Input struct {
	URL         string
	Description string
	// EventTypes are the types it receives (none: all).
	EventTypes []string
	// Datasets are what it receives events of, as kind:id (none: all its
	// owner may see).
	Datasets []string
}

// schemes are the URL schemes endpoints may have.
var schemes = []string{"https", "http"}

// check validates in: the URL through the address guard, known event
// types, well-formed dataset keys.
func (s *Service) check(ctx context.Context, in *Input) error {
	u, err := s.Guard.CheckURL(ctx, "url", in.URL, schemes, true)
	if err != nil {
		return err
	}
	in.URL = u.String()
	if len(in.Description) > 500 {
		return apperr.Field("description", "Use at most 500 characters.")
	}
	for _, t := range in.EventTypes {
		if !changefeed.KnownType(t) {
			return apperr.Field("event_types", fmt.Sprintf("%q is not an event type: use any of %s.", t, strings.Join(changefeed.Types, ", ")))
		}
	}
	kinds := []string{string(access.KindLayer), string(access.KindSet), string(access.KindDocument), string(access.KindCatalogItem)}
	for _, d := range in.Datasets {
		kind, id, ok := strings.Cut(d, ":")
		if n, err := strconv.Atoi(id); !ok || err != nil || n <= 0 || !slices.Contains(kinds, kind) {
			return apperr.Field("datasets", fmt.Sprintf("%q does not name a dataset: use kind:id, the kind one of %s.", d, strings.Join(kinds, ", ")))
		}
	}
	return nil
}

// Owner is who an endpoint belongs to: a user, and the group whose
// administrators manage it when a group owns it.
type Owner struct {
	UserID  int
	GroupID *int
}

// Create registers an endpoint and returns it with its secret, which is
// shown this once. A group's endpoint needs its creator to administer
// the group.
func (s *Service) Create(ctx context.Context, o Owner, in Input) (*ent.WebhookEndpoint, string, error) {
	if err := s.check(ctx, &in); err != nil {
		return nil, "", err
	}
	if o.GroupID != nil {
		ok, err := s.groupAdmin(ctx, o.UserID, *o.GroupID)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", apperr.Field("group", "You may add webhooks to groups you administer only.")
		}
	}
	secret := NewSecret()
	sealed, err := s.Secrets.Seal(secret)
	if err != nil {
		return nil, "", err
	}
	ep, err := s.Store.Client.WebhookEndpoint.Create().SetUserID(o.UserID).SetNillableGroupID(o.GroupID).
		SetURL(in.URL).SetDescription(in.Description).SetEventTypes(nonNil(in.EventTypes)).SetDatasets(nonNil(in.Datasets)).
		SetSecret(sealed).Save(ctx)
	return ep, secret, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Service) groupAdmin(ctx context.Context, userID, groupID int) (bool, error) {
	return s.Store.Client.GroupMembership.Query().Where(groupmembership.UserID(userID), groupmembership.GroupID(groupID),
		groupmembership.PermissionEQ(groupmembership.PermissionAdmin)).Exist(ctx)
}

// Manager is who asks to manage endpoints.
type Manager struct {
	UserID    int
	SiteAdmin bool
}

// Get returns an endpoint m may manage: its user's, a group's to the
// group's administrators, any to site administrators; NOT_FOUND
// otherwise.
func (s *Service) Get(ctx context.Context, m Manager, id int) (*ent.WebhookEndpoint, error) {
	ep, err := s.Store.Client.WebhookEndpoint.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Webhook %d not found.", id)
	}
	if err != nil {
		return nil, err
	}
	ok := m.SiteAdmin || ep.UserID == m.UserID && ep.GroupID == nil
	if !ok && ep.GroupID != nil {
		if ok, err = s.groupAdmin(ctx, m.UserID, *ep.GroupID); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, apperr.New(apperr.NotFound, "Webhook %d not found.", id)
	}
	return ep, nil
}

// List returns the endpoints m manages, newest first.
func (s *Service) List(ctx context.Context, m Manager) ([]*ent.WebhookEndpoint, error) {
	q := s.Store.Client.WebhookEndpoint.Query().Order(ent.Desc(webhookendpoint.FieldID))
	if !m.SiteAdmin {
		groups, err := s.Store.Client.GroupMembership.Query().Where(groupmembership.UserID(m.UserID),
			groupmembership.PermissionEQ(groupmembership.PermissionAdmin)).Select(groupmembership.FieldGroupID).Ints(ctx)
		if err != nil {
			return nil, err
		}
		q.Where(webhookendpoint.Or(
			webhookendpoint.And(webhookendpoint.UserID(m.UserID), webhookendpoint.GroupIDIsNil()),
			webhookendpoint.GroupIDIn(groups...)))
	}
	return q.All(ctx)
}

// Update changes an endpoint m manages; enabling it again clears why it
// was disabled and its failing streak.
func (s *Service) Update(ctx context.Context, m Manager, id int, in Input, enabled *bool) (*ent.WebhookEndpoint, error) {
	ep, err := s.Get(ctx, m, id)
	if err != nil {
		return nil, err
	}
	if err := s.check(ctx, &in); err != nil {
		return nil, err
	}
	u := ep.Update().SetURL(in.URL).SetDescription(in.Description).SetEventTypes(nonNil(in.EventTypes)).SetDatasets(nonNil(in.Datasets))
	if enabled != nil {
		u.SetEnabled(*enabled)
		if *enabled {
			u.SetDisabledReason("").ClearFailingSince()
		} else {
			u.SetDisabledReason("Disabled by its owner.")
		}
	}
	return u.Save(ctx)
}

// Delete removes an endpoint m manages and its delivery log; pending
// deliveries are dropped.
func (s *Service) Delete(ctx context.Context, m Manager, id int) error {
	ep, err := s.Get(ctx, m, id)
	if err != nil {
		return err
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		if _, err := c.WebhookDelivery.Delete().Where(webhookdelivery.EndpointID(ep.ID)).Exec(ctx); err != nil {
			return err
		}
		return c.WebhookEndpoint.DeleteOneID(ep.ID).Exec(ctx)
	})
}

// Rotate gives an endpoint m manages a new secret, returned this once;
// the old one keeps signing beside it for the overlap.
func (s *Service) Rotate(ctx context.Context, m Manager, id int) (*ent.WebhookEndpoint, string, error) {
	ep, err := s.Get(ctx, m, id)
	if err != nil {
		return nil, "", err
	}
	secret := NewSecret()
	sealed, err := s.Secrets.Seal(secret)
	if err != nil {
		return nil, "", err
	}
	ep, err = ep.Update().SetSecret(sealed).SetPreviousSecret(ep.Secret).
		SetPreviousSecretExpiresAt(time.Now().UTC().Add(s.overlap())).Save(ctx)
	return ep, secret, err
}

// Deliveries lists a page of an endpoint's delivery log, newest first,
// before the delivery before (0: from the newest), and counts the
// deliveries before it.
func (s *Service) Deliveries(ctx context.Context, m Manager, id, before, limit int) ([]*ent.WebhookDelivery, int, error) {
	ep, err := s.Get(ctx, m, id)
	if err != nil {
		return nil, 0, err
	}
	q := s.Store.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID))
	if before > 0 {
		q.Where(webhookdelivery.IDLT(before))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	ds, err := q.Order(ent.Desc(webhookdelivery.FieldID)).Limit(limit).All(ctx)
	return ds, total, err
}

// Redeliver sends a delivery again, with the same webhook-id, whatever
// became of it; its attempts start over.
func (s *Service) Redeliver(ctx context.Context, m Manager, endpointID, deliveryID int) (*ent.WebhookDelivery, error) {
	ep, err := s.Get(ctx, m, endpointID)
	if err != nil {
		return nil, err
	}
	if !ep.Enabled {
		return nil, apperr.New(apperr.Conflict, "Webhook %d is disabled: enable it first.", ep.ID)
	}
	var d *ent.WebhookDelivery
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		var err error
		d, err = c.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), webhookdelivery.EndpointID(ep.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "Delivery %d of webhook %d not found.", deliveryID, ep.ID)
		}
		if err != nil {
			return err
		}
		if d, err = d.Update().SetStatus(webhookdelivery.StatusPending).SetError("").ClearNextAttemptAt().Save(ctx); err != nil {
			return err
		}
		return s.enqueue(ctx, tx, d.ID)
	})
	return d, err
}
