// Package rest is the REST compatibility layer: it maps the
// specification's endpoints, headers and paging onto the resolvers of
// package graph. A handler only decodes the request, calls a resolver and
// renders the specification's JSON shape; no business rule lives here.
package rest

import (
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/geopub/geopub/graph"
)

// API serves /services/api/{v1,v1.x}/.
type API struct {
	// MaxUploadBytes bounds one multipart upload (POST /sources/ with
	// files); 0 means DefaultMaxUploadBytes. Larger uploads get 413.
	MaxUploadBytes int64

	res     *graph.Resolver
	logger  *slog.Logger
	baseURL string
}

// maxUpload is the upload cap in force.
func (a *API) maxUpload() int64 {
	if a.MaxUploadBytes > 0 {
		return a.MaxUploadBytes
	}
	return DefaultMaxUploadBytes
}

// New returns the REST API over the resolvers. baseURL, when set (for
// example https://data.example.com), is the origin of every absolute URL
// in responses; otherwise the request's own origin is used.
func New(res *graph.Resolver, logger *slog.Logger, baseURL string) *API {
	return &API{res: res, logger: logger, baseURL: baseURL}
}

// Routes returns the router to mount at /services/api/{version}, where the
// version parameter is v1 or v1.x.
func (a *API) Routes() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.StripSlashes)
	r.NotFound(a.handle(func(w http.ResponseWriter, r *http.Request) error { return errNoRoute }))
	r.MethodNotAllowed(a.handle(func(w http.ResponseWriter, r *http.Request) error { return errMethod(r) }))

	// Every group's GET routes answer OPTIONS with their view (views.go).
	vr := a.withViews(r)
	vr.Group(a.sessionRoutes)
	vr.Group(a.tokenRoutes)
	vr.Group(a.groupRoutes)
	vr.Group(a.userRoutes)
	vr.Group(a.accountRoutes)
	vr.Group(a.sourceRoutes)
	vr.Group(a.scanRoutes)
	vr.Group(a.layerRoutes)
	vr.Group(a.setRoutes)
	vr.Group(a.documentRoutes)
	vr.Group(a.starRoutes)
	vr.Group(a.permissionRoutes)
	vr.Group(a.serviceRoutes)
	vr.Group(a.siteRoutes)
	vr.Group(a.itemRoutes)
	vr.Group(a.notificationRoutes)
	vr.Group(a.changeRoutes)
	vr.Group(a.webhookRoutes)
	vr.Group(a.followRoutes)
	vr.Group(a.deprecationRoutes)
	vr.Group(a.feedbackRoutes)
	vr.Group(a.referenceRoutes)
	vr.Group(a.catalogRoutes)
	vr.Group(a.exploreRoutes)
	vr.Group(a.catalogueRoutes)
	vr.Group(a.exportRoutes)
	vr.Group(a.cropLayerRoutes)
	vr.Group(a.auditRoutes)
	vr.Group(a.usageRoutes)
	vr.Group(a.oauthClientRoutes)
	return r
}

// Mount adds the API to a router under both version prefixes, v1 and v1.x.
func (a *API) Mount(r chi.Router) {
	r.Mount("/services/api/{version:v1(?:\\.x)?}", a.Routes())
}
