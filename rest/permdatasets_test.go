package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// permDataset is a published dataset with a draft, for permission tests.
type permDataset struct {
	name     string // REST collection: layers, tables, documents, sets, items
	gqlType  string // GraphQL DatasetType
	id       int    // the id GraphQL's DatasetType queries take
	ref      string // the id in REST paths: 12, or c12 for catalog items
	url      string
	draftURL string
	draftID  int
}

// gqlVars are the variables of the dataset's GraphQL twins (see gqlOps).
func (d permDataset) gqlVars() map[string]any {
	return map[string]any{"id": d.id, "cid": d.ref, "vid": d.draftID, "type": d.gqlType}
}

// gqlOps are the GraphQL twins of reading the dataset, reading its draft,
// editing the draft and listing its versions, over gqlVars.
func (d permDataset) gqlOps() (read, draft, edit, versions string) {
	switch d.name {
	case "documents":
		return `query($id: ID!) { document(id: $id) { id } }`,
			`query($id: ID!, $vid: ID!) { documentVersion(documentID: $id, versionID: $vid) { id } }`,
			`mutation($id: ID!, $vid: ID!) { updateDocumentVersion(documentID: $id, versionID: $vid, input: {description: "x"}) { id } }`,
			`query($id: ID!) { document(id: $id) { versions { id } } }`
	case "sets":
		return `query($id: ID!) { set(id: $id) { id } }`,
			`query($id: ID!, $vid: ID!) { setVersion(setID: $id, versionID: $vid) { id } }`,
			`mutation($id: ID!, $vid: ID!) { updateSetDraft(setID: $id, versionID: $vid, input: {description: "x"}) { id } }`,
			`query($id: ID!) { set(id: $id) { versions { id } } }`
	case "items":
		return `query($cid: String!) { catalogItem(id: $cid) { id } }`,
			`query($cid: String!, $vid: ID!) { catalogItemVersion(itemID: $cid, versionID: $vid) { id } }`,
			`mutation($cid: String!, $vid: ID!) { updateCatalogItemVersion(itemID: $cid, versionID: $vid, input: {description: "x"}) { id } }`,
			`query($cid: String!) { catalogItemVersions(itemID: $cid) { id } }`
	}
	return `query($id: ID!) { layer(id: $id) { id } }`,
		`query($id: ID!, $vid: ID!) { layerVersion(layerID: $id, versionID: $vid) { id } }`,
		`mutation($id: ID!, $vid: ID!) { updateLayerVersion(layerID: $id, versionID: $vid, input: {description: "x"}) { id } }`,
		`query($id: ID!) { layer(id: $id) { versions { id } } }`
}

// listedIn reports whether a list body of the dataset's collection holds
// it.
func (d permDataset) listedIn(body []byte) bool {
	if d.name == "items" {
		return strings.Contains(string(body), fmt.Sprintf(`"id":%q,`, d.ref))
	}
	return strings.Contains(string(body), fmt.Sprintf(`"id":%d,`, d.id))
}

// publishedDatasets builds one published dataset of each kind with
// permissions (layer, table, document, set, catalog item), each with a
// draft, owned by pub.
func publishedDatasets(t *testing.T, e *env, pub *user) []permDataset {
	t.Helper()
	files := map[string][]byte{
		"roads.geojson": []byte(fixtureFiles["roads.geojson"]),
		"codes.csv":     []byte("code,label\nA,Alpha\nB,Beta\n"),
		"readme.pdf":    []byte(fixtureFiles["readme.pdf"]),
	}
	src := upload(t, e, pub.Key, files)
	if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, pub.Key, src.ID)
	var out []permDataset
	for _, c := range []struct{ name, gql, file string }{{"layers", "LAYER", "roads.geojson"}, {"tables", "TABLE", "codes.csv"}} {
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": c.file, "data": map[string]any{"datasources": []int{ds[c.file].ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" {
			t.Fatalf("import %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, pub.Key, r.Header.Get("Location"))
		r = e.Do(t, req{Method: "POST", Path: l.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var d layerRecord
		r.JSON(t, &d)
		out = append(out, permDataset{name: c.name, gqlType: c.gql, id: l.ID, ref: itoa(l.ID), url: l.URL, draftURL: d.ThisVersion, draftID: d.Version.ID})
	}
	r := e.Do(t, req{Method: "POST", Path: "/documents/", Key: pub.Key, Body: map[string]any{
		"name": "Read me", "data": map[string]any{"datasources": []int{ds["readme.pdf"].ID}}}})
	expectStatus(t, r, http.StatusCreated)
	var v struct {
		ID  int    `json:"id"`
		URL string `json:"url"`
	}
	r.JSON(t, &v)
	expectStatus(t, e.Do(t, req{Method: "POST", Path: v.URL + "import/", Key: pub.Key, Body: map[string]any{}}), http.StatusOK)
	docURL := v.URL[:strings.Index(v.URL, "versions/")]
	r = e.Do(t, req{Method: "POST", Path: docURL + "versions/", Key: pub.Key})
	expectStatus(t, r, http.StatusCreated)
	r.JSON(t, &v)
	var docID int
	fmt.Sscanf(docURL[strings.Index(docURL, "/documents/"):], "/documents/%d/", &docID)
	out = append(out, permDataset{name: "documents", gqlType: "DOCUMENT", id: docID, ref: itoa(docID), url: docURL, draftURL: v.URL, draftID: v.ID})
	return append(out, publishedSet(t, e, pub, out[0].url), publishedItem(t, e, pub))
}

// publishedSet builds a published set holding member, with a draft.
func publishedSet(t *testing.T, e *env, pub *user, member string) permDataset {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{"title": "Roads set", "items": []string{member}}})
	expectStatus(t, r, http.StatusCreated)
	var s setRecord
	r.JSON(t, &s)
	r = e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
		t.Fatalf("set publish %v", g)
	}
	r = e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	var d setRecord
	r.JSON(t, &d)
	return permDataset{name: "sets", gqlType: "SET", id: s.ID, ref: itoa(s.ID), url: s.URL, draftURL: d.ThisVersion, draftID: d.Version.ID}
}

// publishedItem builds a published catalog item with a draft.
func publishedItem(t *testing.T, e *env, pub *user) permDataset {
	t.Helper()
	it := createItem(t, e, pub, map[string]any{"title": "Road register", "link_url": "https://example.org/roads"})
	it = publishItem(t, e, pub, it.ThisVersion)
	r := e.Do(t, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	var d itemRecord
	r.JSON(t, &d)
	var id int
	fmt.Sscanf(it.ID, "c%d", &id)
	return permDataset{name: "items", gqlType: "CATALOG_ITEM", id: id, ref: it.ID, url: it.URL, draftURL: d.ThisVersion, draftID: d.Version.ID}
}
