package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/croplayers"
)

// cropLayerOps documents the crop layers of exports (api-shapes §7.5).
func cropLayerOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Crop layers", read: croplayers.ScopeRead, write: croplayers.ScopeWrite}
	one := "/exports/croplayers/{cid:[0-9]+}"
	d.op(http.MethodGet, "/exports/croplayers", "Every crop layer (signed-in callers)").Paging().
		ReturnsJSON(200, "The crop layers.", []cropLayerJSON{})
	d.op(http.MethodPost, "/exports/croplayers", "Make a crop layer of a published polygon layer (site administrators)").
		Describe("layer is the layer's id or URL: a published vector layer of polygons or multipolygons; "+
			"name_field names the attribute that names each crop feature. The Location header names the new crop layer.").
		AcceptsJSON(cropLayerBody{}).ReturnsJSON(201, "The crop layer.", cropLayerJSON{})
	d.op(http.MethodGet, one, "A crop layer").ReturnsJSON(200, "The crop layer.", cropLayerJSON{}).
		Fails(http.StatusNotFound, "No such crop layer, or its layer is no longer published.")
	d.op(http.MethodDelete, one, "Remove a crop layer (site administrators)").NoContent("Removed.")
	d.op(http.MethodGet, one+"/cropfeatures", "A crop layer's features, by id").Paging().
		ReturnsJSON(200, "A page of crop features.", []cropFeatureJSON{})
	d.op(http.MethodGet, one+"/cropfeatures/{fid:[0-9]+}", "A crop feature with its geometry").
		Describe("The geometry is a GeoJSON MultiPolygon in EPSG:4326; the feature's URL can be an export's extent.").
		ReturnsJSON(200, "The crop feature.", cropFeatureDetailJSON{}).
		Fails(http.StatusNotFound, "No such crop feature.")
}
