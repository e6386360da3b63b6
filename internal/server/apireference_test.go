package server_test

import (
	"io"
	"net/http"
	"slices"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 12: "serve the GraphQL SDL at /graphql/schema.graphql". Anyone may
// read it; it parses and holds the Query type.
func TestGraphQLSchemaServed(t *testing.T) {
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	resp, err := http.Get(e.HTTP.URL + "/graphql/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	schema, gerr := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(body)})
	if gerr != nil {
		t.Fatalf("the SDL does not parse: %v", gerr)
	}
	if schema.Query == nil || schema.Query.Fields.ForName("groups") == nil || schema.Mutation == nil {
		t.Fatalf("the SDL lacks Query.groups or Mutation")
	}
}

// The API reference page, in headless Chromium: it shows the operations
// of the document, links the document itself and loads nothing from
// another origin.
func TestAPIReferencePageShowsTheOperations(t *testing.T) {
	browsertest.Chromium(t)
	e := servertest.New(t, storetest.Open(t, dialect.SQLite, storetest.Options{}))
	// Without the slash the page redirects to its address with one.
	page := browsertest.OpenReference(t, e.API+"/docs")
	if page.Document != e.API+"/openapi.json" {
		t.Errorf("the page links the document at %q", page.Document)
	}
	for _, want := range []string{"GET /groups/", "POST /layers/{lid}/versions/{vid}/publish/", "DELETE /documents/{did}/versions/{vid}/"} {
		if !slices.Contains(page.Operations, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if len(page.Operations) < 200 || len(page.Outside) > 0 {
		t.Fatalf("%d operations shown, resources from elsewhere: %v", len(page.Operations), page.Outside)
	}
}
