package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/document"
	entlicense "github.com/geopub/geopub/ent/license"
)

// Issue 27, point 3: "Every dataset page (url_html) embeds schema.org
// Dataset JSON-LD". The pages are read through the real router; the
// JSON-LD is parsed out of the page as a crawler would.

const ldOpen = `<script type="application/ld+json">`

// pageJSONLD GETs a page as key ("" anonymous) and returns its status,
// body and JSON-LD (nil when it has none).
func pageJSONLD(t *testing.T, e *env, page, key string) (int, string, map[string]any) {
	t.Helper()
	r := e.Do(t, req{Path: page, Key: key})
	body := string(r.Body)
	i := strings.Index(body, ldOpen)
	if i < 0 {
		return r.Status, body, nil
	}
	rest := body[i+len(ldOpen):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatalf("%s: the JSON-LD script is not closed:\n%s", page, body)
	}
	var ld map[string]any
	if err := json.Unmarshal([]byte(rest[:j]), &ld); err != nil {
		t.Fatalf("%s: JSON-LD does not parse: %v\n%s", page, err, rest[:j])
	}
	return r.Status, body, ld
}

func TestDatasetPagesEmbedSchemaOrgDataset(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		ctx := t.Context()
		c := e.Store.Client
		origin := e.HTTP.URL

		// A public layer with tags, a licence and an extent.
		roads := f.layers["Public roads"]
		ly := c.Layer.GetX(ctx, roads)
		lic := c.License.Query().Where(entlicense.LegalCodeURLContains("creativecommons.org")).FirstX(ctx)
		c.LayerVersion.UpdateOneID(*ly.PublishedVersionID).SetTags([]string{"roads", "transport"}).SetLicenseID(lic.ID).
			SetExtent([]float64{174.6, -41.4, 175.1, -41.1}).SetDescription("State highways.").ExecX(ctx)
		page := fmt.Sprintf("%s/layers/%d/", origin, roads)
		status, _, ld := pageJSONLD(t, e, page, "")
		if status != http.StatusOK || ld == nil {
			t.Fatalf("%s: %d, JSON-LD %v", page, status, ld)
		}
		want := map[string]any{
			"@context": "https://schema.org/", "@type": "Dataset", "name": "Public roads", "description": "State highways.",
			"url": page, "identifier": fmt.Sprintf("%s/services/api/v1.x/layers/%d/", origin, roads),
			"license": strings.TrimSuffix(lic.LegalCodeURL, "legalcode"),
		}
		for k, v := range want {
			if ld[k] != v {
				t.Errorf("%s = %#v, want %#v", k, ld[k], v)
			}
		}
		if kw, _ := json.Marshal(ld["keywords"]); string(kw) != `["roads","transport"]` {
			t.Errorf("keywords %s", kw)
		}
		for _, k := range []string{"dateCreated", "dateModified", "datePublished"} {
			if s, _ := ld[k].(string); len(s) < 20 || s[10] != 'T' {
				t.Errorf("%s = %v, want an ISO 8601 date-time", k, ld[k])
			}
		}
		geo, _ := ld["spatialCoverage"].(map[string]any)
		shape, _ := geo["geo"].(map[string]any)
		if geo["@type"] != "Place" || shape["@type"] != "GeoShape" || shape["box"] != "-41.4 174.6 -41.1 175.1" {
			t.Errorf("spatialCoverage %v, want a box south west north east", geo)
		}
		pub, _ := ld["publisher"].(map[string]any)
		if pub["@type"] != "Person" || pub["name"] == "" || ld["creator"] == nil {
			t.Errorf("publisher %v creator %v", pub, ld["creator"])
		}
		cat, _ := ld["includedInDataCatalog"].(map[string]any)
		if cat["@type"] != "DataCatalog" || cat["url"] != origin+"/" {
			t.Errorf("includedInDataCatalog %v", cat)
		}

		// Every kind of dataset page has one.
		for _, en := range listEntries(t, e, "", "/data/?page_size=100") {
			var one struct {
				URLHTML string `json:"url_html"`
			}
			r := e.Do(t, req{Path: en.URL})
			r.JSON(t, &one)
			status, _, ld := pageJSONLD(t, e, one.URLHTML, "")
			if status != http.StatusOK || ld["@type"] != "Dataset" || ld["name"] != en.Title || ld["url"] != one.URLHTML {
				t.Errorf("%s (%s): %d, JSON-LD %v", one.URLHTML, en.Type, status, ld)
			}
		}

		// A private or never-published dataset: a 404 page, no JSON-LD.
		for _, name := range []string{"Secret parcels", "Draft rivers"} {
			page := fmt.Sprintf("%s/layers/%d/", origin, f.layers[name])
			if status, body, ld := pageJSONLD(t, e, page, ""); status != http.StatusNotFound || ld != nil || strings.Contains(body, name) {
				t.Fatalf("%s for anonymous: %d, JSON-LD %v", name, status, ld)
			}
		}

		// A document's file is a distribution for those who may download
		// it, and only for them.
		docID := c.Document.Query().Where(document.Name("Annual report")).OnlyIDX(ctx)
		docPage := fmt.Sprintf("%s/documents/%d/", origin, docID)
		download := fmt.Sprintf("%s/services/api/v1.x/documents/%d/download/", origin, docID)
		distribution := func(key string) string {
			_, _, ld := pageJSONLD(t, e, docPage, key)
			b, _ := json.Marshal(ld["distribution"])
			return string(b)
		}
		if got := distribution(""); !strings.Contains(got, `"contentUrl":"`+download+`"`) || !strings.Contains(got, `"@type":"DataDownload"`) {
			t.Fatalf("anonymous document distribution %s", got)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/documents/%d/permissions/", docID), Key: f.owner.Key,
			Body: []any{map[string]any{"permission": "admin", "user": f.owner.ID}, map[string]any{"permission": "view", "group": "everyone"}}}), http.StatusOK)
		if got := distribution(""); got != "null" {
			t.Fatalf("view-only anonymous caller sees a distribution %s", got)
		}
		if got := distribution(f.owner.Key); !strings.Contains(got, download) {
			t.Fatalf("owner's document distribution %s", got)
		}

		// A title cannot break out of the script element.
		hostile := `Charts </script><script>alert(1)</script> & "more"`
		it := createItem(t, e, f.owner, map[string]any{"title": hostile, "link_url": "https://example.com/charts"})
		publishItem(t, e, f.owner, it.ThisVersion)
		itemPage := origin + "/items/" + it.ID + "/"
		status, body, ld := pageJSONLD(t, e, itemPage, "")
		if status != http.StatusOK || ld == nil || ld["name"] != hostile {
			t.Fatalf("hostile item page: %d, JSON-LD %v", status, ld)
		}
		if strings.Contains(body, "<script>alert") || strings.Count(body, "</script>") != 1 {
			t.Fatalf("the hostile title broke out:\n%s", body)
		}
	})
}
