package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/geopub/geopub/internal/access"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/server/servertest"
)

func xmlFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seedLayerWithDraft stores a layer owned by u with a published version
// and a draft, straight in the database (the import pipeline has its own
// tests), and returns the layer and version ids.
func seedLayerWithDraft(t *testing.T, e *env, u *user, name string) (lid, pubID, draftID int) {
	t.Helper()
	ctx := context.Background()
	c := e.Store.Client
	l := c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(u.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	pub := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(u.ID).SetDatasourceIds([]int{}).
		SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetPublishedAt(now).SaveX(ctx)
	l = l.Update().SetPublishedVersionID(pub.ID).SetPublishedAt(now).SetFirstPublishedAt(now).SaveX(ctx)
	draft := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(u.ID).SetDatasourceIds([]int{}).
		SetStatus(layerversion.StatusOk).SaveX(ctx)
	return l.ID, pub.ID, draft.ID
}

type simpleMetadata struct {
	Format   string    `json:"format"`
	Title    string    `json:"title"`
	Abstract string    `json:"abstract"`
	Keywords []string  `json:"keywords"`
	BBox     []float64 `json:"bbox"`
	Extent   *struct{ Type string }
	Native   string `json:"native"`
}

// api-shapes §8.2: POST raw XML to a version's metadata/ (format
// auto-detected) answers 200/201 {url, url_html} + Location, overwrites an
// existing document, and is 405 on a published version; GET of
// metadata.<format> returns XML. The layer's `metadata` field holds the
// URLs.
func TestLayerMetadata(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		lid, pubID, draftID := seedLayerWithDraft(t, e, pub, "Roads")
		draft := fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, lid, draftID)
		published := fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, lid, pubID)
		iso := xmlFixture(t, "iso19139.xml")

		// Who may upload: anonymous and a token without layers:write get
		// 401 naming the scope; a reader of someone else's published layer
		// may not change it (403).
		authMatrix(t, e, req{Method: "POST", Path: draft + "metadata/", Body: iso, Header: map[string]string{"Content-Type": "text/xml"}}, "layers:write", nil)
		wrong := e.Token(t, pub.User, "layers:read")
		expectDetail(t, e.Do(t, req{Method: "POST", Path: draft + "metadata/", Key: wrong, Body: iso, Header: map[string]string{"Content-Type": "text/xml"}}), http.StatusUnauthorized, "layers:write")
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draft + "metadata/", Key: reader.Key, Body: iso, Header: map[string]string{"Content-Type": "text/xml"}}), http.StatusForbidden)

		// Upload ISO 19139 to the draft.
		r := e.Do(t, req{Method: "POST", Path: draft + "metadata/", Key: pub.Key, Body: iso, Header: map[string]string{"Content-Type": "text/xml"}})
		expectStatus(t, r, http.StatusCreated)
		var created struct{ URL, URLHTML string }
		r.JSON(t, &created)
		if created.URL != draft+"metadata/" || r.Header.Get("Location") != created.URL || !strings.HasPrefix(created.URL, "http") {
			t.Fatalf("created %s, Location %q", r.Body, r.Header.Get("Location"))
		}
		// It comes back as uploaded, per format and simplified; the
		// simplified form two ways; other renderings are a 400.
		r = expectISOMetadata(t, e, pub.Key, draft, "layers:read")
		if r2 := e.Do(t, req{Path: draft + "metadata/?format=json", Key: pub.Key}); string(r2.Body) != string(r.Body) {
			t.Fatalf("?format=json %s", r2.Body)
		}
		r = e.Do(t, req{Path: draft + "metadata/?format=pdf", Key: pub.Key})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), `"format":["Select a valid choice`) {
			t.Fatalf("format=pdf %s", r.Body)
		}

		// The layer as of the draft links to it.
		r = e.Do(t, req{Path: draft, Key: pub.Key})
		var ly struct{ Metadata map[string]string }
		r.JSON(t, &ly)
		if ly.Metadata["native"] != created.URL || ly.Metadata["iso"] != created.URL+"iso/" || ly.Metadata["dc"] != created.URL+"dc/" || len(ly.Metadata) != 3 {
			t.Fatalf("layer metadata %s", r.Body)
		}
		// The published version has none: null, and 404 for its documents.
		r = e.Do(t, req{Path: published, Key: reader.Key})
		if !strings.Contains(string(r.Body), `"metadata":null`) {
			t.Fatalf("published %s", r.Body)
		}
		expectDetail(t, e.Do(t, req{Path: published + "metadata/", Key: reader.Key}), http.StatusNotFound, "no metadata")
		// Readers cannot see the draft, nor its metadata.
		expectStatus(t, e.Do(t, req{Path: draft + "metadata/", Key: reader.Key}), http.StatusNotFound)

		// Bad uploads: 400 with the reason, and the stored document stays.
		for name, c := range map[string]struct{ body, ct, want string }{
			"XXE":           {xmlFixture(t, "xxe.xml"), "text/xml", "DOCTYPE"},
			"BillionLaughs": {xmlFixture(t, "billion_laughs.xml"), "application/xml", "DOCTYPE"},
			"NotXML":        {"title: roads", "text/xml", "not XML"},
			"UnknownRoot":   {`<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>`, "text/xml", "Unrecognised metadata format"},
			"JSONType":      {iso, "application/json", "text/xml"},
			"NoType":        {iso, "", "text/xml"},
			"Oversized":     {"<metadata>" + strings.Repeat(" ", 10<<20) + "</metadata>", "text/xml", "10 MiB"},
		} {
			t.Run(name, func(t *testing.T) {
				r := e.Do(t, req{Method: "POST", Path: draft + "metadata/", Key: pub.Key, Body: c.body, Header: map[string]string{"Content-Type": c.ct}})
				status := http.StatusBadRequest
				if name == "Oversized" {
					status = http.StatusRequestEntityTooLarge // over the route's body cap
				}
				expectDetail(t, r, status, c.want)
				if r := e.Do(t, req{Path: draft + "metadata/", Key: pub.Key}); string(r.Body) != iso {
					t.Fatal("a refused upload changed the stored document")
				}
			})
		}

		// Overwrite with FGDC: the format follows the document.
		fgdc := xmlFixture(t, "fgdc.xml")
		expectStatus(t, xmlPostResp(t, e, pub.Key, draft+"metadata/", fgdc), http.StatusCreated)
		expectStatus(t, e.Do(t, req{Path: draft + "metadata/iso/", Key: pub.Key}), http.StatusNotFound)
		if r := e.Do(t, req{Path: draft + "metadata/fgdc/", Key: pub.Key}); string(r.Body) != fgdc {
			t.Fatalf("fgdc %d", r.Status)
		}
		if n := e.Store.Client.MetadataDocument.Query().CountX(context.Background()); n != 1 {
			t.Fatalf("%d metadata documents after an overwrite", n)
		}

		// A published version's metadata cannot change: 405.
		expectStatus(t, xmlPostResp(t, e, pub.Key, published+"metadata/", iso), http.StatusMethodNotAllowed)

		// GraphQL reads the same document and refuses the same uploads.
		g := e.GraphQL(t, pub.Key, `query($l: ID!, $v: ID!) { layerVersion(layerID: $l, versionID: $v) { metadata { format title abstract keywords bbox xml dc } } }`,
			map[string]any{"l": lid, "v": draftID})
		var gd struct {
			LayerVersion struct {
				Metadata struct {
					Format, Title, Abstract, XML, DC string
					Keywords                         []string
					Bbox                             []float64
				}
			}
		}
		json.Unmarshal(g.Data, &gd)
		var simple simpleMetadata
		e.Do(t, req{Path: draft + "metadata/simple/", Key: pub.Key}).JSON(t, &simple)
		m := gd.LayerVersion.Metadata
		restDC := e.Do(t, req{Path: draft + "metadata/dc/", Key: pub.Key})
		if len(g.Errors) > 0 || m.Format != simple.Format || m.Title != simple.Title || m.Abstract != simple.Abstract ||
			!reflect.DeepEqual(m.Keywords, simple.Keywords) || !reflect.DeepEqual(m.Bbox, simple.BBox) || m.XML != fgdc || m.DC != string(restDC.Body) {
			t.Fatalf("GraphQL %s %+v vs REST %+v", g.Data, g.Errors, simple)
		}
		upload := `mutation($l: ID!, $v: ID!, $x: String!) { uploadLayerMetadata(layerID: $l, versionID: $v, xml: $x) { format title } }`
		for _, c := range []struct {
			v         int
			xml, code string
		}{{draftID, xmlFixture(t, "xxe.xml"), "BAD_REQUEST"}, {pubID, iso, "METHOD_NOT_ALLOWED"}} {
			g := e.GraphQL(t, pub.Key, upload, map[string]any{"l": lid, "v": c.v, "x": c.xml})
			if len(g.Errors) != 1 || g.Errors[0].Code() != c.code {
				t.Fatalf("GraphQL upload to %d: %+v, want %s", c.v, g.Errors, c.code)
			}
		}
		g = e.GraphQL(t, pub.Key, upload, map[string]any{"l": lid, "v": draftID, "x": xmlFixture(t, "oai_dc.xml")})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"format":"dc","title":"Auckland Bus Stops"`) {
			t.Fatalf("GraphQL upload %s %+v", g.Data, g.Errors)
		}
		// Dublin Core uploads are served as uploaded.
		if r := e.Do(t, req{Path: draft + "metadata/dc/", Key: pub.Key}); string(r.Body) != xmlFixture(t, "oai_dc.xml") {
			t.Fatalf("dc %s", r.Body)
		}

		// A new draft starts with the published version's metadata.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft, Key: pub.Key}), http.StatusNoContent)
		e.Store.Client.MetadataDocument.Create().SetDatasetKind("layer").SetDatasetID(lid).SetVersionID(pubID).
			SetFormat("fgdc").SetXML(fgdc).SetTitle("Hydrologic Units").SetUploadedBy(pub.ID).ExecX(context.Background())
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("%s/layers/%d/versions/", e.API, lid), Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var nd struct {
			ThisVersion string            `json:"this_version"`
			Metadata    map[string]string `json:"metadata"`
		}
		r.JSON(t, &nd)
		if nd.Metadata["fgdc"] != nd.ThisVersion+"metadata/fgdc/" {
			t.Fatalf("new draft %s", r.Body)
		}
		if r := e.Do(t, req{Path: nd.ThisVersion + "metadata/", Key: pub.Key}); string(r.Body) != fgdc {
			t.Fatalf("copied %d %s", r.Status, r.Body)
		}
	})
}

// expectISOMetadata checks what a version holding iso19139.xml serves
// under version+"metadata/" to key: the document byte for byte as text/xml
// (the read scope named), the same at iso/, 404 at fgdc/, its Dublin Core
// rendering at dc/, and its simplified form at simple/, whose response it
// returns.
func expectISOMetadata(t *testing.T, e *env, key, version, readScope string) *servertest.Response {
	t.Helper()
	iso := xmlFixture(t, "iso19139.xml")
	r := e.Do(t, req{Path: version + "metadata/", Key: key})
	if r.Status != http.StatusOK || string(r.Body) != iso || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/xml") ||
		r.Header.Get("Accepted-OAuth-Scopes") != readScope {
		t.Fatalf("native %d %v", r.Status, r.Header)
	}
	if r := e.Do(t, req{Path: version + "metadata/iso/", Key: key}); r.Status != http.StatusOK || string(r.Body) != iso {
		t.Fatalf("iso %d", r.Status)
	}
	expectStatus(t, e.Do(t, req{Path: version + "metadata/fgdc/", Key: key}), http.StatusNotFound)
	r = e.Do(t, req{Path: version + "metadata/dc/", Key: key})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "<dc:title>Wellington Road Centrelines</dc:title>") {
		t.Fatalf("dc %d %s", r.Status, r.Body)
	}
	r = e.Do(t, req{Path: version + "metadata/simple/", Key: key})
	expectStatus(t, r, http.StatusOK)
	var simple simpleMetadata
	r.JSON(t, &simple)
	if simple.Format != "iso" || simple.Title != "Wellington Road Centrelines" || !reflect.DeepEqual(simple.Keywords, []string{"transport", "roads", "transport networks"}) ||
		!reflect.DeepEqual(simple.BBox, []float64{174.6, -41.4, 174.9, -41.1}) || simple.Extent == nil || simple.Native != version+"metadata/" {
		t.Fatalf("simple %s", r.Body)
	}
	return r
}

func xmlPostResp(t *testing.T, e *env, key, path, body string) *servertest.Response {
	t.Helper()
	return e.Do(t, req{Method: "POST", Path: path, Key: key, Body: body, Header: map[string]string{"Content-Type": "text/xml"}})
}
