package ogcrecords

import "github.com/geopub/geopub/internal/auth"

// OpenAPI returns the API definition (OpenAPI 3.0) of the API at base.
func OpenAPI(base string) map[string]any {
	type obj = map[string]any
	param := func(name, in, desc string, schema obj, required bool) obj {
		return obj{"name": name, "in": in, "description": desc, "required": required, "schema": schema, "style": "form", "explode": false}
	}
	str := obj{"type": "string"}
	fParam := param("f", "query", "The format: json (GeoJSON for records) or html; iso for one record's ISO 19139 document.", obj{"type": "string", "enum": []string{"json", "html", "iso"}}, false)
	resp := func(desc, typ string) obj {
		return obj{"description": desc, "content": obj{typ: obj{"schema": obj{"type": "object"}}, TypeHTML: obj{"schema": str}}}
	}
	errors := obj{
		"400": obj{"description": "A parameter is unknown or has an invalid value.", "content": obj{TypeJSON: obj{"schema": obj{"$ref": "#/components/schemas/exception"}}}},
		"401": obj{"description": "The token lacks the " + auth.ScopeCatalog + " scope, or the key is unknown."},
		"404": obj{"description": "No such collection or record, or the caller may not see it."},
	}
	get := func(id, summary string, params []obj, ok obj) obj {
		responses := obj{"200": ok}
		for k, v := range errors {
			responses[k] = v
		}
		return obj{"get": obj{"operationId": id, "summary": summary, "parameters": params, "responses": responses}}
	}
	collectionID := param("collectionId", "path", "The collection: catalogue, or group-{id} for one publishing group's records.", str, true)
	collectionID["style"] = "simple"
	recordID := param("recordId", "path", "The record's identifier (layer-12, item-c7).", str, true)
	recordID["style"] = "simple"
	list := obj{"type": "array", "items": str}
	itemsParams := []obj{collectionID, fParam,
		param("q", "query", "Free text: records matching any of the comma-separated terms.", list, false),
		param("bbox", "query", "Only records whose extent intersects this CRS84 box: 4 or 6 numbers.",
			obj{"type": "array", "minItems": 4, "maxItems": 6, "items": obj{"type": "number"}}, false),
		param("datetime", "query", "Only records updated at this instant or in this interval (start/end, .. for an open end).", str, false),
		param("type", "query", "dataset (every record), or the catalogue's types: layer, table, set, document, item.", list, false),
		param("ids", "query", "Only these records, by identifier.", list, false),
		param("externalIds", "query", "Only these records, by identifier or by the dataset's REST or web page URL.", list, false),
		param("filter", "query", "A CQL2 filter over the queryables.", str, false),
		param("filter-lang", "query", "The filter's encoding.", obj{"type": "string", "enum": []string{"cql2-text", "cql2-json"}, "default": "cql2-text"}, false),
		param("filter-crs", "query", "The CRS of the filter's geometries: CRS84 only.", str, false),
		param("sortby", "query", "The order.", obj{"type": "string", "enum": []string{"title", "-title", "updated", "-updated"}}, false),
		param("limit", "query", "Records per page (a larger limit is clamped).", obj{"type": "integer", "minimum": 1, "maximum": MaxLimit, "default": DefaultLimit}, false),
		param("cursor", "query", "Where a page starts: follow the next link as written.", str, false),
	}
	paths := obj{
		"/":            get("getLandingPage", "Landing page", []obj{fParam}, resp("The landing page.", TypeJSON)),
		"/conformance": get("getConformanceDeclaration", "Conformance classes", []obj{fParam}, resp("The conformance classes.", TypeJSON)),
		"/api":         get("getAPI", "This API definition", nil, resp("The API definition.", TypeOpenAPI)),
		"/collections": get("getCollections", "Collections", []obj{fParam}, resp("The collections.", TypeJSON)),
		"/collections/{collectionId}": get("describeCollection", "One collection", []obj{collectionID, fParam},
			resp("The collection.", TypeJSON)),
		"/collections/{collectionId}/items": get("getRecords", "A page of records", itemsParams,
			resp("Records.", TypeGeoJSON)),
		"/collections/{collectionId}/queryables": get("getQueryables", "The properties a filter may name", []obj{collectionID, fParam},
			resp("A JSON Schema of the queryables.", TypeSchema)),
		"/collections/{collectionId}/sortables": get("getSortables", "The properties sortby takes", []obj{collectionID, fParam},
			resp("A JSON Schema of the sortables.", TypeSchema)),
		"/collections/{collectionId}/items/{recordId}": get("getRecord", "One record", []obj{collectionID, recordID, fParam},
			resp("A record.", TypeGeoJSON)),
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{"title": "Geopub OGC API - Records", "version": "1.0.0",
			"description": "The catalogue of published datasets. Anonymous callers see public data; authenticate with an API token holding the " + auth.ScopeCatalog + " scope, in the Authorization header or the key query parameter."},
		"servers": []obj{{"url": base}},
		"paths":   paths,
		"components": obj{"schemas": obj{"exception": obj{"type": "object", "required": []string{"code"},
			"properties": obj{"code": str, "description": str}}}},
	}
}
