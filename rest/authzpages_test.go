package rest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/web/dcatfeed"
	"github.com/geopub/geopub/web/htmlview"
	"github.com/geopub/geopub/web/oauthpages"
)

// pageRouterKeys are the routes of the HTML pages url_html links point at
// (web/htmlview) and of the DCAT feeds (web/dcatfeed), which the server
// mounts beside the API.
func pageRouterKeys(t *testing.T) []string {
	t.Helper()
	r := chi.NewRouter()
	htmlview.New(nil, nil, "").Routes(r)
	dcatfeed.New(nil, "", nil).Routes(r)
	oauthpages.New(nil, nil, "", nil).Routes(r)
	var keys []string
	err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		keys = append(keys, routeKey(method, route))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// pageRules: a page shows its object to those who may read it through
// the REST detail view (the same resolver call), and is a 404 to everyone
// else; pages take the session or a token like the API.
func pageRules(rules map[string]rule) {
	for _, kind := range []string{"layers", "tables", "sets", "documents"} {
		rules["GET /"+kind+"/{id}"] = rule{kind: kind, targets: []target{{"{origin}/" + kind + "/{id}/", canView}, {"{origin}/" + kind + "/{id}", canView}}}
	}
	rules["GET /items/{id}"] = rule{kind: "items", targets: []target{{"{origin}/items/{id}/", canView}}}
	rules["GET /sources/{id}"] = rule{kind: "sources", targets: []target{{"{origin}/sources/{id}/", canAdmin}}}
	rules["GET /comments/{id}"] = rule{kind: "feedback", targets: []target{{"{origin}/comments/{id}/", canView}}}
	rules["GET /groups/{id}"] = rule{kind: "groups", targets: []target{{"{origin}/groups/{id}/", signedIn}}}
	rules["GET /groups/{id}-{slug}"] = rule{kind: "groups", targets: []target{{"{origin}/groups/{id}-some-slug/", signedIn}}}
	metadataPageRules(rules)
	// The doors for search engines: the same answer for everyone, the
	// sitemap being the catalogue as anonymous callers see it (their
	// content is checked by rest/sitemap_test.go).
	rules["GET /robots.txt"] = rule{targets: []target{{"{origin}/robots.txt", anyone}}}
	rules["GET /sitemap.xml"] = rule{targets: []target{{"{origin}/sitemap.xml", anyone}}}
	rules["GET /sitemap-{n}.xml"] = rule{targets: []target{{"{origin}/sitemap-1.xml", anyone}}}
	feedRules(rules)
}

// feedRules: the DCAT feeds list the catalogue to anyone, each caller
// seeing what /data/ shows them (the leak checks read every syntax).
func feedRules(rules map[string]rule) {
	feed := "{origin}/services/dcat/catalog"
	rules["GET /services/dcat/catalog"] = rule{plain: true, targets: []target{
		{feed, anyone}, {feed + "?format=ttl", anyone}, {feed + "?format=rdf&page_size=1000", anyone}}}
	rules["GET /data.json"] = rule{plain: true, targets: []target{{"{origin}/data.json", anyone}}}
}

// metadataPageRules: a version's metadata page (the url_html of a
// metadata upload) follows the REST metadata reads: the fixtures' metadata
// is on the drafts, which editors read.
func metadataPageRules(rules map[string]rule) {
	for _, kind := range []string{"layers", "tables", "sets", "documents", "items"} {
		rules["GET /"+kind+"/{id}/versions/{vid}/metadata"] = rule{kind: kind,
			targets: []target{{"{origin}/" + kind + "/{id}/versions/{draft}/metadata/", canEdit}}}
	}
}
