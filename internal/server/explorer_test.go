package server_test

import (
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// The offline explorer at /graphiql, driven by headless Chromium against
// the real service: it loads with no outside request, runs a query against
// /graphql and shows the result.
func TestGraphiQLRunsAQuery(t *testing.T) {
	browsertest.Chromium(t)
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	out := browsertest.RunGraphiQLQuery(t, e.HTTP.URL+"/graphiql",
		`{ __type(name: "Group") { name fields { name } } me { id } }`)
	for _, want := range []string{`"name": "Group"`, `"urlSlug"`, `"accessRequestsEnabled"`, `"me": null`} {
		if !strings.Contains(out, want) {
			t.Fatalf("result pane lacks %s:\n%s", want, out)
		}
	}
}

// GraphiQL's Docs pane shows the schema: its standard introspection query
// (graphql-js's, fifteen levels deep) is within the limits introspection
// has, and the explorer lists the fields of Query.
func TestGraphiQLDocsShowTheSchema(t *testing.T) {
	browsertest.Chromium(t)
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	fields := browsertest.GraphiQLQueryFields(t, e.HTTP.URL+"/graphiql")
	for _, want := range []string{"groups", "layer", "me"} {
		if !slices.Contains(fields, want) {
			t.Fatalf("the Docs pane lists no %s among the fields of Query: %v", want, fields)
		}
	}
}
