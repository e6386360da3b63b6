package rest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// webhookRecord is what the tests read of a webhook.
type webhookRecord struct {
	ID         int      `json:"id"`
	URL        string   `json:"url"`
	Endpoint   string   `json:"endpoint"`
	EventTypes []string `json:"event_types"`
	Enabled    bool     `json:"enabled"`
	Secret     string   `json:"secret"`
	Deliveries string   `json:"deliveries"`
}

type deliveryRecord struct {
	ID             int    `json:"id"`
	MessageID      string `json:"message_id"`
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	ResponseStatus *int   `json:"response_status"`
}

// Issue 26.5 through REST: a webhook is registered (its secret shown
// once), receives the feed's events as Standard Webhooks, logs its
// deliveries, redelivers with the same webhook-id, rotates its secret and
// is deleted; others cannot see it; internal addresses and bad fields are
// 400s.
func TestWebhooksDoor(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		other := e.NewUser(t, "Otto")
		var mu sync.Mutex
		var got []http.Header
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, r.Header.Clone())
			mu.Unlock()
			w.WriteHeader(http.StatusOK)
		}))
		defer recv.Close()

		made := doJSON[webhookRecord](t, e, req{Method: "POST", Path: "/webhooks/", Key: pub.Key,
			Body: map[string]any{"endpoint": recv.URL + "/hook", "event_types": []string{"dataset.published"}}}, http.StatusCreated)
		if !strings.HasPrefix(made.Secret, "whsec_") || made.Endpoint != recv.URL+"/hook" || !made.Enabled {
			t.Fatalf("created %+v", made)
		}
		if again := doJSON[webhookRecord](t, e, req{Path: made.URL, Key: pub.Key}, http.StatusOK); again.Secret != "" {
			t.Fatal("GET shows the secret: it is shown once, when made or rotated")
		}
		expectStatus(t, e.Do(t, req{Path: made.URL, Key: other.Key}), http.StatusNotFound)
		if list := doJSON[[]webhookRecord](t, e, req{Path: "/webhooks/", Key: other.Key}, http.StatusOK); len(list) != 0 {
			t.Fatalf("another user lists %+v", list)
		}

		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelCollection(parcelFeature(1, "a", 174.7))},
			"parcels.geojson", "Parcels")
		publishLayerDraft(t, e, pub, draft)
		var ds []deliveryRecord
		waitFor(t, "the delivery", func() bool {
			ds = doJSON[[]deliveryRecord](t, e, req{Path: made.Deliveries, Key: pub.Key}, http.StatusOK)
			return len(ds) == 1 && ds[0].Status == "delivered"
		})
		if ds[0].Attempts != 1 || ds[0].ResponseStatus == nil || *ds[0].ResponseStatus != 200 {
			t.Fatalf("delivery %+v", ds[0])
		}
		mu.Lock()
		first := got[0]
		mu.Unlock()
		if first.Get("webhook-id") != ds[0].MessageID || !strings.HasPrefix(first.Get("webhook-signature"), "v1,") ||
			first.Get("webhook-timestamp") == "" {
			t.Fatalf("headers %v", first)
		}

		// Redelivery: the same webhook-id again.
		r := e.Do(t, req{Method: "POST", Path: made.Deliveries + itoa(ds[0].ID) + "/redeliver/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusAccepted)
		waitFor(t, "the redelivery", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(got) == 2
		})
		mu.Lock()
		if got[1].Get("webhook-id") != first.Get("webhook-id") {
			t.Errorf("redelivered with webhook-id %q, want %q", got[1].Get("webhook-id"), first.Get("webhook-id"))
		}
		mu.Unlock()

		// Rotation answers a new secret.
		rot := doJSON[webhookRecord](t, e, req{Method: "POST", Path: made.URL + "rotate-secret/", Key: pub.Key, Body: map[string]any{}}, http.StatusOK)
		if rot.Secret == "" || rot.Secret == made.Secret {
			t.Fatalf("rotated secret %q", rot.Secret)
		}

		// Bad input: 400s naming the field, nothing saved.
		for field, body := range map[string]map[string]any{
			"endpoint":    {"endpoint": "http://10.0.0.7/hook"},
			"event_types": {"endpoint": recv.URL, "event_types": []string{"dataset.renamed"}},
			"datasets":    {"endpoint": recv.URL, "datasets": []string{"layers/5"}},
		} {
			r := e.Do(t, req{Method: "POST", Path: "/webhooks/", Key: pub.Key, Body: body})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+field+`"`) {
				t.Errorf("%v: %s does not name %s", body, r.Body, field)
			}
		}
		if list := doJSON[[]webhookRecord](t, e, req{Path: "/webhooks/", Key: pub.Key}, http.StatusOK); len(list) != 1 {
			t.Fatalf("%d webhooks after the refusals", len(list))
		}
		// A token without webhooks:write.
		r = e.Do(t, req{Method: "POST", Path: "/webhooks/", Key: e.Token(t, pub.User, "webhooks:read"), Body: map[string]any{"endpoint": recv.URL}})
		expectDetail(t, r, http.StatusUnauthorized, "webhooks:write")

		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: made.URL, Key: other.Key}), http.StatusNotFound)
		if r := e.Do(t, req{Method: "DELETE", Path: made.URL, Key: pub.Key}); r.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: made.URL, Key: pub.Key}), http.StatusNotFound)
	})
}
