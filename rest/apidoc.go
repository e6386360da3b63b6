package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apidoc"
)

// The API reference: GET /openapi.json is the OpenAPI 3.1 document of this
// router, built from Operations; GET /docs/ renders it as HTML. Both are
// public.

// referenceInfo is what the document says about the API as a whole.
var referenceInfo = apidoc.Info{
	Title:   "Geopub REST API",
	Version: "1.x",
	Description: "The REST API of Geopub, served under /services/api/v1/ and /services/api/v1.x/ alike. " +
		"Lists are paged with page and page_size and answer X-Paginate-By, X-Resource-Range and Link headers; " +
		"unknown query parameters are ignored and a recognised one with a bad value is a 400. " +
		"The header Expand inlines related resources. Errors carry the Error body unless an operation states another.",
	Servers: []string{"/services/api/v1.x", "/services/api/v1"},
	Tags: map[string]string{
		"Session and tokens": "Signing in and API tokens.",
		"Users":              "User accounts.",
		"Groups":             "Groups, their members and access requests.",
		"Sources":            "Data sources, their scans and datasources.",
		"Layers and tables":  "Vector layers and tables, their versions and publishing.",
		"Sets":               "Sets of layers.",
		"Documents":          "Documents and their versions.",
		"Catalog items":      "Catalog items, their versions, attachments, geotags and consumers' actions.",
		"Permissions":        "Who may view, download, edit and administer a dataset.",
		"Services":           "A dataset's web services and external services.",
		"Metadata":           "A version's metadata document.",
		"Site":               "Site settings and external service templates.",
		"Notifications":      "The caller's notifications.",
		"Changes":            "The change feed: what happened to datasets, as JSON pages after a cursor or as Atom.",
		"Webhooks":           "Endpoints that receive the change feed as signed Standard Webhooks, and their delivery logs.",
		"Feedback":           "Comments and feedback on datasets.",
		"Catalogue":          "Search over every dataset (/data/, publishers, explore sections), and the licences and categories datasets are published under and filed in.",
		"Reference":          "This reference.",
		"Exports":            "Bulk exports: several layers, tables and grids per download, cropped and reprojected, written by a job.",
		"Crop layers":        "Published polygon layers whose features users pick as an export's extent.",
		"Deprecation":        "Marking datasets as no longer to be used, with a reason and the dataset replacing them.",
		"Audit":              "The audit log: who changed what, when and from where; read-only.",
		"OAuth clients":      "Applications registered with Geopub's OAuth 2.0 authorization server (/o/authorize/, /o/token/), managed by site administrators.",
	},
}

// Operations documents every route of Routes; TestOpenAPICoversEveryRoute
// fails for a route missing here and for an operation without a route.
func Operations() []*apidoc.Operation {
	var ops []*apidoc.Operation
	for _, add := range []func(*[]*apidoc.Operation){
		accountOps, accountLifecycleOps, ssoOps, groupOps, sourceOps, layerOps, setOps, documentOps, starOps,
		itemOps, permissionOps, serviceOps, metadataOps, siteOps, feedbackOps, catalogueOps, referenceOps, catalogOps, exploreOps, exportOps,
		cropLayerOps, changeOps, webhookOps, followOps, deprecationOps, auditOps, usageOps, oauthClientOps,
	} {
		add(&ops)
	}
	return ops
}

// Reference builds the API reference from Operations.
func Reference() (*apidoc.Document, error) { return apidoc.Build(referenceInfo, Operations()) }

// referenceRoutes serves the document and the page.
func (a *API) referenceRoutes(r chi.Router) {
	doc, err := Reference()
	if err != nil {
		panic(err) // Operations is static; TestOpenAPIDocumentIsValid builds it
	}
	page, err := doc.HTMLHandler()
	if err != nil {
		panic(err)
	}
	r.Get("/openapi.json", doc.JSONHandler())
	r.Get("/docs", page)
}

// catalogueOps documents licences and categories: public reference data.
func catalogueOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Catalogue", anon: true}
	d.op(http.MethodGet, "/licenses", "Every licence (Creative Commons by version and jurisdiction, then public domain)").
		Paging().ReturnsJSON(200, "The licences (page_size up to 100000).", []licenseJSON{})
	d.op(http.MethodGet, "/licenses/{lid:[0-9]+}", "A licence").ReturnsJSON(200, "The licence.", licenseJSON{})
	d.op(http.MethodGet, "/licenses/{lid:[0-9]+}/fulltext", "A licence's name, version and a link to its legal code").
		WithQuery(apidoc.Param{Name: "format", Description: "html (the default) or txt; Accept: text/plain also gives text."}).
		Returns(200, "The page.", "text/html", apidoc.String)
	ccQuery := apidoc.Param{Name: "version", Description: "A licence version such as 3.0; the newest when absent."}
	{
		// Also /licenses/{slug}// (an empty jurisdiction), the same
		// operation once the trailing slash is stripped.
		d.op(http.MethodGet, "/licenses/{slug:[a-zA-Z][a-zA-Z0-9-]*}", "The unported Creative Commons licence of a slug (cc-by, then any of -nc, -sa, -nd; not both sa and nd): /licenses/cc-by-nc//").
			WithQuery(ccQuery).ReturnsJSON(200, "The licence.", licenseJSON{}).
			Fails(http.StatusBadRequest, "The slug adds something other than -nc, -sa, -nd, or both -sa and -nd.").
			Fails(http.StatusNotFound, "The slug does not start with cc-by, or there is no such licence.")
	}
	d.op(http.MethodGet, "/licenses/{slug:[a-zA-Z][a-zA-Z0-9-]*}/{jurisdiction:[a-zA-Z][a-zA-Z]}", "The Creative Commons licence of a slug ported to a jurisdiction (nz, au)").
		WithQuery(ccQuery).ReturnsJSON(200, "The licence.", licenseJSON{}).
		Fails(http.StatusBadRequest, "The slug adds something other than -nc, -sa, -nd, or both -sa and -nd.").
		Fails(http.StatusNotFound, "The slug does not start with cc-by, or there is no such licence.")
	d.op(http.MethodGet, "/categories", "The category tree: top-level categories with their children").
		ReturnsJSON(200, "The tree; keys are parent/child paths.", []categoryDoc{})
}

func referenceOps(ops *[]*apidoc.Operation) {
	d := docs{ops: ops, tag: "Reference", anon: true}
	d.op(http.MethodGet, "/openapi.json", "This OpenAPI 3.1 document").
		Returns(200, "The document.", "application/json", apidoc.Object)
	d.op(http.MethodGet, "/docs", "The API reference page, rendered from the document").
		Returns(200, "The page.", "text/html", apidoc.String)
}

// docs declares the operations of one group of routes: their tag, the
// scopes their Accepted-OAuth-Scopes names (read for GET, write for the
// rest, as scoped does) and whether anonymous callers may read.
type docs struct {
	ops         *[]*apidoc.Operation
	tag         string
	read, write string
	// anon: GETs are open to anonymous callers (who see what is public).
	anon bool
}

func (d docs) op(method, pattern, summary string) *apidoc.Operation {
	// Without scopes of their own, routes carry the server's default: any
	// token.
	o := apidoc.Op(method, pattern, summary).Tagged(d.tag).Scoped("*")
	if method == http.MethodGet {
		if d.read != "" {
			o.Scoped(d.read)
		}
		if d.anon {
			o.Public()
		}
	} else if d.write != "" {
		o.Scoped(d.write)
	}
	*d.ops = append(*d.ops, o)
	return o
}

// Query parameters several lists share.
var (
	qText   = apidoc.Param{Name: "q", Description: "Free text; with q and no sort, results are in order of relevance."}
	qSort   = apidoc.Param{Name: "sort", Description: "Sort order; the Link header's sort relations list the values."}
	qFacets = apidoc.Param{Name: "facets", Description: "true replaces the results by facet counts.", Schema: apidoc.Boolean}
	qTag    = apidoc.Param{Name: "tag", Description: "A tag; repeat to match any of several."}
	hExpand = apidoc.Param{Name: "Expand", Description: "Comma-separated names of related resources to inline (list for full list items)."}
	// searchParams are the search-backed lists' parameters.
	searchParams = []apidoc.Param{qText, qSort, qFacets, qTag,
		{Name: "kind", Description: "A dataset kind, for example layer."},
		{Name: "geotag.geometry", Description: "true includes geotag geometries in facets.", Schema: apidoc.Boolean},
	}
)

// Response schemas of bodies built without a Go type.
var (
	urlObject  = apidoc.Schema{"type": "object", "properties": map[string]any{"url": apidoc.String, "url_html": apidoc.String}, "required": []string{"url"}}
	objectList = apidoc.ArrayOf(apidoc.Object)
)
