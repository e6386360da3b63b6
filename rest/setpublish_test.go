package rest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
)

// A publish group may mix layer and set versions: it publishes them
// together once the layers' imports are done; bad set items are refused.
func TestPublishGroupWithSetsAndLayers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		other := e.NewUser(t, "Other")
		draftLayer := seedLayer(t, e, pub.User, layer.TypeLayer, "Fresh", true)
		lv := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(draftLayer.ID)).OnlyX(t.Context())
		layerVersionURL := fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, draftLayer.ID, lv.ID)

		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{"title": "With fresh", "items": []int{draftLayer.ID}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)

		// Refused: a set version that does not exist, someone else's, and a
		// token that may publish sets but not layers.
		missing := fmt.Sprintf("%s/sets/%d/versions/999999/", e.API, s.ID)
		for name, c := range map[string]struct {
			key   string
			items []string
			want  int
		}{
			"Missing":      {pub.Key, []string{missing}, http.StatusBadRequest},
			"NotYours":     {other.Key, []string{s.ThisVersion}, http.StatusBadRequest},
			"SetsOnlyKey":  {e.Token(t, pub.User, "sets:write"), []string{layerVersionURL, s.ThisVersion}, http.StatusUnauthorized},
			"DocumentItem": {pub.Key, []string{e.API + "/documents/1/versions/1/"}, http.StatusBadRequest},
		} {
			t.Run(name, func(t *testing.T) {
				r := e.Do(t, req{Method: "POST", Path: "/publish/", Key: c.key, Body: map[string]any{"items": c.items}})
				expectStatus(t, r, c.want)
			})
		}

		// The scope header names what the items need: sets:write for
		// sets alone, layers:write as soon as a layer is among them.
		setsOnly := e.Token(t, pub.User, "sets:write")
		r = e.Do(t, req{Method: "POST", Path: "/publish/", Key: setsOnly, Body: map[string]any{"items": []string{missing}}})
		if r.Header.Get("Accepted-OAuth-Scopes") != "sets:write" || r.Status != http.StatusBadRequest {
			t.Fatalf("sets alone: %d, Accepted-OAuth-Scopes %q", r.Status, r.Header.Get("Accepted-OAuth-Scopes"))
		}
		r = e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{layerVersionURL, s.ThisVersion}}})
		expectStatus(t, r, http.StatusCreated)
		if r.Header.Get("Accepted-OAuth-Scopes") != "layers:write" {
			t.Fatalf("layers and sets: Accepted-OAuth-Scopes %q", r.Header.Get("Accepted-OAuth-Scopes"))
		}
		g := waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		if g["state"] != "completed" || !reflect.DeepEqual(g["items"], []any{layerVersionURL, s.ThisVersion}) {
			t.Fatalf("publish group %+v", g)
		}
		// Both are published: the reader sees the set and its member.
		got := getSet(t, e, reader.Key, s.URL, nil)
		if got.Version.State != "published" || !reflect.DeepEqual(got.itemURLs(t), []string{memberURL(e, draftLayer)}) {
			t.Fatalf("published set %+v", got)
		}
		var ns []struct {
			Kind    string
			Payload map[string]any
		}
		e.Do(t, req{Path: "/notifications/", Key: pub.Key}).JSON(t, &ns)
		last := ns[len(ns)-1]
		if last.Kind != "publish.completed" || fmt.Sprint(last.Payload["set_version_ids"]) != fmt.Sprintf("[%d]", s.Version.ID) {
			t.Fatalf("notification %+v", last)
		}
	})
}
