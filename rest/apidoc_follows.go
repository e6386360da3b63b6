package rest

import (
	"net/http"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// followOps documents follows: what the caller follows, and following
// and unfollowing each kind of dataset.
func followOps(ops *[]*apidoc.Operation) {
	f := docs{ops: ops, tag: "Follows", read: auth.ScopeCatalog, write: auth.ScopeCatalog}
	f.op(http.MethodGet, "/follows", "The datasets the caller follows").Private().Paging().
		Describe("Datasets whose change events come to the caller's notification stream (kind: the event's type; payload: "+
			"the event as /changes/ gives it): those followed explicitly, and those starred and not unfollowed (via: follow "+
			"or star); only datasets the caller may still see, newest first.").
		ReturnsJSON(200, "The followed datasets.", []followJSON{})
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		p := b.member() + "/follow"
		f.op(http.MethodPost, p, "Follow the "+noun(b)).Private().
			Describe("Its change events then come to the caller's notification stream; done also when already followed.").
			NoContent("Following.")
		f.op(http.MethodDelete, p, "Unfollow the "+noun(b)).Private().
			Describe("Its events stop coming, even while it is starred; done also when not followed.").NoContent("Not following.")
	}
}
