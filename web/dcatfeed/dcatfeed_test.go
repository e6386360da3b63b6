package dcatfeed_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/dcat/dcattest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 27: "a private or unpublished dataset is absent from every door
// for outsiders" and "the same caller sees the same set through /data/,
// CSW, Records and DCAT": both feeds list /data/'s datasets (sources
// left out) for anonymous callers, another user and the owner of a
// private dataset; the draft is nowhere.
func TestFeedsListWhatDataLists(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		withSecret := append(slices.Clone(public), "Secret parcels")
		sort.Strings(withSecret)
		for _, c := range []struct {
			name, key string
			want      []string
		}{{"anonymous", "", public}, {"another user", f.other.Key, public}, {"owner", f.owner.Key, withSecret}} {
			data := dataTitles(t, e, c.key)
			if !slices.Equal(data, c.want) {
				t.Fatalf("%s: /data/ lists %v, want %v", c.name, data, c.want)
			}
			r := get(t, e, c.key, "/services/dcat/catalog", nil)
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/ld+json" {
				t.Fatalf("%s: %d %s %s", c.name, r.Status, r.Header.Get("Content-Type"), r.Body)
			}
			if got, _, total := jsonLDPage(t, r); !slices.Equal(got, data) || total != len(data) {
				t.Errorf("%s: DCAT-AP lists %v (total %d), /data/ %v", c.name, got, total, data)
			}
			r = get(t, e, c.key, "/data.json", nil)
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s: data.json %d %s", c.name, r.Status, r.Body)
			}
			if got, next := usPage(t, r); !slices.Equal(got, data) || next != "" {
				t.Errorf("%s: data.json lists %v (next %q), /data/ %v", c.name, got, next, data)
			}
			for _, body := range [][]byte{r.Body, get(t, e, c.key, "/services/dcat/catalog?format=ttl", nil).Body} {
				if strings.Contains(string(body), "Draft rivers") || (c.key != f.owner.Key && strings.Contains(string(body), "Secret parcels")) {
					t.Errorf("%s sees what it may not:\n%s", c.name, body)
				}
			}
		}
	})
}

// The acceptance test with rdflib: the Turtle, JSON-LD and RDF/XML of
// the owner's page parse into one graph (rdflib.compare.isomorphic) that
// holds every DCAT-AP 3 mandatory property (dcattest.MandatoryAP3), each
// dataset with a licence and a distribution with a URL.
func TestFeedReadsAsOneGraphInRDFLib(t *testing.T) {
	testtier.FullOnly(t, "runs rdflib in Python")
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		body := func(accept string) []byte {
			r := get(t, e, f.owner.Key, "/services/dcat/catalog", map[string]string{"Accept": accept})
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", accept, r.Status, r.Body)
			}
			return r.Body
		}
		ttl, jsonld, rdfxml := body("text/turtle"), body("application/ld+json"), body("application/rdf+xml")
		res := dcattest.Read(t, ttl, jsonld, rdfxml)
		if !res.JSONLDSame || !res.RDFXMLSame {
			t.Errorf("the syntaxes give different graphs: %+v\n%s", res, ttl)
		}
		if len(res.Problems) > 0 {
			t.Errorf("%s broken: %q\n%s", dcattest.MandatoryAP3, res.Problems, ttl)
		}
		if len(res.Datasets) != 4 || res.Paging.Total != 4 || res.Paging.Next != "" {
			t.Errorf("rdflib read %+v", res)
		}
		for _, want := range []string{
			`dct:license <https://creativecommons.org/licenses/by/4.0/legalcode>`,
			`dcat:keyword "survey"`, `skos:prefLabel "Transport"`, `^^gsp:wktLiteral`,
		} {
			if !strings.Contains(string(ttl), want) {
				t.Errorf("no %s in\n%s", want, ttl)
			}
		}
	})
}

// ckanext-dcat's paging: ?page and ?page_size, a hydra:PagedCollection
// with the total and the next page, and a Link header; walking the next
// pages gives every dataset once. data.json pages the same way.
func TestFeedsPage(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		for _, path := range []string{"/services/dcat/catalog?page_size=1", "/data.json?page_size=1"} {
			var all []string
			url := e.HTTP.URL + path
			for range 10 {
				r := get(t, e, f.owner.Key, strings.TrimPrefix(url, e.HTTP.URL), nil)
				if r.Status != http.StatusOK {
					t.Fatalf("%s: %d %s", url, r.Status, r.Body)
				}
				var titles []string
				var next string
				if strings.HasPrefix(path, "/data.json") {
					titles, next = usPage(t, r)
				} else {
					var total int
					titles, next, total = jsonLDPage(t, r)
					if total != 4 {
						t.Errorf("total %d", total)
					}
				}
				if len(titles) != 1 {
					t.Fatalf("%s: %v", url, titles)
				}
				all = append(all, titles...)
				if (next != "") != (r.Header.Get("Link") != "") || (next != "" && !strings.Contains(r.Header.Get("Link"), next)) {
					t.Errorf("Link %q, next %q", r.Header.Get("Link"), next)
				}
				if next == "" {
					break
				}
				if !strings.HasPrefix(next, e.HTTP.URL) {
					t.Fatalf("next %q is not under %s", next, e.HTTP.URL)
				}
				url = next
			}
			sort.Strings(all)
			want := append(slices.Clone(public), "Secret parcels")
			sort.Strings(want)
			if !slices.Equal(all, want) {
				t.Errorf("%s: pages held %v, want %v", path, all, want)
			}
		}
		// Past the last page: an empty page, not an error.
		r := get(t, e, "", "/services/dcat/catalog?page=50", nil)
		if titles, next, total := jsonLDPage(t, r); r.Status != http.StatusOK || len(titles) != 0 || next != "" || total != 3 {
			t.Errorf("page 50: %d %v %q %d", r.Status, titles, next, total)
		}
	})
}
