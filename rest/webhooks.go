package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// Webhook endpoints (internal/webhooks), managed by their user or their
// group's administrators:
//
//	GET, POST        /webhooks/
//	GET, PUT, DELETE /webhooks/{id}/
//	POST             /webhooks/{id}/rotate-secret/
//	GET              /webhooks/{id}/deliveries/?before={id}&page_size={n}
//	POST             /webhooks/{id}/deliveries/{did}/redeliver/
//
// The secret is in the answers of POST /webhooks/ and rotate-secret only.
func (a *API) webhookRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeWebhooksRead, auth.ScopeWebhooksWrite))
	r.Get("/webhooks", a.handle(a.listWebhooks))
	r.Post("/webhooks", a.handle(a.createWebhook))
	r.Get("/webhooks/{wid:[0-9]+}", a.handle(a.getWebhook))
	r.Put("/webhooks/{wid:[0-9]+}", a.handle(a.updateWebhook))
	r.Delete("/webhooks/{wid:[0-9]+}", a.handle(a.deleteWebhook))
	r.Post("/webhooks/{wid:[0-9]+}/rotate-secret", a.handle(a.rotateWebhookSecret))
	r.Get("/webhooks/{wid:[0-9]+}/deliveries", a.handle(a.listWebhookDeliveries))
	r.Post("/webhooks/{wid:[0-9]+}/deliveries/{did:[0-9]+}/redeliver", a.handle(a.redeliverWebhook))
}

// webhookJSON is an endpoint; Secret only when just made or rotated.
type webhookJSON struct {
	ID                      int        `json:"id"`
	URL                     string     `json:"url"`
	Endpoint                string     `json:"endpoint"`
	Description             string     `json:"description"`
	EventTypes              []string   `json:"event_types"`
	Datasets                []string   `json:"datasets"`
	Group                   *refJSON   `json:"group"`
	Enabled                 bool       `json:"enabled"`
	DisabledReason          string     `json:"disabled_reason"`
	FailingSince            *time.Time `json:"failing_since"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	Deliveries              string     `json:"deliveries"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
	Secret                  string     `json:"secret,omitempty"`
}

// refJSON names a related record.
type refJSON struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
}

// webhookDeliveryJSON is one entry of the delivery log.
type webhookDeliveryJSON struct {
	ID             int        `json:"id"`
	URL            string     `json:"url"`
	Event          string     `json:"event"`
	MessageID      string     `json:"message_id"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	ResponseStatus *int       `json:"response_status"`
	Error          string     `json:"error"`
	LastAttemptAt  *time.Time `json:"last_attempt_at"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	CreatedAt      time.Time  `json:"created_at"`
}

// webhookBody is the body of POST and PUT.
type webhookBody struct {
	URL         *string  `json:"endpoint"`
	Description *string  `json:"description"`
	EventTypes  []string `json:"event_types"`
	Datasets    []string `json:"datasets"`
	Group       *int     `json:"group"`
	Enabled     *bool    `json:"enabled"`
}

func (b webhookBody) input() (graph.WebhookInput, error) {
	if b.URL == nil || strings.TrimSpace(*b.URL) == "" {
		return graph.WebhookInput{}, apperr.Field("endpoint", "This field is required: the URL that receives the events.")
	}
	return graph.WebhookInput{URL: *b.URL, Description: b.Description, EventTypes: b.EventTypes, Datasets: b.Datasets,
		Group: b.Group, Enabled: b.Enabled}, nil
}

func (l links) webhook(ep *ent.WebhookEndpoint, secret string) webhookJSON {
	out := webhookJSON{
		ID: ep.ID, URL: l.api("webhooks/%d/", ep.ID), Endpoint: ep.URL, Description: ep.Description,
		EventTypes: nonNilStrings(ep.EventTypes), Datasets: nonNilStrings(ep.Datasets), Enabled: ep.Enabled,
		DisabledReason: ep.DisabledReason, FailingSince: ep.FailingSince, PreviousSecretExpiresAt: ep.PreviousSecretExpiresAt,
		Deliveries: l.api("webhooks/%d/deliveries/", ep.ID), CreatedAt: ep.CreatedAt, UpdatedAt: ep.UpdatedAt, Secret: secret,
	}
	if ep.GroupID != nil {
		out.Group = &refJSON{ID: *ep.GroupID, URL: l.api("groups/%d/", *ep.GroupID)}
	}
	return out
}

func (l links) webhookDelivery(d *ent.WebhookDelivery) webhookDeliveryJSON {
	return webhookDeliveryJSON{
		ID: d.ID, URL: l.api("webhooks/%d/deliveries/?before=%d&page_size=1", d.EndpointID, d.ID+1),
		Event: l.api("changes/?after=%d&page_size=1", d.EventID-1), MessageID: d.MessageID, Status: string(d.Status),
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, Error: d.Error, LastAttemptAt: d.LastAttemptAt,
		NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt,
	}
}

func (a *API) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	eps, err := a.res.Query().Webhooks(r.Context())
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]webhookJSON, len(eps))
	for i, ep := range eps {
		out[i] = l.webhook(ep, "")
	}
	return writeList(a, w, r, out)
}

func (a *API) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var b webhookBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	in, err := b.input()
	if err != nil {
		return err
	}
	made, err := a.res.Mutation().CreateWebhook(r.Context(), in)
	if err != nil {
		return endpointField(err)
	}
	js := a.links(r).webhook(made.Endpoint, made.Secret)
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

// webhook loads the endpoint of the path: NOT_FOUND for one the caller
// does not manage.
func (a *API) webhook(r *http.Request) (*ent.WebhookEndpoint, error) {
	id, err := pathID(r, "wid")
	if err != nil {
		return nil, err
	}
	ep, err := a.res.Query().Webhook(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if ep == nil {
		return nil, apperr.New(apperr.NotFound, "Webhook %d not found.", id)
	}
	return ep, nil
}

func (a *API) getWebhook(w http.ResponseWriter, r *http.Request) error {
	ep, err := a.webhook(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).webhook(ep, ""))
	return nil
}

func (a *API) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "wid")
	if err != nil {
		return err
	}
	var b webhookBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	in, err := b.input()
	if err != nil {
		return err
	}
	ep, err := a.res.Mutation().UpdateWebhook(r.Context(), id, in)
	if err != nil {
		return endpointField(err)
	}
	writeJSON(w, http.StatusOK, a.links(r).webhook(ep, ""))
	return nil
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "wid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteWebhook(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "wid")
	if err != nil {
		return err
	}
	made, err := a.res.Mutation().RotateWebhookSecret(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).webhook(made.Endpoint, made.Secret))
	return nil
}

func (a *API) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "wid")
	if err != nil {
		return err
	}
	q := queryOf(r)
	before, err := q.intPtr("before")
	if err != nil {
		return err
	}
	size, err := q.intPtr("page_size")
	if err != nil {
		return err
	}
	if size != nil && (*size < 1 || *size > graph.MaxChangePage) {
		return apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", graph.MaxChangePage))
	}
	page, err := a.res.Query().WebhookDeliveries(r.Context(), id, before, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]webhookDeliveryJSON, len(page.Deliveries))
	for i, d := range page.Deliveries {
		out[i] = l.webhookDelivery(d)
	}
	p := cursorPage{carried: url.Values{}, param: "before", per: graph.DefaultChangePage, count: len(out), total: page.TotalCount}
	if size != nil {
		p.per = *size
		p.carried.Set("page_size", strconv.Itoa(*size))
	}
	if len(out) == p.per && len(out) < page.TotalCount {
		p.next = strconv.Itoa(out[len(out)-1].ID)
	}
	l.setCursorHeaders(w, r, p)
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) redeliverWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "wid")
	if err != nil {
		return err
	}
	did, err := pathID(r, "did")
	if err != nil {
		return err
	}
	d, err := a.res.Mutation().RedeliverWebhook(r.Context(), id, did)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, a.links(r).webhookDelivery(d))
	return nil
}

// endpointField names the target URL as the REST body does: the domain
// calls it url, which REST records use for their own address.
func endpointField(err error) error {
	e := apperr.As(err)
	msgs, ok := e.Fields["url"]
	if e.Code != apperr.Invalid || !ok {
		return err
	}
	return apperr.Field("endpoint", strings.Join(msgs, " "))
}
