package rest

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/metadata"
)

// versionOps documents a dataset's version routes under member (the
// chi pattern of one dataset): list, draft, read, change, delete, publish.
func versionOps(d docs, member, noun string, version any) {
	v := member + "/versions"
	d.op(http.MethodGet, v, "The "+noun+"'s versions").Paging().ReturnsJSON(200, "The versions, newest first.", []any{version})
	d.op(http.MethodPost, v, "Start a draft of the "+noun).ReturnsJSON(201, "The draft version.", version).
		Fails(http.StatusConflict, "A draft already exists.")
	d.op(http.MethodGet, v+"/{vid:[0-9]+|draft|published}", "A version of the "+noun+" (a number, draft or published)").
		WithHeader(hExpand).ReturnsJSON(200, "The version.", version)
	d.op(http.MethodPut, v+"/{vid:[0-9]+}", "Change a draft version of the "+noun).AcceptsJSON(apidoc.Object).
		ReturnsJSON(200, "The version.", version).Fails(http.StatusMethodNotAllowed, "The version is published.")
	if noun != "item" {
		d.op(http.MethodPatch, v+"/{vid:[0-9]+}", "Change some fields of a draft version of the "+noun+" (as PUT: absent fields stay)").
			AcceptsJSON(apidoc.Object).ReturnsJSON(200, "The version.", version).
			Fails(http.StatusMethodNotAllowed, "The version is published.")
	}
	d.op(http.MethodDelete, v+"/{vid:[0-9]+}", "Delete a draft version of the "+noun).NoContent("Deleted; the published version remains.").
		Fails(http.StatusMethodNotAllowed, "The version is not a draft.").Fails(http.StatusConflict, "The version is already deleted.")
}

// restoreOp documents the restore of an earlier version of a set,
// document or catalog item.
func restoreOp(d docs, path, noun string, version any) {
	d.op(http.MethodPost, path, "Restore an earlier version: a new draft that starts as it is").
		Describe("The draft has the version's content (a set's members, a document's file, an item's link), title or name, "+
			"description, terms and metadata document, and publishes as any draft does. The version must have been published "+
			"(published or superseded).").
		ReturnsJSON(201, "The "+noun+" as of the new draft.", version).
		Fails(http.StatusConflict, "The "+noun+" has a draft, or the version was never published.")
}

// layerOps documents layers, tables and publishes.
func layerOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Layers and tables", read: auth.ScopeLayersRead, write: auth.ScopeLayersWrite, anon: true}
	for _, kind := range []string{"layers", "tables"} {
		base := "/" + kind
		noun := strings.TrimSuffix(kind, "s")
		d.op(http.MethodGet, base, "Published "+kind).Paging().WithQuery(searchParams...).WithHeader(hExpand).
			ReturnsJSON(200, "A page of "+kind+" (full details with Expand: list).", []layerJSON{})
		d.op(http.MethodGet, base+"/drafts", kind+" with a draft the caller may see").Paging().WithQuery(searchParams...).
			WithHeader(hExpand).ReturnsJSON(200, "A page of "+kind+".", []layerJSON{})
		d.op(http.MethodPost, base, "Create a "+noun).AcceptsJSON(layerBody{}).ReturnsJSON(201, "The "+noun+"'s draft.", layerJSON{})
		d.op(http.MethodGet, base+"/{lid:[0-9]+}", "A "+noun+" (its published version, else its draft)").WithHeader(hExpand).
			ReturnsJSON(200, "The "+noun+".", layerJSON{})
		d.op(http.MethodDelete, base+"/{lid:[0-9]+}", "Delete a "+noun).NoContent("Deleted.")
		versionOps(d, base+"/{lid:[0-9]+}", noun, layerJSON{})
		d.op(http.MethodPost, base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/import", "Import a draft version's data again").
			Accepts("application/json", apidoc.Object).ReturnsJSON(202, "The "+noun+" with the import under way.", layerJSON{}).
			Fails(http.StatusConflict, "The version is published.")
		d.op(http.MethodPost, base+"/{lid:[0-9]+}/versions/import", "Start an update: a new draft from the "+noun+"'s datasources, imported").
			Accepts("application/json", apidoc.Object).ReturnsJSON(202, "The "+noun+" as of the new draft, its import under way.", layerJSON{}).
			Fails(http.StatusConflict, "The "+noun+" already has a draft.").
			Fails(http.StatusBadRequest, "No valid datasources to import.")
		d.op(http.MethodPost, base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/publish", "Publish a draft version").
			ReturnsJSON(201, "The publish.", publishJSON{}).Fails(http.StatusConflict, "The version is already published or being published.")
		d.op(http.MethodPost, base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/restore", "Restore an earlier version: a new draft that starts as it is").
			Describe("The draft has the version's data, schema, primary key, description, terms and metadata document, and "+
				"publishes as any draft does. The version must have been published (published or superseded).").
			Accepts("application/json", apidoc.Object).ReturnsJSON(201, "The "+noun+" as of the new draft.", layerJSON{}).
			Fails(http.StatusConflict, "The "+noun+" has a draft, or the version was never published or has no data.")
		d.op(http.MethodGet, base+"/{lid:[0-9]+}/diff", "What changed between two versions of the "+noun+" (the kart-diff service)").
			Describe("Features inserted, updated and deleted, matched by the newer version's primary key (else by content), and the "+
				"schema's changes. `to` defaults to the published version, `from` to the version published before it. "+
				"Formats: a page of changes as Kart's GeoJSON (features `I::key`, `D::key`, `U-::key`, `U+::key`; the next page in "+
				"`links` and the Link header), every change as JSON lines, or counts. Needs download permission.").
			WithQuery(apidoc.Param{Name: "from", Description: "The older version's id."},
				apidoc.Param{Name: "to", Description: "The newer version's id."},
				apidoc.Param{Name: "format", Description: "geojson (default, or Accept: application/geo+json), jsonl (or Accept: application/x-ndjson) or counts."},
				apidoc.Param{Name: "page_size", Description: "Changes per GeoJSON page, 1 to 1000 (default 100)."},
				apidoc.Param{Name: "cursor", Description: "Resume after the change of this cursor (from the next link)."}).
			Returns(200, "A page of changes as GeoJSON.", "application/geo+json", diffPageJSON{}).
			Returns(200, "Every change as JSON lines: a diff line, a feature line per change, a counts line.", "application/x-ndjson", apidoc.String).
			Returns(200, "The counts (format=counts).", "application/json", diffCountsJSON{}).
			Fails(http.StatusConflict, "A version's import has not succeeded.")
	}
	d.op(http.MethodPost, "/publish", "Publish several versions together").AcceptsJSON(publishBody{}).
		ReturnsJSON(201, "The publish.", publishJSON{})
	d.op(http.MethodGet, "/publish", "The publishes the caller started (every one, for site administrators), newest first").Private().Paging().
		WithQuery(apidoc.Param{Name: "state", Description: "Only publishes in these states (repeatable): " + strings.Join(publishStates, ", ") + "."},
			apidoc.Param{Name: "reference", Description: "Only publishes with this reference."}).
		ReturnsJSON(200, "A page of publishes.", []publishJSON{})
	d.op(http.MethodGet, "/publish/{pid:[0-9]+}", "A publish").Private().ReturnsJSON(200, "The publish.", publishJSON{})
	d.op(http.MethodDelete, "/publish/{pid:[0-9]+}", "Cancel a publish").NoContent("Cancelled.")
}

// setOps documents sets.
func setOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Sets", read: auth.ScopeSetsRead, write: auth.ScopeSetsWrite, anon: true}
	d.op(http.MethodGet, "/sets", "Published sets").Paging().WithQuery(qText, qSort).WithHeader(hExpand).
		ReturnsJSON(200, "A page of sets.", []setSummary{})
	d.op(http.MethodGet, "/sets/drafts", "Sets with a draft the caller may see").Paging().WithQuery(qText, qSort).WithHeader(hExpand).
		ReturnsJSON(200, "A page of sets.", []setSummary{})
	d.op(http.MethodPost, "/sets", "Create a set").AcceptsJSON(setBody{}).ReturnsJSON(201, "The set's draft.", setJSON{})
	d.op(http.MethodGet, "/sets/{sid:[0-9]+}", "A set").WithHeader(hExpand).ReturnsJSON(200, "The set.", setJSON{})
	d.op(http.MethodDelete, "/sets/{sid:[0-9]+}", "Delete a set").NoContent("Deleted.")
	versionOps(d, "/sets/{sid:[0-9]+}", "set", setVersionJSON{})
	restoreOp(d, "/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}/restore", "set", setVersionJSON{})
	d.op(http.MethodPost, "/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}/publish", "Publish a draft version").
		ReturnsJSON(201, "The publish.", publishJSON{})
	d.op(http.MethodGet, "/sets/{sid:[0-9]+}/diff", "What changed between two versions of the set, per member (the kart-diff service)").
		Describe("The set's own fields that changed (old and new), the members added and removed, and a page of the members "+
			"kept whose layer version changed, each with its layer diff's counts, schema changes and `diff_url`. A set version "+
			"stands for each member's version published last before the next set version was (the current version and drafts: "+
			"the member's published version). Only members the caller may see are compared; a member's counts are null to "+
			"those who may not read its own diff. `to` defaults to the published version, `from` to the one before it. "+
			"Needs download permission on the set.").
		WithQuery(apidoc.Param{Name: "from", Description: "The older version's id."},
			apidoc.Param{Name: "to", Description: "The newer version's id."},
			apidoc.Param{Name: "format", Description: "json (default) or counts (the numbers of members added, removed and changed alone)."},
			apidoc.Param{Name: "page_size", Description: "Changed members counted per page, 1 to 100 (default 20)."},
			apidoc.Param{Name: "cursor", Description: "Resume after a page (from the next link)."}).
		ReturnsJSON(200, "The diff.", setDiffJSON{})
}

// starOps documents the star of layers, tables, sets and documents (the
// catalog items' is with the items).
func starOps(ops *[]*apidoc.Operation) {
	c := docs{ops: ops, tag: "Stars", write: auth.ScopeCatalog}
	for _, m := range []struct{ path, noun string }{
		{"/layers/{lid:[0-9]+}/star", "layer"}, {"/tables/{lid:[0-9]+}/star", "table"},
		{"/sets/{sid:[0-9]+}/star", "set"}, {"/documents/{did:[0-9]+}/star", "document"},
	} {
		c.op(http.MethodPost, m.path, "Add the "+m.noun+" to the caller's stars").NoContent("Done (also when it was starred already).")
		c.op(http.MethodDelete, m.path, "Remove the "+m.noun+" from the caller's stars").NoContent("Done (also when it was not starred).")
	}
}

// documentOps documents documents.
func documentOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Documents", read: auth.ScopeDocumentsRead, write: auth.ScopeDocumentsWrite, anon: true}
	d.op(http.MethodGet, "/documents", "Published documents").Paging().ReturnsJSON(200, "A page of documents.", []documentJSON{})
	d.op(http.MethodPost, "/documents", "Upload a document").Accepts("multipart/form-data", documentBody{}).
		ReturnsJSON(201, "The document.", documentDetail{})
	doc := "/documents/{did:[0-9]+}"
	d.op(http.MethodGet, doc, "A document").ReturnsJSON(200, "The document detail.", documentDetail{})
	d.op(http.MethodDelete, doc, "Delete a document").NoContent("Deleted.")
	d.op(http.MethodGet, doc+"/download", "The document's file").Returns(200, "The file.", "application/octet-stream", apidoc.String)
	v := doc + "/versions"
	d.op(http.MethodGet, v, "The document's versions").ReturnsJSON(200, "The versions.", []documentVersionJSON{})
	d.op(http.MethodPost, v, "Start a draft of the document").Accepts("multipart/form-data", documentBody{}).
		ReturnsJSON(201, "The draft version.", documentVersionJSON{})
	d.op(http.MethodGet, v+"/{vid:[0-9]+}", "A version of the document").ReturnsJSON(200, "The version.", documentVersionJSON{})
	d.op(http.MethodPut, v+"/{vid:[0-9]+}", "Change a draft version").AcceptsJSON(documentBody{}).
		ReturnsJSON(200, "The version.", documentVersionJSON{})
	d.op(http.MethodPatch, v+"/{vid:[0-9]+}", "Change some fields of a draft version (as PUT: absent fields stay)").
		AcceptsJSON(documentBody{}).ReturnsJSON(200, "The version.", documentVersionJSON{})
	// The specification states these bodies: "405 body {error: string}
	// if not a draft; 409 body {error: string} if already deleted".
	d.op(http.MethodDelete, v+"/{vid:[0-9]+}", "Delete a draft version, reverting to the published one").
		NoContent("Deleted.").
		FailsWith(http.StatusMethodNotAllowed, "The version is not a draft.", apidoc.SpecErrorBody).
		FailsWith(http.StatusConflict, "The version is already deleted.", apidoc.SpecErrorBody)
	restoreOp(d, v+"/{vid:[0-9]+}/restore", "document", documentVersionJSON{})
	d.op(http.MethodPost, v+"/{vid:[0-9]+}/import", "Publish a draft version").
		ReturnsJSON(200, "The published version.", documentVersionJSON{})
	d.op(http.MethodGet, v+"/{vid:[0-9]+}/download", "A version's file").Returns(200, "The file.", "application/octet-stream", apidoc.String)
}

// itemOps documents catalog items.
func itemOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Catalog items", read: auth.ScopeCatalog, write: auth.ScopeItemsWrite, anon: true}
	d.op(http.MethodGet, "/items", "Published catalog items").Paging().WithQuery(searchParams...).
		ReturnsJSON(200, "A page of items.", []itemJSON{})
	d.op(http.MethodGet, "/items/drafts", "Items with a draft the caller may see").Paging().WithQuery(searchParams...).
		ReturnsJSON(200, "A page of items.", []itemJSON{})
	d.op(http.MethodPost, "/items", "Create a catalog item").AcceptsJSON(itemBody{}).ReturnsJSON(201, "The item's draft.", itemJSON{})
	d.op(http.MethodGet, itemPath, "A catalog item").ReturnsJSON(200, "The item.", itemJSON{})
	d.op(http.MethodDelete, itemPath, "Delete a catalog item").NoContent("Deleted.")
	versionOps(d, itemPath, "item", itemVersionJSON{})
	restoreOp(d, itemPath+"/versions/{vid:[0-9]+}/restore", "item", itemVersionJSON{})
	d.op(http.MethodPost, itemPath+"/versions/{vid:[0-9]+}/publish", "Publish a draft version").
		ReturnsJSON(201, "The publish.", publishJSON{})
	d.op(http.MethodGet, itemPath+"/diff", "What changed in the item's metadata between two versions (the kart-diff service)").
		Describe("The fields whose values differ, old and new: title, description, link_url, tags, categories and the "+
			"metadata document's format, title, abstract and keywords (metadata.*). Attachments and geotags belong to the item, "+
			"not a version. `to` defaults to the published version, `from` to the one before it. Needs download permission.").
		WithQuery(apidoc.Param{Name: "from", Description: "The older version's id."},
			apidoc.Param{Name: "to", Description: "The newer version's id."}).
		ReturnsJSON(200, "The diff.", itemDiffJSON{})

	att := itemPath + "/attachments"
	d.op(http.MethodGet, att, "An item's attached documents").ReturnsJSON(200, "The attachments.", []itemAttachmentJSON{})
	d.op(http.MethodPost, att, "Attach a document").AcceptsJSON(apidoc.Object).ReturnsJSON(201, "The attachment.", itemAttachmentJSON{})
	d.op(http.MethodGet, att+"/{did:[0-9]+}", "An attachment").ReturnsJSON(200, "The attachment.", itemAttachmentJSON{})
	d.op(http.MethodDelete, att+"/{did:[0-9]+}", "Detach a document").NoContent("Detached.")
	geo := itemPath + "/geotags"
	d.op(http.MethodGet, geo, "An item's geotags").ReturnsJSON(200, "The geotags.", []geotagJSON{})
	d.op(http.MethodPost, geo, "Add a geotag").AcceptsJSON(apidoc.Object).ReturnsJSON(201, "The geotag.", geotagJSON{})
	d.op(http.MethodGet, geo+"/{gid:[0-9]+}", "A geotag").ReturnsJSON(200, "The geotag.", geotagJSON{})
	d.op(http.MethodDelete, geo+"/{gid:[0-9]+}", "Remove a geotag").NoContent("Removed.")
	ar := itemPath + "/access-requests"
	d.op(http.MethodGet, ar, "Requests for access to an item").Private().ReturnsJSON(200, "The access requests.", []itemAccessRequestJSON{})
	d.op(http.MethodGet, ar+"/{rid:[0-9]+}", "An access request").Private().ReturnsJSON(200, "The access request.", itemAccessRequestJSON{})
	d.op(http.MethodDelete, ar+"/{rid:[0-9]+}", "Decline an access request").NoContent("Declined.")
	d.op(http.MethodPost, ar+"/{rid:[0-9]+}/approve", "Approve an access request").
		ReturnsJSON(201, "The permission granted.", permissionJSON{})

	c := docs{ops: ops, tag: "Catalog items", read: auth.ScopeCatalog, write: auth.ScopeCatalog, anon: true}
	for _, mark := range []string{"star", "pin"} {
		c.op(http.MethodPost, itemPath+"/"+mark, "Add the item to the caller's "+mark+"s").NoContent("Done.")
		c.op(http.MethodDelete, itemPath+"/"+mark, "Remove the item from the caller's "+mark+"s").NoContent("Done.")
	}
	ra := itemPath + "/request-access"
	c.op(http.MethodGet, ra, "The caller's request for access to an item").Private().ReturnsJSON(200, "The access request.", itemAccessRequestJSON{})
	c.op(http.MethodPost, ra, "Ask for access to an item").Accepts("application/json", apidoc.Object).
		ReturnsJSON(202, "The access request.", itemAccessRequestJSON{}).Fails(http.StatusConflict, "The caller already has access.")
	c.op(http.MethodDelete, ra, "Withdraw the caller's request").NoContent("Withdrawn.")
	c.op(http.MethodGet, itemPath+"/feedback", "Feedback on an item").Paging().ReturnsJSON(200, "A page of feedback.", []feedbackJSON{})
	c.op(http.MethodPost, itemPath+"/feedback", "Leave feedback on an item").AcceptsJSON(feedbackBody{}).
		ReturnsJSON(201, "The feedback.", feedbackJSON{})
}

// permissionOps documents the permission lists every dataset collection
// (and sources) share.
func permissionOps(ops *[]*apidoc.Operation) {
	for _, b := range datasetBases {
		d := docs{ops: ops, tag: "Permissions", read: b.read, write: b.write}
		p := b.member() + "/permissions"
		noun := noun(b)
		d.op(http.MethodGet, p, "Who may use the "+noun).ReturnsJSON(200, "The permissions.", []permissionJSON{})
		d.op(http.MethodPost, p, "Grant a permission on the "+noun).AcceptsJSON(grantBody{}).
			ReturnsJSON(201, "The permission.", permissionJSON{})
		d.op(http.MethodPut, p, "Replace the "+noun+"'s permissions").AcceptsJSON([]grantBody{}).
			ReturnsJSON(200, "The permissions.", []permissionJSON{})
		d.op(http.MethodGet, p+"/{pid}", "One permission on the "+noun+" (group.everyone, user.12, ...)").
			ReturnsJSON(200, "The permission.", permissionJSON{})
		d.op(http.MethodPut, p+"/{pid}", "Change one permission").AcceptsJSON(grantBody{}).
			ReturnsJSON(200, "The permission.", permissionJSON{})
		d.op(http.MethodDelete, p+"/{pid}", "Revoke one permission").NoContent("Revoked.")
	}
}

// serviceOps documents the services of layers, tables, sets and items.
func serviceOps(ops *[]*apidoc.Operation) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeDocument || b.typ == graph.DatasetTypeSource {
			continue
		}
		d := docs{ops: ops, tag: "Services", read: b.read, write: b.write, anon: true}
		s := b.member() + "/services"
		e := b.member() + "/external-services"
		noun := noun(b)
		d.op(http.MethodGet, s, "The "+noun+"'s services").ReturnsJSON(200, "The services.", []serviceJSON{})
		d.op(http.MethodGet, s+"/{sid}", "One of the "+noun+"'s services").ReturnsJSON(200, "The service.", serviceJSON{})
		d.op(http.MethodPut, s+"/{sid}", "Enable or disable a service").AcceptsJSON(apidoc.Object).
			ReturnsJSON(200, "The service.", serviceJSON{})
		d.op(http.MethodGet, s+"/{sid}/permissions", "Who may use a service").Private().
			ReturnsJSON(200, "The service's permissions.", []servicePermissionJSON{})
		d.op(http.MethodPut, s+"/{sid}/permissions", "Set who may use a service").AcceptsJSON(objectList).
			ReturnsJSON(200, "The service's permissions.", []servicePermissionJSON{})
		d.op(http.MethodGet, s+"/{sid}/permissions/{role}/access", "Whether a role may use a service").Private().
			ReturnsJSON(200, "The role and its access.", apidoc.Object)
		d.op(http.MethodPost, e, "Attach an external service from a site template").AcceptsJSON(apidoc.Object).
			ReturnsJSON(201, "The service.", serviceJSON{})
		d.op(http.MethodGet, e+"/{sid:[0-9]+}", "An external service").ReturnsJSON(200, "The service.", serviceJSON{})
		d.op(http.MethodPut, e+"/{sid:[0-9]+}", "Enable or disable an external service").AcceptsJSON(apidoc.Object).
			ReturnsJSON(200, "The service.", serviceJSON{})
		d.op(http.MethodDelete, e+"/{sid:[0-9]+}", "Detach an external service").NoContent("Detached.")
	}
}

// metadataOps documents the metadata routes of every versioned
// collection.
func metadataOps(ops *[]*apidoc.Operation) {
	for _, m := range []struct{ version, read, write string }{
		{"/layers/{lid:[0-9]+}/versions/{vid:[0-9]+}", auth.ScopeLayersRead, auth.ScopeLayersWrite},
		{"/tables/{lid:[0-9]+}/versions/{vid:[0-9]+}", auth.ScopeLayersRead, auth.ScopeLayersWrite},
		{"/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}", auth.ScopeSetsRead, auth.ScopeSetsWrite},
		{"/documents/{did:[0-9]+}/versions/{vid:[0-9]+}", auth.ScopeDocumentsRead, auth.ScopeDocumentsWrite},
		{itemPath + "/versions/{vid:[0-9]+}", auth.ScopeCatalog, auth.ScopeItemsWrite},
	} {
		d := docs{ops: ops, tag: "Metadata", read: m.read, write: m.write}
		p := m.version + "/metadata"
		d.op(http.MethodPost, p, "Upload the version's metadata document (ISO 19115, FGDC or Dublin Core XML)").
			Accepts("text/xml", apidoc.String).Accepts("application/xml", apidoc.String).
			ReturnsJSON(201, "Where the document is.", urlObject).Fails(http.StatusMethodNotAllowed, "The version is published.")
		d.op(http.MethodGet, p, "The metadata document as uploaded").
			WithQuery(apidoc.Param{Name: "format", Description: "json for the simplified form."}).
			Returns(200, "The document.", "text/xml", apidoc.String)
		d.op(http.MethodGet, p+"/simple", "The metadata's simplified form").ReturnsJSON(200, "The simplified form.", metadataSimpleJSON{})
		for _, f := range metadata.Formats {
			d.op(http.MethodGet, p+"/"+string(f), "The metadata in "+string(f)+" form").
				Returns(200, "The document.", "text/xml", apidoc.String)
		}
	}
}

// noun names one member of a dataset collection.
func noun(b datasetBase) string {
	if b.typ == graph.DatasetTypeCatalogItem {
		return "item"
	}
	return strings.TrimSuffix(strings.TrimPrefix(b.path, "/"), "s")
}
