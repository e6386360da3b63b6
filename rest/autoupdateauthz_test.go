package rest_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// Issue 24.9: a layer body's auto-update settings are checked only after
// the caller may edit the layer; anonymous callers and outsiders learn
// nothing of a private layer's schedule, and get for it the answer an
// absent layer gets.
func TestAutoupdateCheckAfterAuthorization(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		outsider := e.NewUser(t, "Outsider")
		ctx := t.Context()
		scheduled := seedLayer(t, e, owner.User, layer.TypeLayer, "Scheduled", true)
		scheduled = scheduled.Update().SetAutoupdateSchedule("@weekly").SaveX(ctx)
		plain := seedLayer(t, e, owner.User, layer.TypeLayer, "Plain", true)
		absent := plain.ID + 1000
		version := func(id int) string {
			vs := e.Store.Client.LayerVersion.Query().AllX(ctx)
			for _, v := range vs {
				if v.LayerID == id {
					return "/layers/" + strconv.Itoa(id) + "/versions/" + strconv.Itoa(v.ID) + "/"
				}
			}
			return "/layers/" + strconv.Itoa(id) + "/versions/1/"
		}
		body := map[string]any{"autoupdate": true}
		for _, key := range []string{"", outsider.Key} {
			answer := func(id int) string {
				r := e.Do(t, req{Method: "PATCH", Path: version(id), Key: key, Body: body})
				return strconv.Itoa(r.Status) + " " + strings.ReplaceAll(r.Detail(t), strconv.Itoa(id), "N")
			}
			want := answer(absent)
			for _, id := range []int{scheduled.ID, plain.ID} {
				if got := answer(id); got != want {
					t.Errorf("key %q, layer %d: %s; an absent layer: %s", key, id, got, want)
				}
			}
		}
	})
}
