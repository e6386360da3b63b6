// Package frontpage serves Geopub's front page at /: a small HTML page,
// rendered on the server with no outside asset, that says what the
// service is and links to the GraphQL explorer, the REST API and the
// health checks. It stands in for the web catalogue until that exists.
package frontpage

import (
	_ "embed"
	"html/template"
	"net/http"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("front").Parse(pageHTML))

// Link is one entry of the page's list of places to go.
type Link struct {
	Href, Title, Text string
}

// Links are the places the front page names, in order.
var Links = []Link{
	{"/graphiql", "GraphQL explorer", "run queries and browse the schema's documentation in GraphiQL"},
	{"/graphql", "GraphQL endpoint", "POST, GET, websocket (graphql-transport-ws) and server-sent events"},
	{"/services/api/v1.x/groups/", "REST API", "the specification's endpoints under /services/api/v1/ and /services/api/v1.x/ (here: the groups list)"},
	{"/services/query/v1/vector.json", "Point queries", "vector, raster and set lookups at a point"},
	{"/healthz", "Health", "the process is up"},
	{"/readyz", "Readiness", "the database and blob storage answer"},
}

// Handler serves the page.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodHead {
			return
		}
		if err := page.Execute(w, Links); err != nil {
			http.Error(w, "rendering the front page failed", http.StatusInternalServerError)
		}
	})
}
