package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Concurrent edits of a draft, good and bad, each answer promptly and
// never with a 500. An edit that re-imports cancels the running import;
// that cancellation used to run inside the edit's transaction, so on
// SQLite it waited for the write lock its own transaction held (River
// works on a connection of its own): seconds per request, and requests
// queued behind one another for 20 s.
func TestConcurrentVersionEdits(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		src := upload(t, e, pub.Key, map[string][]byte{"data.zip": zipOf(t, map[string]string{
			"codes.csv": "code,label\nA,Alpha\nB,Beta\nC,Gamma\nD,Delta\n",
		})})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		codes := datasources(t, e, pub.Key, src.ID)["codes.csv"]
		dsURL := fmt.Sprintf("%s/sources/%d/datasources/%d/", e.API, src.ID, codes.ID)
		r := e.Do(t, req{Method: "POST", Path: "/tables/", Key: pub.Key, Body: map[string]any{
			"name": "Codes", "data": map[string]any{"datasources": []string{dsURL}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)

		bodies := []any{
			map[string]any{"name": "Codes again", "data": map[string]any{"datasources": []string{dsURL}}},
			map[string]any{"name": "", "data": map[string]any{"datasources": []string{dsURL}}},
			map[string]any{"name": "x", "data": map[string]any{"datasources": []int{99999}}},
			map[string]any{"name": 12, "data": "nope"},
			map[string]any{"description": "Re-described"},
		}
		var wg sync.WaitGroup
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func(body any) {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				b, _ := json.Marshal(body)
				hr, _ := http.NewRequestWithContext(ctx, http.MethodPut, e.API+l.ThisVersion[len(e.API):], bytes.NewReader(b))
				hr.Header.Set("Content-Type", "application/json")
				hr.Header.Set("Authorization", "key "+pub.Key)
				start := time.Now()
				resp, err := http.DefaultClient.Do(hr)
				if err != nil {
					t.Errorf("PUT %s: %v after %v", l.ThisVersion, err, time.Since(start))
					return
				}
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					t.Errorf("PUT %s: %d after %v", l.ThisVersion, resp.StatusCode, time.Since(start))
				}
			}(bodies[i%len(bodies)])
		}
		wg.Wait()
		waitVersion(t, e, pub.Key, l.ThisVersion)
	})
}
