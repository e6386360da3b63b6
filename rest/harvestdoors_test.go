package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// cswIdentifier is a record's identifier in a CSW Dublin Core answer.
var cswIdentifier = regexp.MustCompile(`<dc:identifier[^>]*>([^<]+)</dc:identifier>`)

// harvestIDs reads the identifiers one harvest door lists for key.
func harvestIDs(t *testing.T, e *env, key, door string) []string {
	t.Helper()
	var ids []string
	get := func(path string) []byte {
		r := e.Do(t, req{Path: e.HTTP.URL + path, Key: key})
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		return r.Body
	}
	switch door {
	case "csw":
		for _, m := range cswIdentifier.FindAllSubmatch(get("/services/csw/?service=CSW&version=2.0.2&request=GetRecords"+
			"&typeNames=csw:Record&resultType=results&elementSetName=brief&maxRecords=1000"), -1) {
			ids = append(ids, string(m[1]))
		}
	case "records":
		var fc struct {
			Features []struct {
				ID string `json:"id"`
			} `json:"features"`
		}
		if err := json.Unmarshal(get("/services/ogc/records/collections/catalogue/items?limit=1000"), &fc); err != nil {
			t.Fatal(err)
		}
		for _, f := range fc.Features {
			ids = append(ids, f.ID)
		}
	case "dcat-ap":
		var doc struct {
			Graph []map[string]any `json:"@graph"`
		}
		if err := json.Unmarshal(get("/services/dcat/catalog?format=jsonld&page_size=1000"), &doc); err != nil {
			t.Fatal(err)
		}
		for _, n := range doc.Graph {
			if types, _ := n["@type"].([]any); slices.Contains(types, any("dcat:Dataset")) {
				ids = append(ids, fmt.Sprint(n["dct:identifier"]))
			}
		}
	case "dcat-us":
		var doc struct {
			Dataset []struct {
				Identifier string `json:"identifier"`
			} `json:"dataset"`
		}
		if err := json.Unmarshal(get("/data.json"), &doc); err != nil {
			t.Fatal(err)
		}
		for _, d := range doc.Dataset {
			ids = append(ids, d.Identifier)
		}
	}
	slices.Sort(ids)
	return ids
}

// Issue 27: "the same caller sees the same set through /data/, CSW,
// Records and DCAT (a test compares them)": anonymous callers, another
// user and the owner of a private dataset each get one set of datasets
// from every door; drafts and sources are in none of the harvest doors.
func TestHarvestDoorsShowTheCataloguesSet(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCatalogFixture(t, e, nil)
		for name, key := range map[string]string{"anonymous": "", "another user": f.other.Key, "owner": f.owner.Key} {
			var want []string
			for _, en := range listEntries(t, e, key, "/data/?type=layer&type=table&type=set&type=document&type=catalogitem") {
				typ := en.Type
				if typ == "catalogitem" {
					typ = "item"
				}
				want = append(want, fmt.Sprintf("%s-%v", typ, en.ID))
			}
			slices.Sort(want)
			if len(want) < 6 || slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "<nil>") }) {
				t.Fatalf("%s: /data/ lists %v", name, want)
			}
			for _, door := range []string{"csw", "records", "dcat-ap", "dcat-us"} {
				if got := harvestIDs(t, e, key, door); !slices.Equal(got, want) {
					t.Errorf("%s through %s: %v, /data/ %v", name, door, got, want)
				}
			}
		}
	})
}
