package graph

import (
	"context"
	"fmt"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/webhooks"
)

// webhookManager is the caller as a manager of webhook endpoints, with
// the credentials carrying scope.
func (r *Resolver) webhookManager(ctx context.Context, scope string) (webhooks.Manager, error) {
	u, err := access.RequireUser(ctx, scope)
	if err != nil {
		return webhooks.Manager{}, err
	}
	return webhooks.Manager{UserID: u.ID, SiteAdmin: u.IsSiteAdmin}, nil
}

// webhookInput is the domain's input from the API's.
func webhookInput(in WebhookInput) webhooks.Input {
	out := webhooks.Input{URL: in.URL, EventTypes: in.EventTypes, Datasets: in.Datasets}
	if in.Description != nil {
		out.Description = *in.Description
	}
	return out
}

// webhookPage checks a delivery page size.
func webhookPage(first *int) (int, error) {
	if first == nil {
		return DefaultChangePage, nil
	}
	if *first < 1 || *first > MaxChangePage {
		return 0, apperr.Field("first", fmt.Sprintf("Give a page size from 1 to %d.", MaxChangePage))
	}
	return *first, nil
}
