package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/internal/audit"
)

// A layer with autoupdate: validated as api-shapes shows; when a scan
// finds its datasource changed, a new version is imported and
// published; its autoupdate_schedule scans its source.
func TestAutoupdate(t *testing.T) {
	eachTicking(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		ctx := t.Context()
		two := zipOf(t, map[string]string{"roads.geojson": fixtureFiles["roads.geojson"]})
		three := zipOf(t, map[string]string{"roads.geojson": `{"type": "FeatureCollection", "features": [
			{"type": "Feature", "properties": {"name": "A", "lanes": 2}, "geometry": {"type": "LineString", "coordinates": [[174.77, -41.28], [174.78, -41.29]]}},
			{"type": "Feature", "properties": {"name": "B", "lanes": 4}, "geometry": {"type": "LineString", "coordinates": [[174.775, -41.283], [174.776, -41.284]]}},
			{"type": "Feature", "properties": {"name": "C", "lanes": 1}, "geometry": {"type": "LineString", "coordinates": [[174.7, -41.2], [174.71, -41.21]]}}]}`})
		var served atomic.Pointer[[]byte]
		served.Store(&two)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(*served.Load()) }))
		defer srv.Close()
		src := doJSON[sourceRecord](t, e, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Roads feed", "url_remote": srv.URL + "/roads.zip"}}, http.StatusCreated)
		waitScan(t, e, pub.Key, src.ID)
		ds := datasources(t, e, pub.Key, src.ID)["roads.geojson"]

		// Field errors exactly as api-shapes shows; nothing written.
		before := e.Store.Client.Layer.Query().CountX(ctx)
		expectField(t, e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{ds.ID}}, "autoupdate": true}}),
			"autoupdate_schedule", "This field is required when autoupdate is on.")
		expectField(t, e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{ds.ID}}, "autoupdate": true, "autoupdate_schedule": "@sometimes"}}),
			"autoupdate_schedule", "")
		if e.Store.Client.Layer.Query().CountX(ctx) != before {
			t.Fatal("a refused layer was written")
		}

		l := doJSON[struct {
			layerRecord
			Autoupdate         bool    `json:"autoupdate"`
			AutoupdateSchedule *string `json:"autoupdate_schedule"`
		}](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{ds.ID}}, "autoupdate": true, "autoupdate_schedule": "@weekly"}}, http.StatusCreated)
		if !l.Autoupdate || l.AutoupdateSchedule == nil || *l.AutoupdateSchedule != "@weekly" {
			t.Fatalf("created %+v", l)
		}
		waitVersion(t, e, pub.Key, l.ThisVersion)
		r := e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		first := doJSON[layerRecord](t, e, req{Path: l.URL, Key: pub.Key}, http.StatusOK)

		// Nothing changed: no new version.
		time.Sleep(5 * testTick)
		if n := e.Store.Client.LayerVersion.Query().CountX(ctx); n != 1 {
			t.Fatalf("%d versions before any change", n)
		}

		// The feed changes; a re-scan sees it; the layer follows.
		served.Store(&three)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key, Body: map[string]any{}}), http.StatusCreated)
		if sc := waitScan(t, e, pub.Key, src.ID); sc.ChangeCounts["updated"] != 1 {
			t.Fatalf("re-scan %+v", sc)
		}
		var now layerRecord
		waitFor(t, "the auto-update to publish", func() bool {
			now = doJSON[layerRecord](t, e, req{Path: l.URL, Key: pub.Key}, http.StatusOK)
			return now.ThisVersion != first.ThisVersion
		})
		if now.Data.FeatureCount != 3 || now.Version.State != "published" {
			t.Fatalf("auto-updated %+v", now)
		}
		time.Sleep(5 * testTick)
		if n := e.Store.Client.LayerVersion.Query().CountX(ctx); n != 2 {
			t.Fatalf("%d versions after one change", n)
		}
		// The auto-update's publish is in the audit log, the system's.
		published := e.Store.Client.AuditEntry.Query().
			Where(auditentry.Action("layer.publish"), auditentry.TargetID(strconv.Itoa(l.ID))).
			Order(ent.Asc(auditentry.FieldID)).AllX(ctx)
		if len(published) != 2 || published[0].ActorKind != audit.ActorToken || published[1].ActorKind != audit.ActorSystem {
			kinds := []string{}
			for _, p := range published {
				kinds = append(kinds, p.ActorKind)
			}
			t.Fatalf("layer.publish entries by %v, want the publisher's token then the system", kinds)
		}

		// The autoupdate schedule, when due, scans the source.
		scans := scanCount(t, e, src.ID)
		e.Store.Client.Layer.UpdateOneID(l.ID).SetNextAutoupdateAt(time.Now().Add(-time.Second)).ExecX(ctx)
		waitFor(t, "the auto-update scan", func() bool { return scanCount(t, e, src.ID) == scans+1 })
		if ly := e.Store.Client.Layer.GetX(ctx, l.ID); ly.NextAutoupdateAt == nil || !ly.NextAutoupdateAt.After(time.Now()) {
			t.Fatalf("next auto-update %v", ly.NextAutoupdateAt)
		}
		waitScan(t, e, pub.Key, src.ID)

		// GraphQL turns it off; a reader may not.
		reader := e.NewUser(t, "Reader")
		g := e.GraphQL(t, reader.Key, `mutation($l: ID!) { setLayerAutoupdate(layerID: $l, autoupdate: false) { id } }`, map[string]any{"l": l.ID})
		if len(g.Errors) == 0 {
			t.Fatal("a reader changed auto-update")
		}
		g = e.GraphQL(t, pub.Key, `mutation($l: ID!) { setLayerAutoupdate(layerID: $l, autoupdate: false) { autoupdate autoupdateSchedule } }`, map[string]any{"l": l.ID})
		if len(g.Errors) > 0 || string(g.Data) != `{"setLayerAutoupdate":{"autoupdate":false,"autoupdateSchedule":"@weekly"}}` {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, pub.Key, `mutation($l: ID!) { setLayerAutoupdate(layerID: $l, autoupdate: true, schedule: "") { id } }`, map[string]any{"l": l.ID})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_REQUEST" {
			t.Fatalf("GraphQL without a schedule %s %+v", g.Data, g.Errors)
		}
	})
}
