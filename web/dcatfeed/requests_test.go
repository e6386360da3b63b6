package dcatfeed_test

import (
	"net/http"
	"strings"
	"testing"
)

// Content negotiation: Accept picks the syntax (q-values weigh), JSON
// for application/json and anything-goes, ?format= overrides Accept, 406
// for what the feed cannot write; bad parameters are 400 with a message;
// a token without the catalog scope is refused (401, naming the scope),
// a bad key is 401.
func TestFeedRequests(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		for _, c := range []struct {
			accept, query, want string
		}{
			{"", "", "application/ld+json"},
			{"*/*", "", "application/ld+json"},
			{"application/json", "", "application/ld+json"},
			{"text/turtle", "", "text/turtle; charset=utf-8"},
			{"application/rdf+xml", "", "application/rdf+xml; charset=utf-8"},
			{"text/turtle;q=0.5, application/rdf+xml", "", "application/rdf+xml; charset=utf-8"},
			{"text/html,application/xhtml+xml,*/*;q=0.8", "", "application/ld+json"},
			{"text/html", "?format=ttl", "text/turtle; charset=utf-8"},
			{"text/turtle", "?format=jsonld", "application/ld+json"},
			{"", "?format=rdf", "application/rdf+xml; charset=utf-8"},
		} {
			r := get(t, e, "", "/services/dcat/catalog"+c.query, map[string]string{"Accept": c.accept})
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != c.want {
				t.Errorf("Accept %q %s: %d %q, want %q", c.accept, c.query, r.Status, r.Header.Get("Content-Type"), c.want)
			}
		}
		for _, accept := range []string{"text/html", "application/n-triples", "text/turtle;q=0", strings.Repeat("a/b,", 2000)} {
			r := get(t, e, "", "/services/dcat/catalog", map[string]string{"Accept": accept})
			if r.Status != http.StatusNotAcceptable || mustJSON(t, r.Body)["detail"] == "" {
				t.Errorf("Accept %.40q: %d %s", accept, r.Status, r.Body)
			}
		}
		for _, path := range []string{
			"/services/dcat/catalog?page=0", "/services/dcat/catalog?page=-1", "/services/dcat/catalog?page=abc",
			"/services/dcat/catalog?page=99999999999999999999", "/services/dcat/catalog?page=1000001",
			"/services/dcat/catalog?page_size=0", "/services/dcat/catalog?page_size=1001", "/services/dcat/catalog?page_size=1e3",
			"/services/dcat/catalog?format=pdf", "/services/dcat/catalog?format=%00", "/services/dcat/catalog?page=1&page=2",
			"/data.json?format=ttl", "/data.json?page=x", "/data.json?page_size=5000",
		} {
			r := get(t, e, "", path, nil)
			if body := mustJSON(t, r.Body); r.Status != http.StatusBadRequest || body["detail"] == "" || body["code"] != "BAD_REQUEST" {
				t.Errorf("%s: %d %s", path, r.Status, r.Body)
			}
		}
		// Parameters the feed does not read are ignored (harvesters add
		// their own).
		if r := get(t, e, "", "/services/dcat/catalog?modified_since=2020&q=x", nil); r.Status != http.StatusOK {
			t.Errorf("extra parameters: %d %s", r.Status, r.Body)
		}
		queryOnly := e.Token(t, f.owner.User, "query")
		for _, path := range []string{"/services/dcat/catalog", "/data.json"} {
			// The project's answer to a missing scope (apperr.MissingScope).
			if r := get(t, e, queryOnly, path, nil); r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "scope: catalog") {
				t.Errorf("%s without the catalog scope: %d %s", path, r.Status, r.Body)
			}
			if r := get(t, e, "not-a-key", path, nil); r.Status != http.StatusUnauthorized {
				t.Errorf("%s with a bad key: %d %s", path, r.Status, r.Body)
			}
			catalogOnly := e.Token(t, f.owner.User, "catalog")
			if r := get(t, e, catalogOnly, path, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Secret parcels") {
				t.Errorf("%s with the catalog scope: %d", path, r.Status)
			}
		}
	})
}
