package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
)

// changeOps documents the change feeds: the catalogue's and each
// dataset's.
func changeOps(ops *[]*apidoc.Operation) {
	params := []apidoc.Param{
		{Name: "after", Description: "The cursor to read on from: an event's id, or the `after` of the page-next link. Default: the start of the feed (for Atom, the newest events)."},
		{Name: "page_size", Description: fmt.Sprintf("Events per page, 1 to %d (default %d).", graph.MaxChangePage, graph.DefaultChangePage)},
		{Name: "types", Description: "Only these event types, comma-separated: " + strings.Join(changefeed.Types, ", ") + "."},
		{Name: "format", Description: "json (default) or atom (or Accept: application/atom+xml)."},
	}
	describe := "Events in the order they committed: a dataset published for the first time, a new version (with, for vector layers " +
		"and tables, the diff's counts and schema changes in `detail`, counted by a job shortly after the publish), a schema " +
		"change, a change of who may use it, its deletion. Only events of datasets the caller may see now; a deleted dataset's " +
		"history stays visible when everyone could view it at its deletion. The Link header (rel=\"page-next\") names where to " +
		"read on, even after an empty page: poll it. Atom without a cursor gives the newest events, newest first, for feed readers."
	c := docs{ops: ops, tag: "Changes", read: auth.ScopeCatalog, write: auth.ScopeCatalog}
	c.op(http.MethodGet, "/changes", "What changed in the catalogue").Describe(describe).WithQuery(params...).
		ReturnsJSON(200, "A page of events, oldest first.", []changeJSON{}).
		Returns(200, "The events as an Atom feed.", "application/atom+xml", apidoc.String)
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		d := docs{ops: ops, tag: "Changes", read: b.read, write: b.read}
		d.op(http.MethodGet, b.member()+"/changes", "What changed in the "+noun(b)).Describe(describe).WithQuery(params...).
			ReturnsJSON(200, "A page of the "+noun(b)+"'s events, oldest first.", []changeJSON{}).
			Returns(200, "The events as an Atom feed.", "application/atom+xml", apidoc.String)
	}
}
