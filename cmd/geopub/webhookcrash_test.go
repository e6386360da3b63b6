package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
	"github.com/geopub/geopub/internal/webhooks/webhooktest"
)

// Issue 26.5: "at-least-once delivery as durable jobs". The real `geopub
// serve` sends a dataset.published message to a loopback endpoint that
// holds the attempt open; the process is SIGKILLed mid-attempt. After the
// restart the orphaned job runs again at once and the endpoint gets the
// message a second time with the same webhook-id (so it can drop the
// duplicate), both signatures verified by the reference implementation,
// and the delivery log says delivered.
func TestKillDuringWebhookDelivery(t *testing.T) {
	testtier.FullOnly(t, "SIGKILLs a serving process while it sends a webhook")
	src := filepath.Join(t.TempDir(), "points.geojsons")
	const points = 20
	writePoints(t, src, points)
	for _, backend := range storetest.Backends {
		t.Run(backend, func(t *testing.T) {
			r := webhooktest.NewReceiver(t, func(n int, req *http.Request) int {
				if n == 1 {
					<-req.Context().Done() // held until its process dies
					return http.StatusServiceUnavailable
				}
				return http.StatusNoContent
			})
			c, proc := startCrashServe(t, backend, "sources:read sources:write layers:read layers:write webhooks:read webhooks:write",
				"--fetch-allow", "127.0.0.1/32")
			a := c.a
			var hook struct {
				ID         int    `json:"id"`
				Secret     string `json:"secret"`
				Deliveries string `json:"deliveries"`
			}
			a.postJSON("/webhooks/", map[string]any{"endpoint": r.URL, "event_types": []string{"dataset.published"}}, &hook)
			if !strings.HasPrefix(hook.Secret, "whsec_") {
				t.Fatalf("webhook %+v", hook)
			}

			dsID := waitDatasource(t, a, a.uploadFile(src), points)
			var l crashVersion
			first, _ := r.Arrived()
			a.postJSON("/layers/", map[string]any{"name": "Points", "data": map[string]any{"datasources": []int{dsID}}}, &l)
			waitPublished(t, a, a.postJSON(l.ThisVersion+"publish/", nil, nil).Get("Location"), proc)
			select {
			case <-first:
			case <-time.After(time.Minute):
				t.Fatalf("no message arrived\n%s", tail(proc.Logs()))
			}

			st, err := store.Open(context.Background(), store.Config{DataDir: c.dir, DatabaseURL: c.dbURL})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			waitJobRunning(t, st, "webhook_delivery", proc)
			second, _ := r.Arrived()
			proc.kill(t)
			var status string
			if err := st.DB.QueryRow("SELECT status FROM webhook_deliveries").Scan(&status); err != nil || status != "pending" {
				t.Fatalf("after the kill the delivery is %q (%v)", status, err)
			}

			proc, a.base = c.serve()
			select {
			case <-second:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the message was not sent again after the restart\n%s", tail(proc.Logs()))
			}
			ms := r.Messages()
			if len(ms) != 2 || ms[0].Header.Get("webhook-id") == "" || ms[0].Header.Get("webhook-id") != ms[1].Header.Get("webhook-id") {
				t.Fatalf("%d messages, webhook-ids %q", len(ms), webhookIDs(ms))
			}
			if got := webhooktest.Verify(t, hook.Secret, ms); len(got) != 2 || got[0] != "ok dataset.published" || got[1] != got[0] {
				t.Fatalf("reference verifier: %q", got)
			}

			var log []struct {
				MessageID      string `json:"message_id"`
				Status         string `json:"status"`
				Attempts       int    `json:"attempts"`
				ResponseStatus *int   `json:"response_status"`
			}
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				a.do("GET", hook.Deliveries, "", nil, &log)
				if len(log) == 1 && log[0].Status != "pending" || time.Now().After(deadline) {
					break
				}
			}
			if len(log) != 1 || log[0].Status != "delivered" || log[0].MessageID != ms[0].Header.Get("webhook-id") ||
				log[0].ResponseStatus == nil || *log[0].ResponseStatus != http.StatusNoContent {
				t.Fatalf("delivery log %+v", log)
			}
			var attempt int
			if err := st.DB.QueryRow("SELECT attempt FROM river_job WHERE kind = 'webhook_delivery'").Scan(&attempt); err != nil || attempt != 2 {
				t.Fatalf("delivery job: attempt %d, %v", attempt, err)
			}
		})
	}
}

func webhookIDs(ms []webhooktest.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Header.Get("webhook-id"))
	}
	return out
}
