package rest_test

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
)

// TestBulkPublishDoesNotTellPrivateDraftsFromMissingOnes: POST /publish/
// refused a stranger's draft with "Version N is not yours to publish" and a
// version that does not exist with "Some versions do not exist", so anyone
// signed in could find which version ids exist. Both now get the same
// answer. (Found by the authorization matrix's refused writes.)
func TestBulkPublishDoesNotTellPrivateDraftsFromMissingOnes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, stranger := e.NewUser(t, "Owner"), e.NewUser(t, "Stranger")
		l := seedLayer(t, e, owner.User, layer.TypeLayer, "Private roads", true)
		draft := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(l.ID)).OnlyX(t.Context())
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: owner.Key, Body: map[string]any{"title": "Private set", "items": []string{memberURL(e, l)}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)

		digits := regexp.MustCompile(`[0-9]+`)
		answer := func(item string) string {
			r := e.Do(t, req{Method: "POST", Path: "/publish/", Key: stranger.Key, Body: map[string]any{"items": []string{item}}})
			// The version's own number is the only difference allowed.
			return fmt.Sprintf("%d %s", r.Status, digits.ReplaceAll(r.Body, []byte("N")))
		}
		setMissing := regexp.MustCompile(`/versions/[0-9]+/$`).ReplaceAllString(s.ThisVersion, "/versions/999999/")
		for _, c := range []struct{ name, private, missing string }{
			{"layer", fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, l.ID, draft.ID), fmt.Sprintf("%s/layers/%d/versions/999999/", e.API, l.ID)},
			{"set", s.ThisVersion, setMissing},
		} {
			if got, want := answer(c.private), answer(c.missing); got != want {
				t.Errorf("%s: a private draft gets %s, a missing one %s: the answers tell them apart", c.name, got, want)
			}
		}
	})
}
