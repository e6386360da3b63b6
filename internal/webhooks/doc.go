// Package webhooks sends the change feed's events (internal/changefeed)
// to the endpoints users and group administrators register, as the
// Standard Webhooks specification has them (https://www.standardwebhooks.com):
// a JSON body {type, timestamp, data}, and the headers webhook-id (the
// same on every attempt and redelivery of one event to one endpoint),
// webhook-timestamp and webhook-signature, an HMAC-SHA256 of
// "id.timestamp.body" under the endpoint's whsec_ secret. A rotated
// secret keeps signing beside the new one for a day, so receivers can
// change over without losing a message.
//
// Delivery is at least once. An event's deliveries are written in the
// transaction that appends the event (the feed's AfterAppend), each with
// its durable job (internal/jobs), so a committed event always has them
// and a process killed mid-send leaves a job that runs again with the
// same webhook-id. A failed attempt (no answer, or not 2xx) is retried
// after growing delays for about a day; every attempt is logged on the
// delivery (status, answer's HTTP status, error). An endpoint whose
// deliveries have failed for good for long enough is disabled and its
// owner notified.
//
// What an endpoint may receive is decided when each attempt is sent: an
// event of a dataset its owner may no longer see (as the feed decides,
// changefeed.List) is suppressed, not sent. Endpoint URLs pass the address
// guard sources pass (internal/fetch): no loopback, private or metadata
// addresses unless the operator allows them, checked when the endpoint is
// saved and again when each connection is made.
package webhooks
