package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/metadatadocument"
)

// metadataKind is a dataset kind whose versions take metadata documents,
// as the tests make it and address it over REST and GraphQL.
type metadataKind struct {
	base        string // the REST collection: sets, documents
	kind        string // dataset_kind of its documents
	read, write string // the scopes of its reads and writes
	// create makes a dataset of u with a draft only and returns its URL.
	create func(t *testing.T, e *env, u *user, name string) string
	// publish publishes the draft at draftURL.
	publish func(t *testing.T, e *env, u *user, draftURL string)
	// GraphQL: the version query and the upload mutation, and the name of
	// their dataset id argument.
	gqlVersion, gqlUpload, gqlID string
}

var metadataKinds = []metadataKind{
	{
		base: "sets", kind: "set", read: "sets:read", write: "sets:write",
		gqlVersion: "setVersion", gqlUpload: "uploadSetMetadata", gqlID: "setID",
		create: func(t *testing.T, e *env, u *user, name string) string {
			t.Helper()
			return doJSON[setRecord](t, e, req{Method: "POST", Path: "/sets/", Key: u.Key, Body: map[string]any{"title": name}}, http.StatusCreated).URL
		},
		publish: func(t *testing.T, e *env, u *user, draftURL string) {
			t.Helper()
			r := e.Do(t, req{Method: "POST", Path: draftURL + "publish/", Key: u.Key, Body: map[string]any{}})
			expectStatus(t, r, http.StatusCreated)
			if g := waitPublish(t, e, u.Key, r.Header.Get("Location")); g["state"] != "completed" {
				t.Fatalf("set publish %v", g)
			}
		},
	},
	{
		// The document pipeline has its own tests: stored straight in the
		// database, published through import/.
		base: "documents", kind: "document", read: "documents:read", write: "documents:write",
		gqlVersion: "documentVersion", gqlUpload: "uploadDocumentMetadata", gqlID: "documentID",
		create: func(t *testing.T, e *env, u *user, name string) string {
			return fmt.Sprintf("%s/documents/%d/", e.API, seedSizedDocument(t, e, u, name, 12, false))
		},
		publish: func(t *testing.T, e *env, u *user, draftURL string) {
			t.Helper()
			expectStatus(t, e.Do(t, req{Method: "POST", Path: draftURL + "import/", Key: u.Key, Body: map[string]any{}}), http.StatusOK)
		},
	},
}

// versionURL matches the URL of a dataset version.
var versionURL = regexp.MustCompile(`/([0-9]+)/versions/([0-9]+)/$`)

// versionIDs reads the ids of a dataset and of one of its versions from
// the version's URL.
func versionIDs(t *testing.T, url string) (id, versionID int) {
	t.Helper()
	m := versionURL.FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("%q is not a version URL", url)
	}
	id, _ = strconv.Atoi(m[1])
	versionID, _ = strconv.Atoi(m[2])
	return id, versionID
}

// datasetRecord is what these tests read of a set or document record.
type datasetRecord struct {
	PublishedVersion *string           `json:"published_version"`
	ThisVersion      string            `json:"this_version"`
	Metadata         map[string]string `json:"metadata"`
}

func getRecord(t *testing.T, e *env, key, url string) datasetRecord {
	t.Helper()
	return doJSON[datasetRecord](t, e, req{Path: url, Key: key}, http.StatusOK)
}

// The metadata of set and document versions, as of layer versions
// (TestLayerMetadata): POST raw ISO, FGDC or Dublin Core XML to a draft's
// metadata/, read it back as uploaded, per format and simplified; 405 on a
// published version, 409 on a discarded draft; the record's `metadata`
// links; new drafts copy the published version's document; deleting the
// dataset deletes its documents. GraphQL reads and refuses the same.
func TestSetAndDocumentMetadata(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, k := range metadataKinds {
			t.Run(k.base, func(t *testing.T) { testVersionMetadata(t, e, k) })
		}
	})
}

func testVersionMetadata(t *testing.T, e *env, k metadataKind) {
	pub := e.NewUser(t, "Publisher")
	reader := e.NewUser(t, "Reader")
	// A dataset with a published version and a draft, and one never
	// published, which only its owner sees.
	record := k.create(t, e, pub, "Roads")
	k.publish(t, e, pub, getRecord(t, e, pub.Key, record).ThisVersion)
	r := e.Do(t, req{Method: "POST", Path: record + "versions/", Key: pub.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	draft := r.Header.Get("Location")
	id, draftID := versionIDs(t, draft)
	published := *getRecord(t, e, pub.Key, record).PublishedVersion
	_, pubID := versionIDs(t, published)
	hidden := k.create(t, e, pub, "Unpublished")
	hiddenDraft := getRecord(t, e, pub.Key, hidden).ThisVersion
	hiddenID, hiddenDraftID := versionIDs(t, hiddenDraft)
	iso, fgdc, dc := xmlFixture(t, "iso19139.xml"), xmlFixture(t, "fgdc.xml"), xmlFixture(t, "oai_dc.xml")
	stored := func(versionID int) int {
		return e.Store.Client.MetadataDocument.Query().
			Where(metadatadocument.DatasetKind(k.kind), metadatadocument.VersionID(versionID)).CountX(t.Context())
	}

	// Who may upload: anonymous 401; a token without the write scope 401
	// naming it (SPEC, Authentication rule 3); a reader of the published
	// dataset 403; a user who cannot see the dataset at all 404.
	up := req{Method: "POST", Path: draft + "metadata/", Body: iso, Header: map[string]string{"Content-Type": "text/xml"}}
	authMatrix(t, e, up, k.write, reader)
	wrong := up
	wrong.Key = e.Token(t, pub.User, k.read)
	expectDetail(t, e.Do(t, wrong), http.StatusUnauthorized, k.write)
	expectStatus(t, xmlPostResp(t, e, reader.Key, hiddenDraft+"metadata/", iso), http.StatusNotFound)

	// Bad XML: 400 saying why, and nothing is stored.
	for name, c := range map[string]struct{ body, want string }{
		"XXE":           {xmlFixture(t, "xxe.xml"), "DOCTYPE"},
		"BillionLaughs": {xmlFixture(t, "billion_laughs.xml"), "DOCTYPE"},
		"NotXML":        {"title: roads", "not XML"},
		"UnknownRoot":   {`<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>`, "Unrecognised metadata format"},
	} {
		expectDetail(t, xmlPostResp(t, e, pub.Key, draft+"metadata/", c.body), http.StatusBadRequest, c.want)
		if n := stored(draftID); n != 0 {
			t.Fatalf("%s: a refused upload stored %d documents", name, n)
		}
	}
	expectDetail(t, e.Do(t, req{Path: draft + "metadata/", Key: pub.Key}), http.StatusNotFound, "no metadata")

	// ISO 19139: 201 {url, url_html} with Location; back byte for byte,
	// as iso/, as Dublin Core, and simplified.
	r = xmlPostResp(t, e, pub.Key, draft+"metadata/", iso)
	expectStatus(t, r, http.StatusCreated)
	var created struct {
		URL     string `json:"url"`
		URLHTML string `json:"url_html"`
	}
	r.JSON(t, &created)
	if created.URL != draft+"metadata/" || r.Header.Get("Location") != created.URL || !strings.HasSuffix(created.URLHTML, fmt.Sprintf("/%s/%d/versions/%d/metadata/", k.base, id, draftID)) {
		t.Fatalf("created %s, Location %q", r.Body, r.Header.Get("Location"))
	}
	expectISOMetadata(t, e, pub.Key, draft, k.read)
	// Readers see neither the draft nor its metadata.
	expectStatus(t, e.Do(t, req{Path: draft + "metadata/", Key: reader.Key}), http.StatusNotFound)

	// FGDC replaces it: the format follows the document.
	expectStatus(t, xmlPostResp(t, e, pub.Key, draft+"metadata/", fgdc), http.StatusCreated)
	expectStatus(t, e.Do(t, req{Path: draft + "metadata/iso/", Key: pub.Key}), http.StatusNotFound)
	if r := e.Do(t, req{Path: draft + "metadata/fgdc/", Key: pub.Key}); r.Status != http.StatusOK || string(r.Body) != fgdc {
		t.Fatalf("fgdc %d", r.Status)
	}
	r = e.Do(t, req{Path: draft + "metadata/dc/", Key: pub.Key})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Hydrologic Units") {
		t.Fatalf("dc of fgdc %d %s", r.Status, r.Body)
	}
	r = e.Do(t, req{Path: draft + "metadata/simple/", Key: pub.Key})
	var simple simpleMetadata
	r.JSON(t, &simple)
	if simple.Format != "fgdc" || simple.Title != "Hydrologic Units of the Chesapeake Bay Watershed" {
		t.Fatalf("fgdc simple %s", r.Body)
	}
	if n := stored(draftID); n != 1 {
		t.Fatalf("%d documents after an overwrite", n)
	}

	// Dublin Core, on the never-published dataset: served as uploaded, and
	// its record (showing that draft) links to it.
	expectStatus(t, xmlPostResp(t, e, pub.Key, hiddenDraft+"metadata/", dc), http.StatusCreated)
	if r := e.Do(t, req{Path: hiddenDraft + "metadata/dc/", Key: pub.Key}); r.Status != http.StatusOK || string(r.Body) != dc {
		t.Fatalf("dc %d %s", r.Status, r.Body)
	}
	r = e.Do(t, req{Path: hiddenDraft + "metadata/simple/", Key: pub.Key})
	r.JSON(t, &simple)
	if simple.Format != "dc" || simple.Title != "Auckland Bus Stops" {
		t.Fatalf("dc simple %s", r.Body)
	}
	if rec := getRecord(t, e, pub.Key, hidden); rec.Metadata["native"] != hiddenDraft+"metadata/" || rec.Metadata["dc"] != hiddenDraft+"metadata/dc/" || len(rec.Metadata) != 2 {
		t.Fatalf("record metadata %+v", rec.Metadata)
	}
	// The published version has none yet: null, and 404.
	r = e.Do(t, req{Path: record, Key: reader.Key})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"metadata":null`) {
		t.Fatalf("published record %d %s", r.Status, r.Body)
	}
	expectDetail(t, e.Do(t, req{Path: published + "metadata/", Key: reader.Key}), http.StatusNotFound, "no metadata")

	// A published version's metadata cannot change: 405.
	expectStatus(t, xmlPostResp(t, e, pub.Key, published+"metadata/", iso), http.StatusMethodNotAllowed)

	// GraphQL reads the same document and refuses the same uploads.
	g := e.GraphQL(t, pub.Key, fmt.Sprintf(`query($d: ID!, $v: ID!) { %s(%s: $d, versionID: $v) { metadata { format title abstract keywords bbox xml dc } } }`, k.gqlVersion, k.gqlID),
		map[string]any{"d": id, "v": draftID})
	var gd map[string]struct {
		Metadata struct {
			Format, Title, Abstract, XML, DC string
			Keywords                         []string
			Bbox                             []float64
		}
	}
	if err := json.Unmarshal(g.Data, &gd); err != nil {
		t.Fatal(err)
	}
	e.Do(t, req{Path: draft + "metadata/simple/", Key: pub.Key}).JSON(t, &simple)
	m := gd[k.gqlVersion].Metadata
	restDC := e.Do(t, req{Path: draft + "metadata/dc/", Key: pub.Key})
	if len(g.Errors) > 0 || m.Format != simple.Format || m.Title != simple.Title || m.Abstract != simple.Abstract ||
		!reflect.DeepEqual(m.Keywords, simple.Keywords) || !reflect.DeepEqual(m.Bbox, simple.BBox) || m.XML != fgdc || m.DC != string(restDC.Body) {
		t.Fatalf("GraphQL %s %+v vs REST %+v", g.Data, g.Errors, simple)
	}
	upload := fmt.Sprintf(`mutation($d: ID!, $v: ID!, $x: String!) { %s(%s: $d, versionID: $v, xml: $x) { format title } }`, k.gqlUpload, k.gqlID)
	for _, c := range []struct {
		key       string
		d, v      int
		xml, code string
	}{
		{pub.Key, id, draftID, xmlFixture(t, "xxe.xml"), "BAD_REQUEST"},
		{pub.Key, id, pubID, iso, "METHOD_NOT_ALLOWED"},
		{reader.Key, id, draftID, iso, "FORBIDDEN"},
		{reader.Key, hiddenID, hiddenDraftID, iso, "NOT_FOUND"},
	} {
		g := e.GraphQL(t, c.key, upload, map[string]any{"d": c.d, "v": c.v, "x": c.xml})
		if len(g.Errors) != 1 || g.Errors[0].Code() != c.code {
			t.Fatalf("GraphQL upload to %d: %+v, want %s", c.v, g.Errors, c.code)
		}
	}
	g = e.GraphQL(t, pub.Key, upload, map[string]any{"d": id, "v": draftID, "x": iso})
	if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"format":"iso","title":"Wellington Road Centrelines"`) {
		t.Fatalf("GraphQL upload %s %+v", g.Data, g.Errors)
	}
	if r := e.Do(t, req{Path: draft + "metadata/", Key: pub.Key}); string(r.Body) != iso {
		t.Fatalf("after the GraphQL upload %s", r.Body)
	}

	// A discarded draft takes no document: 409.
	expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft, Key: pub.Key}), http.StatusNoContent)
	expectStatus(t, xmlPostResp(t, e, pub.Key, draft+"metadata/", fgdc), http.StatusConflict)

	// A new draft starts with the published version's document, which the
	// record now links to and readers may read.
	e.Store.Client.MetadataDocument.Create().SetDatasetKind(k.kind).SetDatasetID(id).SetVersionID(pubID).
		SetFormat("fgdc").SetXML(fgdc).SetTitle("Hydrologic Units").SetUploadedBy(pub.ID).ExecX(t.Context())
	r = e.Do(t, req{Method: "POST", Path: record + "versions/", Key: pub.Key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	newDraft := r.Header.Get("Location")
	if newDraft == "" || newDraft == draft {
		t.Fatalf("new draft at %q", newDraft)
	}
	if r := e.Do(t, req{Path: newDraft + "metadata/", Key: pub.Key}); r.Status != http.StatusOK || string(r.Body) != fgdc {
		t.Fatalf("copied %d %s", r.Status, r.Body)
	}
	if rec := getRecord(t, e, reader.Key, record); rec.Metadata["fgdc"] != published+"metadata/fgdc/" || rec.Metadata["native"] != published+"metadata/" {
		t.Fatalf("published record metadata %+v", rec.Metadata)
	}
	if r := e.Do(t, req{Path: published + "metadata/fgdc/", Key: reader.Key}); r.Status != http.StatusOK || string(r.Body) != fgdc {
		t.Fatalf("reader fgdc %d", r.Status)
	}

	// Deleting the dataset deletes its documents, and only its.
	expectStatus(t, e.Do(t, req{Method: "DELETE", Path: record, Key: pub.Key}), http.StatusNoContent)
	n := e.Store.Client.MetadataDocument.Query().
		Where(metadatadocument.DatasetKind(k.kind), metadatadocument.DatasetID(id)).CountX(t.Context())
	if n != 0 || stored(hiddenDraftID) != 1 {
		t.Fatalf("after deleting %s %d: %d of its documents left, %d of the other's", k.base, id, n, stored(hiddenDraftID))
	}
}
