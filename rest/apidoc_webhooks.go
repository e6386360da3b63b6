package rest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
)

// webhookOps documents the webhook endpoints and their delivery logs.
func webhookOps(ops *[]*apidoc.Operation) {
	w := docs{ops: ops, tag: "Webhooks", read: auth.ScopeWebhooksRead, write: auth.ScopeWebhooksWrite}
	body := "endpoint (required: the https URL that receives the events; loopback, private and metadata addresses are refused), " +
		"description, event_types (any of " + strings.Join(changefeed.Types, ", ") + "; none for all), datasets (kind:id, " +
		"such as layer:5; none for every dataset the owner may see), group (on create: a group you administer, whose " +
		"administrators then manage it), enabled (on update)."
	w.op(http.MethodGet, "/webhooks", "The webhooks the caller manages").Private().Paging().
		ReturnsJSON(200, "The webhooks, newest first.", []webhookJSON{})
	w.op(http.MethodPost, "/webhooks", "Register a webhook").Private().
		Describe("Events are sent as Standard Webhooks: POST {type, timestamp, data} with webhook-id, webhook-timestamp and "+
			"webhook-signature (v1, HMAC-SHA256 of id.timestamp.body under the secret). The answer carries the secret "+
			"(whsec_…), shown this once. Body: "+body).
		AcceptsJSON(webhookBody{}).ReturnsJSON(201, "The webhook with its secret.", webhookJSON{})
	w.op(http.MethodGet, "/webhooks/{wid:[0-9]+}", "A webhook").Private().ReturnsJSON(200, "The webhook.", webhookJSON{})
	w.op(http.MethodPut, "/webhooks/{wid:[0-9]+}", "Change a webhook").Private().Describe("Body: "+body).
		AcceptsJSON(webhookBody{}).ReturnsJSON(200, "The webhook.", webhookJSON{})
	w.op(http.MethodDelete, "/webhooks/{wid:[0-9]+}", "Delete a webhook and its delivery log").Private().NoContent("Deleted.")
	w.op(http.MethodPost, "/webhooks/{wid:[0-9]+}/rotate-secret", "Give a webhook a new secret").Private().
		Describe("The old secret keeps signing beside the new one for a day (two signatures in webhook-signature).").
		Accepts("application/json", apidoc.Object).ReturnsJSON(200, "The webhook with its new secret, shown this once.", webhookJSON{})
	w.op(http.MethodGet, "/webhooks/{wid:[0-9]+}/deliveries", "A webhook's delivery log").Private().
		Describe("Newest first; `before` (a delivery id) pages back, page_size 1 to "+strconv.Itoa(graph.MaxChangePage)+".").
		WithQuery(apidoc.Param{Name: "before", Description: "Deliveries before this one."},
			apidoc.Param{Name: "page_size", Description: "Deliveries per page (default 100, at most 200)."}).
		ReturnsJSON(200, "The deliveries.", []webhookDeliveryJSON{})
	w.op(http.MethodPost, "/webhooks/{wid:[0-9]+}/deliveries/{did:[0-9]+}/redeliver", "Send a delivery again").Private().
		Describe("With the same webhook-id; its attempts start over.").Accepts("application/json", apidoc.Object).
		ReturnsJSON(202, "The delivery, pending.", webhookDeliveryJSON{}).Fails(http.StatusConflict, "The webhook is disabled.")
}
