package rest_test

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
)

// Issue 13 point 6: one GraphQL search with the filters of /data/ as
// input, a Relay connection of the Dataset union with keyset cursors,
// totalCount and facets; the same permission rule as REST.
func TestGraphQLSearch(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		const q = `query($input: SearchInput, $first: Int, $after: String) {
			search(input: $input, first: $first, after: $after) {
				totalCount
				pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
				edges { cursor node {
					__typename
					... on Layer { id name type }
					... on Set { id title }
					... on Document { id name }
					... on CatalogItem { id title }
				} }
				facets { kind { key total } createdAt { min max } }
			}
		}`
		type conn struct {
			Search struct {
				TotalCount int
				PageInfo   struct {
					HasNextPage, HasPreviousPage bool
					StartCursor, EndCursor       *string
				}
				Edges []struct {
					Cursor string
					Node   struct {
						Typename    string `json:"__typename"`
						Name, Title string
					}
				}
				Facets *struct {
					Kind []struct {
						Key   string
						Total int
					}
				}
			}
		}
		run := func(key string, vars map[string]any) conn {
			t.Helper()
			r := e.GraphQL(t, key, q, vars)
			if len(r.Errors) > 0 {
				t.Fatalf("errors: %+v", r.Errors)
			}
			var c conn
			if err := json.Unmarshal(r.Data, &c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		// Keyset paging: two at a time, by name, following endCursor.
		var got []string
		var after any
		for pages := 0; ; pages++ {
			c := run("", map[string]any{"first": 2, "after": after, "input": map[string]any{"sort": "NAME"}})
			if c.Search.TotalCount != 6 || c.Search.PageInfo.HasPreviousPage != (after != nil) {
				t.Fatalf("page %d: %+v", pages, c.Search)
			}
			for _, ed := range c.Search.Edges {
				got = append(got, ed.Node.Name+ed.Node.Title)
				if ed.Cursor == "" {
					t.Fatal("an edge without a cursor")
				}
			}
			if !c.Search.PageInfo.HasNextPage {
				break
			}
			after = *c.Search.PageInfo.EndCursor
		}
		if !slices.Equal(got, published) {
			t.Fatalf("pages: %v", got)
		}
		// Filters and facets; the private layer only for its owner.
		c := run("", map[string]any{"input": map[string]any{"kind": []string{"layer"}}})
		if c.Search.TotalCount != 2 || c.Search.Facets == nil {
			t.Fatalf("kind layer: %+v", c.Search)
		}
		c = run(f.owner.Key, map[string]any{"input": map[string]any{"kind": []string{"layer"}, "public": false}})
		if c.Search.TotalCount != 1 || c.Search.Edges[0].Node.Name != "Secret parcels" || c.Search.Edges[0].Node.Typename != "Layer" {
			t.Fatalf("owner's private: %+v", c.Search)
		}
		c = run(f.owner.Key, map[string]any{"input": map[string]any{"state": "LATEST", "versionStatus": []string{"importing"}}})
		if c.Search.TotalCount != 1 || c.Search.Edges[0].Node.Name != "Draft rivers" {
			t.Fatalf("owner's drafts: %+v", c.Search)
		}
		c = run("", map[string]any{"input": map[string]any{"state": "LATEST", "versionStatus": []string{"importing"}}})
		if c.Search.TotalCount != 0 {
			t.Fatalf("LEAK: anonymous sees drafts: %+v", c.Search)
		}
		var types []string
		for _, ed := range run("", nil).Search.Edges {
			types = append(types, ed.Node.Typename)
		}
		sort.Strings(types)
		if !slices.Equal(types, []string{"CatalogItem", "Document", "Layer", "Layer", "Layer", "Set"}) {
			t.Fatalf("typenames %v", types)
		}
		// Bad arguments are BAD_REQUEST-like errors, not 500s.
		for _, vars := range []map[string]any{
			{"first": 0}, {"first": 201}, {"after": "garbage"},
			{"input": map[string]any{"q": string([]byte{'a', 0})}},
			{"input": map[string]any{"sort": "NAME"}, "after": run("", map[string]any{"first": 1}).Search.PageInfo.EndCursor},
		} {
			r := e.GraphQL(t, "", q, vars)
			if len(r.Errors) == 0 || r.Errors[0].Code() == "INTERNAL" || r.Errors[0].Code() == "" {
				t.Errorf("%v: %+v", vars, r.Errors)
			}
		}
	})
}
