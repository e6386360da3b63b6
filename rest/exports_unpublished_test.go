package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
)

// Issue 24.4: exports/validate tells outsiders nothing of a never-published
// layer: named directly it gets the reasons an absent layer gets, and a
// public set holding it does not name its URL. Its editors still learn
// it has no published version.
func TestExportValidateHidesUnpublished(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, outsider := e.NewUser(t, "Owner"), e.NewUser(t, "Outsider")
		pub := seedLayer(t, e, owner.User, layer.TypeLayer, "Roads", false)
		draft := seedLayer(t, e, owner.User, layer.TypeLayer, "Secret Drafts", true)
		seedSets(t, e, owner.User, 1, []*ent.Layer{pub, draft})
		setURL := fmt.Sprintf("%s/sets/%d/", e.API, e.Store.Client.Set.Query().OnlyIDX(t.Context()))
		draftURL, absentURL := memberURL(e, draft), fmt.Sprintf("%s/layers/%d/", e.API, draft.ID+1000)
		gpkg := map[string]any{"vector": "application/x-ogc-gpkg"}
		validate := func(key string, items ...string) (validationRecord, string) {
			t.Helper()
			body := map[string]any{"formats": gpkg, "items": []map[string]any{}}
			for _, it := range items {
				body["items"] = append(body["items"].([]map[string]any), map[string]any{"item": it})
			}
			r := e.Do(t, req{Method: "POST", Path: "/exports/validate/", Key: key, Body: body})
			expectStatus(t, r, http.StatusOK)
			var v validationRecord
			r.JSON(t, &v)
			return v, string(r.Body)
		}

		v, _ := validate(outsider.Key, draftURL, absentURL)
		if a, b := v.reasonsOf(t, draftURL), v.reasonsOf(t, absentURL); !slices.Equal(a, b) {
			t.Errorf("an unpublished layer: %q; an absent one: %q", a, b)
		}
		v, body := validate(outsider.Key, setURL)
		if strings.Contains(body, fmt.Sprintf("/layers/%d/", draft.ID)) {
			t.Errorf("the set names its unpublished member: %s", body)
		}
		if len(v.Items) == 0 {
			t.Errorf("the set's published member is missing: %s", body)
		}

		v, _ = validate(owner.Key, draftURL)
		if !hasReason(v.reasonsOf(t, draftURL), "not-found: the dataset has no published version") {
			t.Errorf("the owner: %+v", v)
		}
	})
}
