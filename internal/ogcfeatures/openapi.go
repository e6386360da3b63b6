package ogcfeatures

import "github.com/geopub/geopub/internal/cql2"

// OpenAPI returns the API definition (OpenAPI 3.0) for the service at
// base, listing the collections cs a caller may read.
func OpenAPI(base string, cs []*Collection) map[string]any {
	type obj = map[string]any
	param := func(name, in, desc string, schema obj, required bool) obj {
		return obj{"name": name, "in": in, "description": desc, "required": required, "schema": schema, "style": "form", "explode": false}
	}
	str := obj{"type": "string"}
	fParam := param("f", "query", "The format: json (GeoJSON for features) or html.", obj{"type": "string", "enum": []string{"json", "html"}}, false)
	jsonResp := func(desc, typ string) obj {
		return obj{"description": desc, "content": obj{typ: obj{"schema": obj{"type": "object"}}, TypeHTML: obj{"schema": str}}}
	}
	errors := obj{
		"400": obj{"description": "A parameter has an invalid value.", "content": obj{TypeJSON: obj{"schema": obj{"$ref": "#/components/schemas/exception"}}}},
		"401": obj{"description": "The token lacks the wxs:wfs scope, or the key is unknown."},
		"404": obj{"description": "No such collection or feature, or the caller may not read it."},
	}
	get := func(id, summary string, params []obj, ok obj) obj {
		responses := obj{"200": ok}
		for k, v := range errors {
			responses[k] = v
		}
		return obj{"get": obj{"operationId": id, "summary": summary, "parameters": params, "responses": responses}}
	}
	collectionID := param("collectionId", "path", "The collection: layer-{id} or table-{id}.", str, true)
	collectionID["style"] = "simple"
	featureID := param("featureId", "path", "The feature's id.", obj{"type": "integer"}, true)
	featureID["style"] = "simple"
	crs := param("crs", "query", "The CRS of the geometries: a URI such as http://www.opengis.net/def/crs/EPSG/0/2193.", obj{"type": "string", "format": "uri"}, false)
	itemsParams := []obj{collectionID, fParam,
		param("limit", "query", "Features per page.", obj{"type": "integer", "minimum": 1, "maximum": MaxLimit, "default": DefaultLimit}, false),
		param("bbox", "query", "Only features whose geometry intersects this box: 4 or 6 numbers.",
			obj{"type": "array", "minItems": 4, "maxItems": 6, "items": obj{"type": "number"}}, false),
		param("bbox-crs", "query", "The CRS of bbox (default CRS84).", obj{"type": "string", "format": "uri"}, false),
		crs,
		param("cursor", "query", "Where a page starts: give the next link as written.", str, false),
		param("datetime", "query", "Only features whose time (the first date or datetime field) is this instant or in this interval (start/end, .. for an open end).", str, false),
		param("filter", "query", filterDescription(), str, false),
		param("filter-lang", "query", "The filter's encoding.", obj{"type": "string", "enum": []string{"cql2-text", "cql2-json"}, "default": "cql2-text"}, false),
		param("filter-crs", "query", "The CRS of the filter's geometries (default CRS84).", obj{"type": "string", "format": "uri"}, false),
	}
	paths := obj{
		"/":            get("getLandingPage", "Landing page", []obj{fParam}, jsonResp("The landing page.", TypeJSON)),
		"/conformance": get("getConformanceDeclaration", "Conformance classes", []obj{fParam}, jsonResp("The conformance classes.", TypeJSON)),
		"/api":         get("getAPI", "This API definition", []obj{fParam}, jsonResp("The API definition.", TypeOpenAPI)),
		"/collections": get("getCollections", "Collections", []obj{fParam}, jsonResp("The collections.", TypeJSON)),
		"/collections/{collectionId}": get("describeCollection", "One collection", []obj{collectionID, fParam},
			jsonResp("The collection.", TypeJSON)),
		"/collections/{collectionId}/items": get("getFeatures", "A page of features", itemsParams,
			jsonResp("Features.", TypeGeoJSON)),
		"/collections/{collectionId}/queryables": get("getQueryables", "The properties a filter may name", []obj{collectionID, fParam},
			jsonResp("A JSON Schema of the queryables.", TypeSchema)),
		"/collections/{collectionId}/items/{featureId}": get("getFeature", "One feature", []obj{collectionID, featureID, fParam, crs},
			jsonResp("A feature.", TypeGeoJSON)),
	}
	ids := make([]string, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	if len(ids) > 0 {
		collectionID["schema"] = obj{"type": "string", "enum": ids}
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{"title": "Geopub OGC API - Features", "version": "1.0.0",
			"description": "Published layers and tables. Authenticate with an API token holding the wxs:wfs scope, in the Authorization header or the key query parameter."},
		"servers": []obj{{"url": base}},
		"paths":   paths,
		"components": obj{"schemas": obj{"exception": obj{"type": "object", "required": []string{"code"},
			"properties": obj{"code": str, "description": str}}}},
	}
}

// filterDescription describes the filter parameter: the CQL2 operators
// and functions served.
func filterDescription() string {
	spatial := "S_INTERSECTS and S_DISJOINT"
	if cql2.SpatialFunctionsServed() {
		spatial = "S_INTERSECTS, S_DISJOINT, S_EQUALS, S_TOUCHES, S_WITHIN, S_OVERLAPS, S_CROSSES and S_CONTAINS"
	}
	return "A CQL2 filter over the queryables: comparisons, AND, OR, NOT, IS NULL, LIKE, BETWEEN, IN, " +
		"CASEI and ACCENTI of strings, TIMESTAMP and DATE literals, and the spatial functions " + spatial +
		" with WKT or BBOX literals (GeoJSON in cql2-json)."
}
