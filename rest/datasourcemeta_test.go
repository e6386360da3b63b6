package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// An XML file beside a data file (same base name) is that datasource's
// metadata: served under the datasource, shown on it, and carried into
// layers made from it.
func TestDatasourceMetadata(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		iso := xmlFixture(t, "iso19139.xml")
		src := upload(t, e, pub.Key, map[string][]byte{"data.zip": zipOf(t, map[string]string{
			"towns.geojson": fixtureFiles["roads.geojson"], "towns.xml": iso,
			"roads.geojson": fixtureFiles["roads.geojson"],
			"bad.geojson":   fixtureFiles["roads.geojson"], "bad.xml": "<notes><note>not metadata</note></notes>",
		})})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		towns, roads, bad := ds["towns.geojson"], ds["roads.geojson"], ds["bad.geojson"]
		base := fmt.Sprintf("/sources/%d/datasources/%d/", src.ID, towns.ID)

		// The datasource shows its metadata's URLs; the others null.
		var d struct{ Metadata map[string]string }
		e.Do(t, req{Path: base, Key: pub.Key}).JSON(t, &d)
		if !strings.HasSuffix(d.Metadata["native"], base+"metadata/") || !strings.HasSuffix(d.Metadata["iso"], base+"metadata/iso/") || d.Metadata["dc"] == "" {
			t.Fatalf("metadata %+v", d.Metadata)
		}
		for _, other := range []datasourceRecord{roads, bad} {
			r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/%d/", src.ID, other.ID), Key: pub.Key})
			if !strings.Contains(string(r.Body), `"metadata":null`) {
				t.Fatalf("%s: %s", other.UploadPath, r.Body)
			}
			expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/%d/metadata/", src.ID, other.ID), Key: pub.Key}), http.StatusNotFound)
		}
		// Expand: list shows it too.
		r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/", src.ID), Key: pub.Key, Header: map[string]string{"Expand": "list"}})
		if strings.Count(string(r.Body), `"metadata":{`) != 1 {
			t.Fatalf("list %s", r.Body)
		}
		// The unusable XML is noted in the scan log.
		log := e.Do(t, req{Path: sc.Log, Key: pub.Key, Header: map[string]string{"Accept": "text/plain"}})
		if !strings.Contains(string(log.Body), "Skipped metadata bad.xml") {
			t.Fatalf("log %s", log.Body)
		}

		// The document, native, as ISO, as DC; not FGDC.
		r = e.Do(t, req{Path: base + "metadata/", Key: pub.Key, Header: map[string]string{"Accept": "text/xml"}})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/xml") || string(r.Body) != iso {
			t.Fatalf("native %d %s", r.Status, r.Header.Get("Content-Type"))
		}
		for f, want := range map[string]int{"iso/": 200, "dc/": 200, "fgdc/": 404, "simple/": 200} {
			if r := e.Do(t, req{Path: base + "metadata/" + f, Key: pub.Key}); r.Status != want {
				t.Fatalf("%s: %d %s", f, r.Status, r.Body)
			}
		}
		// Others: anonymous 401, no access 404, bad format 400.
		authMatrix(t, e, req{Path: base + "metadata/"}, "sources:read", nil)
		expectStatus(t, e.Do(t, req{Path: base + "metadata/", Key: other.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: base + "metadata/?format=pdf", Key: pub.Key}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/99999/metadata/", src.ID), Key: pub.Key}), http.StatusNotFound)

		// A layer from it carries the document.
		l := doJSON[struct {
			ThisVersion string
			Metadata    map[string]string
		}](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Towns", "data": map[string]any{"datasources": []int{towns.ID}}}}, http.StatusCreated)
		if l.Metadata["native"] == "" || l.Metadata["iso"] == "" {
			t.Fatalf("layer metadata %+v", l.Metadata)
		}
		r = e.Do(t, req{Path: l.Metadata["native"], Key: pub.Key})
		if r.Status != http.StatusOK || string(r.Body) != iso {
			t.Fatalf("layer metadata %d %s", r.Status, r.Body)
		}
		// A layer from a datasource without one has none.
		nl := doJSON[map[string]any](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{roads.ID}}}}, http.StatusCreated)
		if nl["metadata"] != nil {
			t.Fatalf("roads layer metadata %+v", nl["metadata"])
		}

		// GraphQL.
		g := e.GraphQL(t, pub.Key, `query($s: ID!, $d: ID!) { datasource(sourceID: $s, id: $d) { metadata { format title } } }`,
			map[string]any{"s": src.ID, "d": towns.ID})
		var gd struct {
			Datasource struct{ Metadata *struct{ Format string } }
		}
		json.Unmarshal(g.Data, &gd)
		if len(g.Errors) > 0 || gd.Datasource.Metadata == nil || gd.Datasource.Metadata.Format != "iso" {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}

		// Deleting the source removes its datasources' documents.
		before := e.Store.Client.MetadataDocument.Query().CountX(t.Context())
		e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/sources/%d/", src.ID), Key: pub.Key})
		_ = before
	})
}
