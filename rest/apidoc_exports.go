package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/exports"
)

// exportOps documents bulk exports (api-shapes §7).
func exportOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Exports", read: exports.ScopeRead, write: exports.ScopeWrite}
	one := "/exports/{eid:[0-9]+}"
	d.op(http.MethodGet, "/exports", "The caller's exports, newest first").
		Describe("Site administrators see everyone's with all=true. OPTIONS /exports/ lists the formats of each data kind "+
			"(actions.POST.formats.children.<kind>.choices).").
		WithQuery(apidoc.Param{Name: "all", Description: "Site administrators: true lists every user's exports.", Schema: apidoc.Boolean}).
		WithHeader(hExpand).Paging().ReturnsJSON(200, "A page of exports (full exports with Expand: list).", []exportListJSON{})
	d.op(http.MethodPost, "/exports", "Create an export: validated, estimated, then written by a job").
		Describe("Items are layer, table, version or set URLs; formats map a data kind (vector, table, raster, grid) "+
			"to a format's MIME value; extent is a GeoJSON (Multi)Polygon in EPSG:4326 or a crop-feature URL; crs an EPSG code. "+
			"The Location header names the new export; follow its state and progress, or the notification stream.").
		AcceptsJSON(exportRequestJSON{}).
		Returns(201, "Created; the body is empty and Location names the export.", "application/json", apidoc.Object).
		FailsWith(http.StatusBadRequest, "The request is not valid: the validation body says why, item by item.", apidoc.Schema{"oneOf": []any{apidoc.Ref("Error"), apidoc.Ref("ExportValidation")}})
	d.op(http.MethodPost, "/exports/validate", "Validate and estimate an export without creating it").
		AcceptsJSON(exportRequestJSON{}).ReturnsJSON(200, "The validation body.", exportValidationJSON{})
	d.op(http.MethodGet, one, "An export (its creator's, or any for site administrators)").
		ReturnsJSON(200, "The export.", exportJSON{}).Fails(http.StatusNotFound, "No such export, or not the caller's.")
	d.op(http.MethodDelete, one, "Cancel a processing export").
		ReturnsJSON(202, "The cancelled export.", exportJSON{}).
		FailsWith(http.StatusConflict, "The export is not processing.", apidoc.ErrorListBody)
	d.op(http.MethodGet, one+"/download", "The export's zip").
		Describe("Answers Range requests (206). Content-Disposition names {name}.zip.").
		WithHeader(apidoc.Param{Name: "Range", Description: "A byte range, e.g. bytes=0-1023."}).
		Returns(200, "The zip.", "application/zip", apidoc.String).
		Fails(http.StatusNotFound, "No such export, not the caller's, or not complete (gone after expiry).")
}
