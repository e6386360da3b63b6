package rest

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/metadata"
)

// scanQuery are the filter and sort of the scans lists.
var scanQuery = []apidoc.Param{
	{Name: "status", Description: "Only scans in these states (repeatable): " + strings.Join(scanStatuses, ", ") + "."},
	{Name: "started_at.after", Description: "Started after this ISO 8601 time."},
	{Name: "started_at.before", Description: "Started before this ISO 8601 time."},
	{Name: "completed_at.after", Description: "Completed after this ISO 8601 time."},
	{Name: "completed_at.before", Description: "Completed before this ISO 8601 time."},
	{Name: "sort", Description: "id, started_at or completed_at; a leading - sorts descending (default -id)."},
}

// sourceOps documents sources, their scans and datasources.
func sourceOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Sources", read: auth.ScopeSourcesRead, write: auth.ScopeSourcesWrite}
	d.op(http.MethodGet, "/sources", "Sources the caller may see").Paging().WithQuery(searchParams...).
		ReturnsJSON(200, "A page of sources.", []sourceSummary{})
	d.op(http.MethodPost, "/sources", "Create a source (JSON) or upload files into a new one (multipart)").
		AcceptsJSON(sourceBody{}).Accepts("multipart/form-data", apidoc.Object).ReturnsJSON(201, "The source.", sourceJSON{})
	one := "/sources/{sid:[0-9]+}"
	d.op(http.MethodGet, one, "A source").ReturnsJSON(200, "The source.", sourceJSON{})
	d.op(http.MethodPut, one, "Change a source").AcceptsJSON(sourceBody{}).ReturnsJSON(200, "The source.", sourceJSON{})
	d.op(http.MethodDelete, one, "Delete a source").NoContent("Deleted.")
	d.op(http.MethodGet, one+"/scans", "A source's scans, newest first").Paging().WithQuery(scanQuery...).
		ReturnsJSON(200, "A page of scans.", []scanJSON{})
	d.op(http.MethodPost, one+"/scans", "Scan the source now").ReturnsJSON(201, "The scan.", scanJSON{})
	d.op(http.MethodGet, one+"/scans/{scid:[0-9]+}", "A scan").ReturnsJSON(200, "The scan.", scanJSON{})
	d.op(http.MethodDelete, one+"/scans/{scid:[0-9]+}", "Cancel a scan").NoContent("Cancelled.")
	d.op(http.MethodGet, one+"/scans/{scid:[0-9]+}/log", "A scan's log").Returns(200, "The log.", "text/plain", apidoc.String)
	d.op(http.MethodGet, one+"/datasources", "The datasources a source holds").Paging().
		ReturnsJSON(200, "A page of datasources.", []datasourceSummary{})
	d.op(http.MethodGet, one+"/datasources/{did:[0-9]+}", "A datasource").ReturnsJSON(200, "The datasource.", datasourceJSON{})
	d.op(http.MethodGet, "/sources/scans", "Scans of every source the caller may scan, newest first").Paging().
		WithQuery(scanQuery...).ReturnsJSON(200, "A page of scans.", []scanJSON{})
	dm := one + "/datasources/{did:[0-9]+}/metadata"
	d.op(http.MethodGet, dm, "The metadata document found beside a datasource, as found").
		Returns(200, "The document.", "text/xml", apidoc.String).Fails(http.StatusNotFound, "The datasource has no metadata.")
	d.op(http.MethodGet, dm+"/simple", "A datasource's metadata, simplified").ReturnsJSON(200, "Title, abstract, keywords and bounding box.", metadataSimpleJSON{})
	for _, f := range metadata.Formats {
		d.op(http.MethodGet, dm+"/"+string(f), "A datasource's metadata in "+string(f)).
			Returns(200, "The document.", "text/xml", apidoc.String).Fails(http.StatusNotFound, "Not available in that format.")
	}
}
