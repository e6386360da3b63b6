package rest

import (
	"fmt"
	"net/http"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/audit"
)

// auditOps documents the audit log's routes.
func auditOps(ops *[]*apidoc.Operation) {
	params := []apidoc.Param{
		{Name: "actor", Description: "Only changes made by this user id."},
		{Name: "target_type", Description: "Only changes of this kind of object: layer, table, set, document, item, source, group, token, session, service, site."},
		{Name: "target_id", Description: "Only changes of this object (with target_type)."},
		{Name: "action", Description: "An action such as permission.grant, or a prefix ending in . or .* (token. matches token.create)."},
		{Name: "from", Description: "Only changes at or after this RFC 3339 time."},
		{Name: "to", Description: "Only changes before this RFC 3339 time."},
		{Name: "after", Description: "The cursor to read on from, as the page-next link gives it."},
		{Name: "page_size", Description: fmt.Sprintf("Entries per page, 1 to %d (%d for CSV; default %d).", auditMaxJSONPage, auditMaxCSVPage, audit.DefaultPageSize)},
	}
	describe := "Who changed what, when and from where: permissions, group membership, tokens, sessions, publishes, " +
		"deletions, site settings, sources and service switches, newest first. Site administrators read every entry, " +
		"group administrators the entries concerning their groups, other users none. Entries are never changed or deleted."
	d := docs{ops: ops, tag: "Audit", read: graph.AuditScope, write: graph.AuditScope}
	d.op(http.MethodGet, "/audit", "The audit log").Private().Describe(describe).WithQuery(params...).
		ReturnsJSON(200, "A page of entries, newest first.", []auditEntryJSON{}).
		Returns(200, "The page as RFC 4180 CSV (Accept: text/csv).", "text/csv", apidoc.String)
	d.op(http.MethodGet, "/audit.csv", "The audit log as CSV").Private().Describe(describe).WithQuery(params...).
		Returns(200, "A page of entries as RFC 4180 CSV with a header row, newest first.", "text/csv", apidoc.String)
}
