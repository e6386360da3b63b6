package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
)

// decodeGQL decodes a GraphQL answer's data.
func decodeGQL(t *testing.T, g *servertest.GraphQLResponse, v any) {
	t.Helper()
	if err := json.Unmarshal(g.Data, v); err != nil {
		t.Fatalf("GraphQL data %s: %v", g.Data, err)
	}
}

// license is what these tests read of a licence.
type license struct {
	ID           int     `json:"id"`
	Title        string  `json:"title"`
	Type         string  `json:"type"`
	Jurisdiction *string `json:"jurisdiction"`
	Version      *string `json:"version"`
	URL          string  `json:"url"`
	URLHTML      string  `json:"url_html"`
	URLFulltext  string  `json:"url_fulltext"`
	URLCanonical string  `json:"url_canonical"`
}

// catalogueRecord is what these tests read of a dataset's catalogue
// fields.
type catalogueRecord struct {
	ThisVersion  string           `json:"this_version"`
	Tags         []string         `json:"tags"`
	Categories   []map[string]any `json:"categories"`
	License      *license         `json:"license"`
	NumViews     int64            `json:"num_views"`
	NumDownloads int64            `json:"num_downloads"`
}

func (c catalogueRecord) categoryKeys() string {
	var keys []string
	for _, x := range c.Categories {
		keys = append(keys, fmt.Sprint(x["key"]))
	}
	return strings.Join(keys, ",")
}

// api-shapes §8.1: licences {id, title, type, jurisdiction, version, url,
// url_html, url_fulltext}; GET /licenses/, /licenses/{id}/ and
// /licenses/{slug}/{jurisdiction}/ ("slug must start with cc-by, may add
// -nc, -sa, -nd (not both sa and nd); unported ⇒ empty jurisdiction
// segment (/licenses/cc-by-nc//)"), readable by anyone. The license list's
// page_size cap is 100000 (spec, Limits).
func TestLicenses(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.Do(t, req{Path: "/licenses/"})
		expectStatus(t, r, http.StatusOK)
		if got := r.Header.Get("Accepted-OAuth-Scopes"); got != "*" {
			t.Fatalf("Accepted-OAuth-Scopes = %q", got)
		}
		if got := r.Header.Get("X-Resource-Range"); got != "0-25/25" {
			t.Fatalf("X-Resource-Range = %q, want 0-25/25 (6 types × 4.0, 3.0, 3.0 nz, 3.0 au, and CC0)", got)
		}
		var all []license
		r.JSON(t, &all)
		byKey := map[string]license{}
		for _, l := range all {
			j, v := "-", "-"
			if l.Jurisdiction != nil {
				j = *l.Jurisdiction
			}
			if l.Version != nil {
				v = *l.Version
			}
			byKey[l.Type+" "+v+" "+j] = l
			if l.URL != fmt.Sprintf("%s/licenses/%d/", e.API, l.ID) || l.URLFulltext != l.URL+"fulltext/" ||
				!strings.HasPrefix(l.URLCanonical, "https://creativecommons.org/") {
				t.Fatalf("licence URLs %+v", l)
			}
		}
		nz, ok := byKey["cc-by 3.0 nz"]
		if !ok || nz.Title != "Creative Commons Attribution 3.0 New Zealand" || nz.URLCanonical != "https://creativecommons.org/licenses/by/3.0/nz/" {
			t.Fatalf("cc-by 3.0 nz: %+v (have %v)", nz, byKey)
		}
		if _, ok := byKey["cc-by-nc-nd 4.0 "]; !ok {
			t.Fatalf("no unported cc-by-nc-nd 4.0: %v", byKey)
		}
		if pd, ok := byKey["public-domain - -"]; !ok || !strings.Contains(pd.Title, "CC0") {
			t.Fatalf("public domain: jurisdiction and version are absent on non-CC licences: %v", byKey)
		}
		if all[0].Type != "cc-by" || *all[0].Version != "4.0" || *all[0].Jurisdiction != "" {
			t.Fatalf("first licence %+v, want cc-by 4.0 unported", all[0])
		}

		one := doJSON[license](t, e, req{Path: fmt.Sprintf("/licenses/%d/", nz.ID)}, http.StatusOK)
		if !reflect.DeepEqual(one, nz) {
			t.Fatalf("GET /licenses/%d/ = %+v, want %+v", nz.ID, one, nz)
		}
		expectStatus(t, e.Do(t, req{Path: "/licenses/99999/"}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: "/licenses/?page_size=100000"}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: "/licenses/?page_size=100001"}), http.StatusBadRequest)

		// Creative Commons licences by properties.
		for _, c := range []struct{ path, want string }{
			{"/licenses/cc-by-nc//", "cc-by-nc 4.0 "},
			{"/licenses/cc-by-nc/", "cc-by-nc 4.0 "},
			{"/licenses/cc-by/nz/", "cc-by 3.0 nz"},
			{"/licenses/cc-by-sa-nc/au/", "cc-by-nc-sa 3.0 au"},
			{"/licenses/CC-BY-ND-NC/NZ/", "cc-by-nc-nd 3.0 nz"},
			{"/licenses/cc-by-sa//?version=3.0", "cc-by-sa 3.0 "},
		} {
			got := doJSON[license](t, e, req{Path: c.path}, http.StatusOK)
			if want := byKey[c.want]; !reflect.DeepEqual(got, want) {
				t.Errorf("GET %s = %+v, want %s %+v", c.path, got, c.want, want)
			}
		}
		for _, c := range []struct {
			path   string
			status int
			detail string
		}{
			{"/licenses/cc-by-sa-nd//", http.StatusBadRequest, "both share-alike"},
			{"/licenses/cc-by-nd-sa/nz/", http.StatusBadRequest, "both share-alike"},
			{"/licenses/cc-by-xx//", http.StatusBadRequest, "not a Creative Commons condition"},
			{"/licenses/cc-by-nc-nc//", http.StatusBadRequest, "repeats"},
			{"/licenses/cc-bync//", http.StatusBadRequest, "after cc-by"},
			{"/licenses/mit//", http.StatusNotFound, "starts with cc-by"},
			{"/licenses/public-domain//", http.StatusNotFound, "starts with cc-by"},
			{"/licenses/cc-by/fr/", http.StatusNotFound, "jurisdiction fr"},
			{"/licenses/cc-by-nc//?version=2.5", http.StatusNotFound, "unported"},
			{"/licenses/cc-by-nc//?version=x", http.StatusBadRequest, "version"},
		} {
			expectDetail(t, e.Do(t, req{Path: c.path}), c.status, c.detail)
		}

		// The full text names the licence and links its legal code;
		// nothing is fetched.
		r = e.Do(t, req{Path: nz.URLFulltext})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(r.Body), "Creative Commons Attribution 3.0 New Zealand") ||
			!strings.Contains(string(r.Body), `href="https://creativecommons.org/licenses/by/3.0/nz/legalcode"`) {
			t.Fatalf("fulltext HTML: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		for _, h := range []map[string]string{{"Accept": "text/plain"}, nil} {
			path := nz.URLFulltext
			if h == nil {
				path += "?format=txt"
			}
			r = e.Do(t, req{Path: path, Header: h})
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") ||
				!strings.Contains(string(r.Body), "Version: 3.0") || !strings.Contains(string(r.Body), "Jurisdiction: nz") {
				t.Fatalf("fulltext text: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
			}
		}
		expectStatus(t, e.Do(t, req{Path: nz.URLFulltext + "?format=pdf"}), http.StatusBadRequest)

		// GraphQL: licenses and license(id:), anonymous.
		g := e.GraphQL(t, "", `query($id: ID!) { licenses { id type version jurisdiction title legalCodeURL deedURL } license(id: $id) { title } }`,
			map[string]any{"id": nz.ID})
		if len(g.Errors) > 0 {
			t.Fatalf("GraphQL errors %v", g.Errors)
		}
		var data struct {
			Licenses []struct{ ID, Type, DeedURL string }
			License  struct{ Title string }
		}
		decodeGQL(t, g, &data)
		if len(data.Licenses) != 25 || data.License.Title != nz.Title || data.Licenses[0].Type != "cc-by" {
			t.Fatalf("GraphQL licences %+v", data)
		}
		g = e.GraphQL(t, "", `{ license(id: 99999) { id } }`, nil)
		if len(g.Errors) == 0 || g.Errors[0].Code() != "NOT_FOUND" {
			t.Fatalf("missing licence: %+v", g.Errors)
		}
	})
}

// categoryNode is a node of GET /categories/.
type categoryNode struct {
	Key      string         `json:"key"`
	Slug     string         `json:"slug"`
	Name     string         `json:"name"`
	Children []categoryNode `json:"children"`
}

// Categories are hierarchical, "parent/child" keys with names (api-shapes
// §4.4), seeded with the ISO 19115 topic categories as top-level keys;
// GET /categories/ (and categories without a slash, as the desktop client
// calls it) answers the tree to anyone; GraphQL categories the flat list.
func TestCategories(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, path := range []string{"/categories/", "/categories"} {
			tree := doJSON[[]categoryNode](t, e, req{Path: path}, http.StatusOK)
			if len(tree) != 19 {
				t.Fatalf("%d top-level categories, want the 19 ISO 19115 topic categories", len(tree))
			}
			var transport *categoryNode
			for i, c := range tree {
				if strings.Contains(c.Key, "/") || c.Slug != c.Key || c.Name == "" || c.Children == nil {
					t.Fatalf("top-level category %+v", c)
				}
				if c.Key == "transportation" {
					transport = &tree[i]
				}
			}
			if transport == nil || transport.Name != "Transportation" || len(transport.Children) != 4 ||
				transport.Children[0].Key != "transportation/aviation" || transport.Children[0].Name != "Aviation" {
				t.Fatalf("transportation %+v", transport)
			}
		}
		g := e.GraphQL(t, "", `{ categories { id key name parentKey } }`, nil)
		var data struct {
			Categories []struct {
				Key, Name string
				ParentKey *string
			}
		}
		decodeGQL(t, g, &data)
		if len(g.Errors) > 0 || len(data.Categories) < 19 || data.Categories[0].ParentKey != nil {
			t.Fatalf("GraphQL categories %+v %v", data, g.Errors)
		}
		for _, c := range data.Categories {
			if c.Key == "transportation/roads" && (c.ParentKey == nil || *c.ParentKey != "transportation") {
				t.Fatalf("roads: %+v", c)
			}
		}
	})
}

// catalogueKind is one dataset kind of the round-trip test.
type catalogueKind struct {
	base string
	// create makes a draft-only dataset of u and returns its URL.
	create func(t *testing.T, e *env, u *user) string
	// publish publishes a draft.
	publish func(t *testing.T, e *env, u *user, draftURL string)
	// gqlUpdate is the update mutation, gqlRead the single-dataset query.
	gqlUpdate, gqlID, gqlRead string
}

var catalogueKinds = []catalogueKind{
	{
		base: "layers", gqlUpdate: "updateLayerVersion", gqlID: "layerID", gqlRead: "layer",
		create: func(t *testing.T, e *env, u *user) string {
			return memberURL(e, seedLayer(t, e, u.User, layer.TypeLayer, "Roads", true))
		},
		publish: publishLayerDraft,
	},
	{
		base: "tables", gqlUpdate: "updateLayerVersion", gqlID: "layerID", gqlRead: "layer",
		create: func(t *testing.T, e *env, u *user) string {
			return memberURL(e, seedLayer(t, e, u.User, layer.TypeTable, "Codes", true))
		},
		publish: publishLayerDraft,
	},
	{base: "sets", gqlUpdate: "updateSetDraft", gqlID: "setID", gqlRead: "set",
		create:  func(t *testing.T, e *env, u *user) string { return metadataKinds[0].create(t, e, u, "Transport") },
		publish: func(t *testing.T, e *env, u *user, draftURL string) { metadataKinds[0].publish(t, e, u, draftURL) }},
	{base: "documents", gqlUpdate: "updateDocumentVersion", gqlID: "documentID", gqlRead: "document",
		create:  func(t *testing.T, e *env, u *user) string { return metadataKinds[1].create(t, e, u, "Report") },
		publish: func(t *testing.T, e *env, u *user, draftURL string) { metadataKinds[1].publish(t, e, u, draftURL) }},
}

// publishLayerDraft publishes a layer or table draft and waits for it.
func publishLayerDraft(t *testing.T, e *env, u *user, draftURL string) {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: u.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	if g := waitPublish(t, e, u.Key, r.Header.Get("Location")); g["state"] != "completed" {
		t.Fatalf("layer publish %v", g)
	}
}

// Issue 13: "Tags, categories and license can be set on every dataset's
// draft and show in its published version (today PUT .../versions/{id}/
// with tags answers 200 and drops them)". PUT and PATCH of a draft set
// them (absent fields stay), the published representation shows them
// (categories as {key, slug, name}, the licence as api-shapes §8.1), a new
// draft starts with them, and GraphQL's update mutations and version
// fields do the same.
func TestCatalogueFieldsRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, k := range catalogueKinds {
			t.Run(k.base, func(t *testing.T) { testCatalogueRoundTrip(t, e, k) })
		}
	})
}

func testCatalogueRoundTrip(t *testing.T, e *env, k catalogueKind) {
	pub := e.NewUser(t, "Publisher"+k.base)
	reader := e.NewUser(t, "Reader"+k.base)
	url := k.create(t, e, pub)
	rec := doJSON[catalogueRecord](t, e, req{Path: url, Key: pub.Key}, http.StatusOK)
	draft := rec.ThisVersion
	if rec.Tags == nil || len(rec.Tags) != 0 || rec.Categories == nil || rec.License != nil {
		t.Fatalf("a new draft's catalogue fields %+v, want [] [] null", rec)
	}
	cc := doJSON[license](t, e, req{Path: "/licenses/cc-by/nz/"}, http.StatusOK)
	r := e.Do(t, req{Method: "PUT", Path: draft, Key: pub.Key, Body: map[string]any{
		"tags":       []string{" roads ", "transport", "roads", ""},
		"categories": []any{"transportation/roads", map[string]any{"key": "transportation"}},
		"license":    map[string]any{"url": cc.URL},
	}})
	if r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	rec = doJSON[catalogueRecord](t, e, req{Path: url, Key: pub.Key}, http.StatusOK)
	if strings.Join(rec.Tags, ",") != "roads,transport" || rec.categoryKeys() != "transportation/roads,transportation" ||
		rec.License == nil || rec.License.ID != cc.ID {
		t.Fatalf("after PUT: %+v", rec)
	}
	if c := rec.Categories[0]; c["name"] != "Roads" || c["slug"] != "transportation/roads" {
		t.Fatalf("category shape %v", c)
	}
	// PATCH changes only what it names; the licence by id.
	by4 := doJSON[license](t, e, req{Path: "/licenses/cc-by//"}, http.StatusOK)
	r = e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: map[string]any{"license": by4.ID}})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	rec = doJSON[catalogueRecord](t, e, req{Path: url, Key: pub.Key}, http.StatusOK)
	if strings.Join(rec.Tags, ",") != "roads,transport" || rec.License == nil || rec.License.ID != by4.ID {
		t.Fatalf("after PATCH: %+v", rec)
	}
	// Sending the representation back (as the Python client does) keeps
	// the fields.
	r = e.Do(t, req{Method: "PUT", Path: draft, Key: pub.Key, Body: map[string]any{
		"tags": rec.Tags, "categories": rec.Categories, "license": rec.License}})
	if r.Status != http.StatusOK {
		t.Fatalf("PUT of the representation: %d %s", r.Status, r.Body)
	}

	k.publish(t, e, pub, draft)
	got := doJSON[catalogueRecord](t, e, req{Path: url, Key: reader.Key}, http.StatusOK)
	if got.ThisVersion != draft || strings.Join(got.Tags, ",") != "roads,transport" ||
		got.categoryKeys() != "transportation/roads,transportation" || got.License == nil || !reflect.DeepEqual(*got.License, *rec.License) {
		t.Fatalf("published representation %+v, want %+v", got, rec)
	}
	// Its page shows them too.
	page := e.Do(t, req{Path: strings.Replace(url, "/services/api/v1.x", "", 1), Key: reader.Key})
	if page.Status != http.StatusOK || !strings.Contains(string(page.Body), by4.Title) ||
		!strings.Contains(string(page.Body), "roads, transport") || !strings.Contains(string(page.Body), "Roads, Transportation") {
		t.Fatalf("page: %d %s", page.Status, page.Body)
	}
	// The published version cannot change.
	r = e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: map[string]any{"tags": []string{"x"}}})
	if r.Status != http.StatusMethodNotAllowed {
		t.Fatalf("PATCH of the published version: %d %s", r.Status, r.Body)
	}

	// A new draft starts with the published fields; GraphQL edits it.
	r = e.Do(t, req{Method: "POST", Path: url + "versions/", Key: pub.Key, Body: map[string]any{}})
	if r.Status != http.StatusCreated {
		t.Fatalf("new draft: %d %s", r.Status, r.Body)
	}
	var created struct {
		URL         string `json:"url"`
		ThisVersion string `json:"this_version"`
	}
	r.JSON(t, &created)
	newDraft := created.ThisVersion
	if newDraft == "" {
		newDraft = created.URL // a document version record
	}
	id, vid := versionIDs(t, newDraft)
	verRoot := map[string]string{"layers": "layerVersion", "tables": "layerVersion", "sets": "setVersion", "documents": "documentVersion"}[k.base]
	g := e.GraphQL(t, pub.Key, fmt.Sprintf(`query($id: ID!, $vid: ID!) { %s(%s: $id, versionID: $vid) { tags license { id } } }`, verRoot, k.gqlID),
		map[string]any{"id": id, "vid": vid})
	var nd map[string]struct {
		Tags    []string
		License *struct{ ID string }
	}
	decodeGQL(t, g, &nd)
	if v := nd[verRoot]; len(g.Errors) > 0 || strings.Join(v.Tags, ",") != "roads,transport" || v.License == nil || v.License.ID != fmt.Sprint(by4.ID) {
		t.Fatalf("new draft %+v %v", v, g.Errors)
	}
	mutation := fmt.Sprintf(`mutation($id: ID!, $vid: ID!, $in: Update%sVersionInput!) { %s(%s: $id, versionID: $vid, input: $in) { id tags categories license { id type } } }`,
		map[string]string{"layers": "Layer", "tables": "Layer", "sets": "Set", "documents": "Document"}[k.base], k.gqlUpdate, k.gqlID)
	g = e.GraphQL(t, pub.Key, mutation, map[string]any{"id": id, "vid": vid, "in": map[string]any{
		"tags": []string{"rail"}, "categories": []string{"transportation/rail"}, "licenseID": nil}})
	if len(g.Errors) > 0 {
		t.Fatalf("GraphQL update: %v", g.Errors)
	}
	var upd map[string]struct {
		Tags, Categories []string
		License          *struct{ ID string }
	}
	decodeGQL(t, g, &upd)
	if v := upd[k.gqlUpdate]; strings.Join(v.Tags, ",") != "rail" || strings.Join(v.Categories, ",") != "transportation/rail" || v.License != nil {
		t.Fatalf("GraphQL update answered %+v", v)
	}
	// Unknown keys and licences are refused naming the field, and change
	// nothing.
	for _, c := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"tags": []string{"kept"}, "categories": []string{"no/such"}}, "categories"},
		{map[string]any{"tags": []string{"kept"}, "licenseID": 99999}, "license"},
	} {
		g = e.GraphQL(t, pub.Key, mutation, map[string]any{"id": id, "vid": vid, "in": c.in})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "BAD_REQUEST" || !strings.Contains(fmt.Sprint(g.Errors[0]), c.field) {
			t.Fatalf("GraphQL bad %s: %+v", c.field, g.Errors)
		}
	}
	// The published version, read over GraphQL, still has its fields.
	pubField := "publishedVersion"
	q := fmt.Sprintf(`query($id: ID!) { %s(id: $id) { %s { tags categories license { id type version jurisdiction title legalCodeURL } } } }`, k.gqlRead, pubField)
	g = e.GraphQL(t, reader.Key, q, map[string]any{"id": id})
	if len(g.Errors) > 0 {
		t.Fatalf("GraphQL read: %v", g.Errors)
	}
	var read map[string]map[string]struct {
		Tags    []string
		License *struct{ ID, Type, Version string }
	}
	decodeGQL(t, g, &read)
	if v := read[k.gqlRead][pubField]; strings.Join(v.Tags, ",") != "roads,transport" || v.License == nil ||
		v.License.ID != fmt.Sprint(by4.ID) || v.License.Version != "4.0" {
		t.Fatalf("GraphQL published version %+v", v)
	}
}

// Bad catalogue input is a 400 naming the field, never a 500, and
// nothing of the request is written: unknown category keys, licences that
// do not exist or are not references, too many or too long tags, text
// that breaks the text rules, and bodies of the wrong shape.
func TestCatalogueFieldsBadInput(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		for _, k := range catalogueKinds {
			url := k.create(t, e, pub)
			draft := doJSON[catalogueRecord](t, e, req{Path: url, Key: pub.Key}, http.StatusOK).ThisVersion
			many := make([]string, 51)
			for i := range many {
				many[i] = fmt.Sprintf("tag%d", i)
			}
			for _, c := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"categories": []string{"transportation", "nope"}}, "categories"},
				{map[string]any{"categories": []any{map[string]any{"name": "Roads"}}}, "categories"},
				{map[string]any{"categories": "transportation"}, "categories"},
				{map[string]any{"license": 99999}, "license"},
				{map[string]any{"license": "https://creativecommons.org/licenses/by/4.0/"}, "license"},
				{map[string]any{"license": map[string]any{"type": "cc-by"}}, "license"},
				{map[string]any{"license": true}, "license"},
				{map[string]any{"tags": many}, "tags"},
				{map[string]any{"tags": []string{strings.Repeat("x", 101)}}, "tags"},
				{map[string]any{"tags": []any{"ok", 3}}, "tags"},
				{map[string]any{"tags": "roads"}, "tags"},
				{map[string]any{"tags": []string{"nul\x00"}}, "tags"},
			} {
				body := map[string]any{"description": "Half-written " + c.field}
				for key, v := range c.body {
					body[key] = v
				}
				r := e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: body})
				if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), c.field) {
					t.Fatalf("%s PATCH %v: %d %s, want 400 naming %s", k.base, c.body, r.Status, r.Body, c.field)
				}
			}
			r := e.Do(t, req{Path: url, Key: pub.Key})
			if strings.Contains(string(r.Body), "Half-written") || strings.Contains(string(r.Body), "tag0") {
				t.Fatalf("%s: a refused edit was written: %s", k.base, r.Body)
			}
			// Clearing: null removes tags, categories and the licence.
			expectStatus(t, e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: map[string]any{
				"tags": []string{"a"}, "categories": []string{"biota"}, "license": 1}}), http.StatusOK)
			expectStatus(t, e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: map[string]any{
				"tags": nil, "categories": nil, "license": nil}}), http.StatusOK)
			if rec := doJSON[catalogueRecord](t, e, req{Path: url, Key: pub.Key}, http.StatusOK); len(rec.Tags) != 0 || len(rec.Categories) != 0 || rec.License != nil {
				t.Fatalf("%s after clearing: %+v", k.base, rec)
			}
		}
	})
}

// Views of a dataset's detail (REST, its HTML page, GraphQL's
// single-dataset query) and downloads of a document's file are counted in
// memory and written in batches: num_views and num_downloads show them
// after a flush; lists and version reads do not count.
func TestPopularityCounters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		ly := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		did := seedSizedDocument(t, e, pub, "Report", 64, true)
		if _, err := e.Server.Resolver.Blobs.Put(t.Context(), "documents/x", strings.NewReader("%PDF-1.4"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
		url := memberURL(e, ly)
		for i := 0; i < 30; i++ {
			expectStatus(t, e.Do(t, req{Path: url}), http.StatusOK)
		}
		expectStatus(t, e.Do(t, req{Path: "/layers/"}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Path: url + "versions/published/"}), http.StatusOK)
		if r := e.Do(t, req{Path: strings.Replace(url, "/services/api/v1.x", "", 1)}); r.Status != http.StatusOK {
			t.Fatalf("HTML page: %d", r.Status)
		}
		g := e.GraphQL(t, "", `query($id: ID!) { layer(id: $id) { id numViews } }`, map[string]any{"id": ly.ID})
		if len(g.Errors) > 0 {
			t.Fatal(g.Errors)
		}
		docURL := fmt.Sprintf("/documents/%d/", did)
		expectStatus(t, e.Do(t, req{Path: docURL}), http.StatusOK)
		for i := 0; i < 3; i++ {
			if r := e.Do(t, req{Path: docURL + "download/"}); r.Status != http.StatusOK {
				t.Fatalf("download: %d %s", r.Status, r.Body)
			}
		}
		expectStatus(t, e.Do(t, req{Path: "/documents/999999/download/"}), http.StatusNotFound)
		// Nothing is written until a flush.
		if rec := doJSON[catalogueRecord](t, e, req{Path: url}, http.StatusOK); rec.NumViews != 0 {
			t.Fatalf("views written before a flush: %d", rec.NumViews)
		}
		n, err := e.Server.Resolver.Popularity.Flush(t.Context())
		if err != nil || n != 2 {
			t.Fatalf("flush wrote %d datasets (%v), want 2", n, err)
		}
		rec := doJSON[catalogueRecord](t, e, req{Path: url}, http.StatusOK)
		// 30 REST reads, the HTML page, the GraphQL query and the read
		// just before the flush.
		if rec.NumViews != 33 || rec.NumDownloads != 0 {
			t.Fatalf("layer counters %d views %d downloads, want 33 and 0", rec.NumViews, rec.NumDownloads)
		}
		doc := doJSON[catalogueRecord](t, e, req{Path: docURL}, http.StatusOK)
		if doc.NumViews != 1 || doc.NumDownloads != 3 {
			t.Fatalf("document counters %d views %d downloads, want 1 and 3", doc.NumViews, doc.NumDownloads)
		}
		g = e.GraphQL(t, "", `query($id: ID!) { layer(id: $id) { numViews numDownloads } }`, map[string]any{"id": ly.ID})
		var data struct {
			Layer struct{ NumViews, NumDownloads int }
		}
		decodeGQL(t, g, &data)
		if data.Layer.NumViews != 33 {
			t.Fatalf("GraphQL numViews %d, want 33 (later views wait for the next flush)", data.Layer.NumViews)
		}
	})
}

// Creating a dataset takes the catalogue fields of its first draft
// (POST /sets/ here; layers, tables and documents share the check): they
// show at once, and a bad value is a 400 that creates nothing.
func TestCatalogueFieldsOnCreate(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Transport", "tags": []string{"roads"}, "categories": []string{"transportation"}, "license": 2}})
		expectStatus(t, r, http.StatusCreated)
		var rec catalogueRecord
		r.JSON(t, &rec)
		if strings.Join(rec.Tags, ",") != "roads" || rec.categoryKeys() != "transportation" || rec.License == nil || rec.License.ID != 2 {
			t.Fatalf("created set %+v", rec)
		}
		before := e.Store.Client.Set.Query().CountX(t.Context())
		r = e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{"title": "Bad", "categories": []string{"nope"}}})
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "categories") {
			t.Fatalf("bad category on create: %d %s", r.Status, r.Body)
		}
		if after := e.Store.Client.Set.Query().CountX(t.Context()); after != before {
			t.Fatalf("a refused create made a set (%d -> %d)", before, after)
		}
		g := e.GraphQL(t, pub.Key, `mutation { createSet(input: {title: "Rail", tags: ["rail"], categories: ["transportation/rail"], licenseID: 3}) { tags categories license { id } } }`, nil)
		var data struct {
			CreateSet struct {
				Tags, Categories []string
				License          struct{ ID string }
			}
		}
		decodeGQL(t, g, &data)
		if len(g.Errors) > 0 || data.CreateSet.Tags[0] != "rail" || data.CreateSet.Categories[0] != "transportation/rail" || data.CreateSet.License.ID != "3" {
			t.Fatalf("GraphQL createSet %+v %v", data, g.Errors)
		}
	})
}
