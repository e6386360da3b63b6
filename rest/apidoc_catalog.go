package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// catalogParams are the catalogue's query language (catalogquery.go).
var catalogParams = []apidoc.Param{qText, qSort, qFacets, qTag,
	{Name: "kind", Description: "A dataset kind: vector, raster, grid, attribute-grid, pointcloud, table, set, document, item, source, or layer (every layer kind); repeatable, OR-ed."},
	{Name: "data.geometry_type", Description: "point, linestring or polygon (multi forms alike); repeatable; given with kind, a dataset matching either matches."},
	{Name: "category", Description: "A category key; matches its descendants (parent matches parent/child); repeatable."},
	{Name: "geotag", Description: "A geotag key; repeatable."},
	{Name: "group", Description: "An owning group's id; repeatable."},
	{Name: "user", Description: "A publishing user's id; repeatable."},
	{Name: "from", Description: "all, or a publisher id (group:{id}, user:{id}); repeatable."},
	{Name: "license.type", Description: "A license type; -type excludes it; repeatable."},
	{Name: "license.version", Description: "A license version such as 4.0; repeatable."},
	{Name: "raster_band", Description: "A raster band colour (red, green, blue, gray, alpha); repeatable."},
	{Name: "public", Description: "true: datasets everyone may view; false: the others.", Schema: apidoc.Boolean},
	{Name: "is_starred", Description: "true: datasets the caller starred.", Schema: apidoc.Boolean},
	{Name: "has_z", Description: "Vector layers with Z values.", Schema: apidoc.Boolean},
	{Name: "has_pk", Description: "Layers and tables with a primary key.", Schema: apidoc.Boolean},
	{Name: "is_imagery", Description: "Rasters that are (or are not) imagery.", Schema: apidoc.Boolean},
	{Name: "raster_resolution.gt", Description: "Raster resolution above this number.", Schema: apidoc.Schema{"type": "number"}},
	{Name: "raster_resolution.lt", Description: "Raster resolution below this number.", Schema: apidoc.Schema{"type": "number"}},
	{Name: "created_at.after", Description: "Created after this ISO 8601 time."},
	{Name: "created_at.before", Description: "Created before this ISO 8601 time."},
	{Name: "updated_at.after", Description: "Updated after this ISO 8601 time."},
	{Name: "updated_at.before", Description: "Updated before this ISO 8601 time."},
	{Name: "geotag.geometry", Description: "true includes geotag geometries in facets.", Schema: apidoc.Boolean},
	{Name: "cursor", Description: "The search cursor a page-next link carries (keyset paging); page and page_size still say which page it is."},
}

// catalogOps documents the catalogue.
func catalogOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Catalogue", read: auth.ScopeCatalog, write: auth.ScopeCatalog, anon: true}
	d.op(http.MethodGet, "/data", "The catalogue: the published version of every dataset the caller may see").Paging().
		WithQuery(catalogParams...).WithHeader(hExpand).
		ReturnsJSON(200, "A page of entries, each its dataset's list form with type, kind and title (full with Expand: list); with facets=true the facet counts.", []catalogSummary{})
	d.op(http.MethodGet, "/data/latest", "The latest version of every dataset the caller may see (drafts for those who may edit them)").Paging().
		WithQuery(append(catalogParams, apidoc.Param{Name: "version.status", Description: "The version's status (published, draft, importing, ...); repeatable."})...).
		WithHeader(hExpand).ReturnsJSON(200, "A page of entries with version.status.", []catalogSummary{})
	d.anon = false
	d.op(http.MethodGet, "/users/me/data", "The caller's own data: what they publish and what their groups own, latest versions").Paging().
		WithQuery(append(catalogParams, apidoc.Param{Name: "version.status", Description: "The version's status; repeatable."})...).
		WithHeader(hExpand).ReturnsJSON(200, "A page of entries.", []catalogSummary{})
}

// exploreOps documents publishers and explore sections.
func exploreOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Catalogue", read: auth.ScopeCatalog, write: auth.ScopeCatalog, anon: true}
	d.op(http.MethodGet, "/publishers", "Publishers: site groups and users with published datasets the caller may see").Paging().
		WithQuery(qText, qFacets,
			apidoc.Param{Name: "type", Description: "site, user or mirror; repeatable."},
			apidoc.Param{Name: "sort", Description: "popularity (most datasets first, the default), name or -name."},
			apidoc.Param{Name: "public", Description: "Accepted for the desktop plugin; publishers are always those with datasets the caller may see.", Schema: apidoc.Boolean}).
		ReturnsJSON(200, "A page of publishers with dataset_count; with facets=true {type: [{key, total}]}.", []publisherJSON{})
	d.op(http.MethodGet, "/publishers/{pid:(?:group|user):[0-9]+}", "A publisher (group:{id} or user:{id})").
		ReturnsJSON(200, "The publisher.", publisherJSON{})
	d.op(http.MethodGet, "/explore-sections", "The explore sections: popular, recent, browse, publishers").Paging().
		ReturnsJSON(200, "The sections.", []exploreSection{})
	d.op(http.MethodGet, "/explore-sections/{slug:[a-z-]+}", "One explore section's panels").
		WithQuery(apidoc.Param{Name: "page_size", Description: "Items per panel (default 20, at most 200).", Schema: apidoc.Integer}).
		WithQuery(apidoc.Param{Name: "item_type", Description: "Repeatable: what the panels hold. layer.* (layers and tables), layer.<kind> (vector, raster, grid, attribute-grid, pointcloud, table), set.*, document.*, item.*; default every dataset type.", Schema: apidoc.String}).
		WithHeader(hExpand).ReturnsJSON(200, "{panels: [{title, items: [{kind, content}]}]}; kind is item_type's name of the item (layer.vector, layer.table, set.set).", apidoc.Object)
}
