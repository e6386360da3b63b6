package ogc_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// Issue 24.6: a layer's changeset type follows the layer's wfs service
// as its own type does: with wfs off, neither answers nor is listed,
// whatever wfs-changesets says.
func TestWFSChangesetFollowsWFSSwitch(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, reader := e.NewUser(t, "Owner"), e.NewUser(t, "Reader")
		t1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		id := publishPKVersion(t, e, owner.User, 0, t1, false,
			[]feature{{1, pt(174, -41), map[string]any{"code": int64(10), "name": "a"}}})
		f := &fixture{e: e, owner: owner, reader: reader}
		plain, changes := fmt.Sprintf("geopub:layer-%d", id), fmt.Sprintf("geopub:layer-%d-changeset", id)
		vp := "from:" + t1.Add(-time.Hour).Format(time.RFC3339)

		f.call(t, owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs/", id), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		for _, key := range []string{owner.Key, reader.Key, ""} {
			f.wfs(t, key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", changes, "VIEWPARAMS", vp).exception(t, 404, "NotFound")
			f.wfs(t, key, "REQUEST", "DescribeFeatureType", "VERSION", "2.0.0", "TYPENAMES", changes).exception(t, 404, "NotFound")
			names := typeNames(t, f.wfs(t, key, "REQUEST", "GetCapabilities").body)
			if slices.Contains(names, changes) || slices.Contains(names, plain) {
				t.Errorf("wfs off, key %q: types %v", key, names)
			}
		}
	})
}
