package rest_test

import (
	"encoding/json"
	"fmt"
	"github.com/geopub/geopub/internal/access"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/documentversion"
)

// seedSizedDocument stores a document owned by u straight in the database (the
// document pipeline has its own tests); published makes it public.
func seedSizedDocument(t *testing.T, e *env, u *user, name string, size int64, published bool) int {
	t.Helper()
	ctx := t.Context()
	c := e.Store.Client
	d := c.Document.Create().SetName(name).SetUserID(u.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindDocument, d.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	m := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(name).SetDatasourceID(0).SetFileKey("documents/x").
		SetFileName(name + ".pdf").SetExtension("pdf").SetContentType("application/pdf").SetFileSize(size).SetCreatedBy(u.ID)
	if published {
		m.SetState(documentversion.StatePublished)
	}
	v := m.SaveX(ctx)
	if published {
		d.Update().SetPublishedVersionID(v.ID).ExecX(ctx)
	}
	return d.ID
}

// Catalog item metadata, api-shapes §8.2: POST XML to a version's
// metadata/, 405 once published.
func TestCatalogItemMetadata(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		xmlHeader := map[string]string{"Content-Type": "text/xml"}
		iso := xmlFixture(t, "iso19139.xml")
		up := req{Method: "POST", Path: it.ThisVersion + "metadata/", Body: iso, Header: xmlHeader}
		authMatrix(t, e, up, "items:write", nil)
		up.Key = reader.Key
		expectStatus(t, e.Do(t, up), http.StatusNotFound)
		up.Key = pub.Key
		r := e.Do(t, up)
		expectStatus(t, r, http.StatusCreated)
		if r.Header.Get("Location") != it.ThisVersion+"metadata/" {
			t.Fatalf("Location %q", r.Header.Get("Location"))
		}
		bad := up
		bad.Body = xmlFixture(t, "xxe.xml")
		expectDetail(t, e.Do(t, bad), http.StatusBadRequest, "DOCTYPE")

		it = publishItem(t, e, pub, it.ThisVersion)
		if it.Metadata["iso"] != it.ThisVersion+"metadata/iso/" || it.Metadata["native"] != it.ThisVersion+"metadata/" {
			t.Fatalf("metadata %+v", it.Metadata)
		}
		expectStatus(t, e.Do(t, up), http.StatusMethodNotAllowed)
		r = e.Do(t, req{Path: it.Metadata["iso"], Key: reader.Key})
		if r.Status != http.StatusOK || string(r.Body) != iso || r.Header.Get("Accepted-OAuth-Scopes") != "catalog" {
			t.Fatalf("reader iso %d %v", r.Status, r.Header)
		}
		expectStatus(t, e.Do(t, req{Path: it.ThisVersion + "metadata/fgdc/", Key: reader.Key}), http.StatusNotFound)
		// A new draft starts with the metadata; GraphQL reads it too.
		r = e.Do(t, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		var draft itemRecord
		r.JSON(t, &draft)
		if draft.Metadata["iso"] != draft.ThisVersion+"metadata/iso/" {
			t.Fatalf("draft %s", r.Body)
		}
		g := e.GraphQL(t, pub.Key, `mutation($id: String!, $v: ID!, $x: String!) { uploadCatalogItemMetadata(itemID: $id, versionID: $v, xml: $x) { format title keywords } }`,
			map[string]any{"id": it.ID, "v": draft.Version.ID, "x": xmlFixture(t, "fgdc.xml")})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"format":"fgdc"`) {
			t.Fatalf("GraphQL upload %s %+v", g.Data, g.Errors)
		}
		r = e.Do(t, req{Path: draft.ThisVersion + "metadata/simple/", Key: pub.Key})
		var simple simpleMetadata
		r.JSON(t, &simple)
		if simple.Format != "fgdc" || simple.Title != "Hydrologic Units of the Chesapeake Bay Watershed" {
			t.Fatalf("simple %s", r.Body)
		}
	})
}

// Attachments: existing documents by id, listed as
// [{url_download, document: {title, extension, file_size_formatted}}]
// (api-shapes §10.1), each reader seeing only documents they may see.
func TestCatalogItemAttachments(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		other := e.NewUser(t, "Other")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		report := seedSizedDocument(t, e, pub, "Bore report", 21343680, true)
		private := seedSizedDocument(t, e, pub, "Working notes", 12, false)
		othersPrivate := seedSizedDocument(t, e, other, "Not yours", 12, false)

		add := req{Method: "POST", Path: it.Attachments, Body: map[string]any{"document": report}}
		authMatrix(t, e, add, "items:write", nil)
		// The reader sees the published item but may not edit it: 403.
		add.Key = reader.Key
		expectStatus(t, e.Do(t, add), http.StatusForbidden)
		add.Key = pub.Key
		r := e.Do(t, add)
		expectStatus(t, r, http.StatusCreated)
		var att struct {
			URL         string `json:"url"`
			URLDownload string `json:"url_download"`
			Document    struct {
				Title             string `json:"title"`
				Extension         string `json:"extension"`
				FileSizeFormatted string `json:"file_size_formatted"`
			} `json:"document"`
		}
		r.JSON(t, &att)
		if r.Header.Get("Location") != att.URL || att.Document.Title != "Bore report" || att.Document.Extension != "pdf" ||
			att.Document.FileSizeFormatted != "21.3 MB" || !strings.HasSuffix(att.URLDownload, fmt.Sprintf("/documents/%d/download/", report)) {
			t.Fatalf("attachment %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: att.URL, Key: reader.Key}), http.StatusOK)
		// Again: nothing changes. By URL works too.
		add.Body = map[string]any{"document": fmt.Sprintf("%s/documents/%d/", e.API, report)}
		expectStatus(t, e.Do(t, add), http.StatusCreated)
		add.Body = map[string]any{"document": private}
		expectStatus(t, e.Do(t, add), http.StatusCreated)
		// Bad references: 400 naming document.
		for _, body := range []map[string]any{{}, {"document": "nonsense"}, {"document": othersPrivate}, {"document": 99999}} {
			add.Body = body
			r := e.Do(t, add)
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"document":[`) {
				t.Fatalf("%v: %s", body, r.Body)
			}
		}

		// The publisher sees both; the reader only the published one.
		var list []json.RawMessage
		e.Do(t, req{Path: it.Attachments, Key: pub.Key}).JSON(t, &list)
		if len(list) != 2 {
			t.Fatalf("publisher sees %d", len(list))
		}
		r = e.Do(t, req{Path: it.Attachments, Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &list)
		if len(list) != 1 || !strings.Contains(string(list[0]), `"title":"Bore report"`) {
			t.Fatalf("reader sees %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("%s%d/", it.Attachments, private), Key: reader.Key}), http.StatusNotFound)
		// GraphQL: the same documents.
		g := e.GraphQL(t, reader.Key, `query($id: String!) { catalogItem(id: $id) { attachments { id name } } }`, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != fmt.Sprintf(`{"catalogItem":{"attachments":[{"id":"%d","name":"Bore report"}]}}`, report) {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}

		// Remove: 204, then 404.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: att.URL, Key: reader.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: att.URL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: att.URL, Key: pub.Key}), http.StatusNotFound)
		e.Do(t, req{Path: it.Attachments, Key: reader.Key}).JSON(t, &list)
		if len(list) != 0 {
			t.Fatalf("after removal %d", len(list))
		}
	})
}

// Geotags: named places {name, geometry (GeoJSON)}, geometry validated.
func TestCatalogItemGeotags(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		point := map[string]any{"type": "Point", "coordinates": []float64{172.63, -43.53}}
		add := req{Method: "POST", Path: it.Geotags, Body: map[string]any{"name": "Christchurch", "geometry": point}}
		authMatrix(t, e, add, "items:write", nil)
		// The reader sees the published item but may not edit it: 403.
		add.Key = reader.Key
		expectStatus(t, e.Do(t, add), http.StatusForbidden)
		add.Key = pub.Key
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"NoName":      {map[string]any{"geometry": point}, "name"},
			"NoGeometry":  {map[string]any{"name": "x"}, "geometry"},
			"NotAnObject": {map[string]any{"name": "x", "geometry": "POINT(1 2)"}, "geometry"},
			"OutOfRange":  {map[string]any{"name": "x", "geometry": map[string]any{"type": "Point", "coordinates": []float64{1720000, -43}}}, "geometry"},
			"OpenRing": {map[string]any{"name": "x", "geometry": map[string]any{"type": "Polygon",
				"coordinates": [][][]float64{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}}}}, "geometry"},
		} {
			t.Run(name, func(t *testing.T) {
				b := add
				b.Body = c.body
				r := e.Do(t, b)
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), `"`+c.field+`":[`) {
					t.Fatalf("400 body %s does not name %s", r.Body, c.field)
				}
			})
		}
		r := e.Do(t, add)
		expectStatus(t, r, http.StatusCreated)
		var gt struct {
			ID       int            `json:"id"`
			URL      string         `json:"url"`
			Name     string         `json:"name"`
			Geometry map[string]any `json:"geometry"`
		}
		r.JSON(t, &gt)
		if r.Header.Get("Location") != gt.URL || gt.Name != "Christchurch" || gt.Geometry["type"] != "Point" {
			t.Fatalf("geotag %s", r.Body)
		}
		r = e.Do(t, req{Path: it.Geotags, Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"geometry":{"coordinates":[172.63,-43.53],"type":"Point"}`) {
			t.Fatalf("list %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: gt.URL}), http.StatusOK)
		g := e.GraphQL(t, reader.Key, `query($id: String!) { catalogItem(id: $id) { geotags { id name geometry } } }`, map[string]any{"id": it.ID})
		if len(g.Errors) > 0 || string(g.Data) != fmt.Sprintf(`{"catalogItem":{"geotags":[{"id":"%d","name":"Christchurch","geometry":{"coordinates":[172.63,-43.53],"type":"Point"}}]}}`, gt.ID) {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: gt.URL, Key: reader.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: gt.URL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: gt.URL, Key: pub.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: gt.URL, Key: pub.Key}), http.StatusNotFound)
	})
}
