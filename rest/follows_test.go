package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// followed is what the tests read of GET /follows/.
type followed struct {
	Dataset struct {
		Type  string `json:"type"`
		ID    any    `json:"id"`
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"dataset"`
	Via string `json:"via"`
}

// notificationKinds reads the kinds of a user's notifications and the
// payload of the last.
func notificationKinds(t *testing.T, e *env, key string) ([]string, map[string]any) {
	t.Helper()
	var ns []struct {
		Kind    string         `json:"kind"`
		Payload map[string]any `json:"payload"`
	}
	resp := e.Do(t, req{Path: "/notifications/", Key: key})
	expectStatus(t, resp, http.StatusOK)
	resp.JSON(t, &ns)
	var kinds []string
	var last map[string]any
	for _, n := range ns {
		if strings.HasPrefix(n.Kind, "dataset.") {
			kinds = append(kinds, n.Kind)
			last = n.Payload
		}
	}
	return kinds, last
}

// Issue 26.6: "follow a dataset (star or explicit follow) to get its
// events in the notification stream". Through REST: POST and DELETE
// .../follow/ (idempotent, 204, as stars), GET /follows/ naming how each
// is followed; a follower and a fan (a star) get the new version's
// event, with its diff counts, in their notification streams; one who
// unfollowed a starred layer does not; a layer one may not see is 404.
func TestFollowsThroughREST(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub, follower, fan, quiet := e.NewUser(t, "Petra"), e.NewUser(t, "Finn"), e.NewUser(t, "Fay"), e.NewUser(t, "Quinn")
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelCollection(parcelFeature(10, "a", 174.70))},
			"parcels.geojson", "Parcels")
		doJSON[pkRecord](t, e, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody("code")}, http.StatusOK)
		publishLayerDraft(t, e, pub, draft)
		layerURL := strings.Split(draft, "versions/")[0]

		for range 2 {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: layerURL + "follow/", Key: follower.Key}), http.StatusNoContent)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: layerURL + "star/", Key: fan.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: layerURL + "star/", Key: quiet.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: layerURL + "follow/", Key: quiet.Key}), http.StatusNoContent)
		for _, c := range []struct {
			u   *user
			via string
		}{{follower, "follow"}, {fan, "star"}, {quiet, ""}} {
			fs := doJSON[[]followed](t, e, req{Path: "/follows/", Key: c.u.Key}, http.StatusOK)
			if c.via == "" && len(fs) != 0 || c.via != "" && (len(fs) != 1 || fs[0].Via != c.via || fs[0].Dataset.URL != layerURL ||
				fs[0].Dataset.Type != "layer" || fs[0].Dataset.Title != "Parcels") {
				t.Fatalf("%s follows %+v, want the layer by %q", c.u.User.FirstName, fs, c.via)
			}
		}

		d2 := importedNextDraft(t, e, pub.Key, layerURL, map[string]string{"parcels.geojson": parcelCollection(parcelFeature(10, "a", 174.71),
			parcelFeature(20, "b", 174.72))}, "parcels.geojson")
		publishLayerDraft(t, e, pub, d2)
		var payload map[string]any
		waitFor(t, "the follower's notification", func() bool {
			var kinds []string
			kinds, payload = notificationKinds(t, e, follower.Key)
			return len(kinds) > 0
		})
		if kinds, _ := notificationKinds(t, e, follower.Key); !slices.Equal(kinds, []string{"dataset.new_version"}) {
			t.Fatalf("the follower was told %v", kinds)
		}
		ds, _ := payload["dataset"].(map[string]any)
		detail, _ := payload["detail"].(map[string]any)
		// Stored notifications carry URLs under the configured base URL;
		// the test server has none, so they are paths.
		if u, _ := ds["url"].(string); u == "" || !strings.HasSuffix(layerURL, u) || detail["counts"] == nil {
			t.Fatalf("notification payload %v: want the event with the layer's URL and the diff's counts", payload)
		}
		waitFor(t, "the fan's notification", func() bool {
			kinds, _ := notificationKinds(t, e, fan.Key)
			return slices.Equal(kinds, []string{"dataset.new_version"})
		})
		if kinds, _ := notificationKinds(t, e, quiet.Key); len(kinds) != 0 {
			t.Fatalf("one who unfollowed was told %v", kinds)
		}

		for _, p := range []string{"/layers/999999/follow/", "/tables/999999/follow/", "/items/c999999/follow/",
			strings.Replace(layerURL, "/layers/", "/tables/", 1) + "follow/"} {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: p, Key: follower.Key}), http.StatusNotFound)
		}
	})
}
