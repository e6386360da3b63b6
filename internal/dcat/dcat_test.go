package dcat_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/dcat"
	"github.com/geopub/geopub/internal/dcat/dcattest"
)

const origin = "https://geo.example.org"

// hostile is text that breaks every syntax if written unescaped.
const hostile = "Roads \"quoted\" <b>&amp;</b> ]]> \\ back\tslash\r\nline \x01\x7f é 🌏 '@id' }{"

var catalog = dcat.Catalog{IRI: origin + "/services/dcat/catalog", Origin: origin,
	Title: "Geopub", Description: "Everything published here.", Publisher: "Geopub operators"}

// records are hand-built: a layer with everything, a document with
// nothing but a title, and a table with hostile values everywhere.
func records() []catalogrecords.Record {
	when := time.Date(2026, 11, 3, 4, 5, 6, 0, time.UTC)
	surveyed := time.Date(2019, 7, 1, 0, 0, 0, 0, time.UTC)
	rs := []catalogrecords.Record{
		{Identifier: "layer-12", Type: catalogrecords.Layer, Kind: "vector", ID: 12, Title: "Roads", Abstract: "The road centrelines.",
			Keywords: []string{"transport", "roads"}, Themes: []catalogrecords.Theme{{Key: "transport/roads", Name: "Roads & streets"}},
			BBox: []float64{174.5, -41.5, 175.25, -41}, Created: when, Modified: when, Published: when, TimeStart: &surveyed,
			License:   &catalogrecords.License{Type: "cc-by", Version: "4.0", Title: "CC BY 4.0", URL: "https://creativecommons.org/licenses/by/4.0/legalcode"},
			Publisher: catalogrecords.Party{Kind: "organization", Name: "Wellington Council", URL: origin + "/groups/3/"},
			Contact:   catalogrecords.Party{Kind: "organization", Name: "GIS team", Email: "gis@example.org"},
			Services:  []string{"wfs", "tiles", "wmts"},
			Formats:   []catalogrecords.Format{{Name: "GeoPackage", MediaType: "application/geopackage+sqlite3", URL: origin + "/services/api/v1.x/exports/?layer=12&format=gpkg"}}},
		{Identifier: "document-5", Type: catalogrecords.Document, Kind: "document", ID: 5, Title: "Annual report",
			Publisher: catalogrecords.Party{Kind: "person", Name: "Ann Author"}},
		{Identifier: "table-3", Type: catalogrecords.Table, Kind: "table", ID: 3, Title: hostile, Abstract: hostile,
			Keywords: []string{hostile, ""}, Themes: []catalogrecords.Theme{{Key: "a b/<c>", Name: hostile}},
			License:   &catalogrecords.License{Type: "custom", URL: "javascript:alert(1)"},
			Publisher: catalogrecords.Party{Kind: "person", Name: hostile, URL: "http://x/<script>\"{}|^`"},
			Contact:   catalogrecords.Party{Kind: "person", Name: hostile, Email: "not an address <x@y>"},
			Services:  []string{"wfs"}},
	}
	for i := range rs {
		rs[i].FillLinks(origin)
	}
	return rs
}

func write(t *testing.T, g *dcat.Graph) (ttl, jsonld, rdfxml []byte) {
	t.Helper()
	var a, b, c bytes.Buffer
	for _, w := range []struct {
		fn  func(io.Writer, *dcat.Graph) error
		buf *bytes.Buffer
	}{{dcat.WriteTurtle, &a}, {dcat.WriteJSONLD, &b}, {dcat.WriteRDFXML, &c}} {
		if err := w.fn(w.buf, g); err != nil {
			t.Fatal(err)
		}
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

func page() *dcat.Paging {
	return &dcat.Paging{Self: catalog.IRI + "?page=1", First: catalog.IRI + "?page=1", Last: catalog.IRI + "?page=2",
		Next: catalog.IRI + "?page=2", Total: 4, PerPage: 3}
}

// The three syntaxes are well formed for their own parsers (Go's JSON
// and XML), the hostile text survives the trip, and the unsafe IRIs are
// encoded or dropped.
func TestWritersEscapeEverything(t *testing.T) {
	ttl, jsonld, rdfxml := write(t, dcat.Build(catalog, records(), page()))
	var doc struct {
		Graph []map[string]any `json:"@graph"`
	}
	if err := json.Unmarshal(jsonld, &doc); err != nil {
		t.Fatalf("JSON-LD: %v\n%s", err, jsonld)
	}
	d := xml.NewDecoder(bytes.NewReader(rdfxml))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("RDF/XML: %v\n%s", err, rdfxml)
		}
	}
	clean := dcat.Clean(hostile)
	var found bool
	for _, n := range doc.Graph {
		if n["dct:title"] == clean {
			found = true
		}
	}
	if !found {
		t.Errorf("the hostile title did not survive JSON-LD: %s", jsonld)
	}
	for name, b := range map[string][]byte{"turtle": ttl, "jsonld": jsonld, "rdfxml": rdfxml} {
		s := string(b)
		if strings.Contains(s, "javascript:") || strings.Contains(s, "<script>") || strings.Contains(s, "\x01") {
			t.Errorf("%s holds an unsafe value:\n%s", name, s)
		}
	}
	if !strings.Contains(string(ttl), "http://x/%3Cscript%3E%22%7B%7D%7C%5E%60") {
		t.Errorf("the publisher's IRI is not encoded:\n%s", ttl)
	}
}

// The DCAT-AP 3 checks of rdflib on hand-built records: the three
// syntaxes give one graph, and nothing mandatory is missing.
func TestRDFLibReadsOneGraph(t *testing.T) {
	ttl, jsonld, rdfxml := write(t, dcat.Build(catalog, records(), page()))
	r := dcattest.Read(t, ttl, jsonld, rdfxml)
	if !r.JSONLDSame || !r.RDFXMLSame {
		t.Errorf("the graphs differ: %+v\nturtle:\n%s\njson-ld:\n%s\nrdf/xml:\n%s", r, ttl, jsonld, rdfxml)
	}
	if len(r.Problems) > 0 {
		t.Errorf("%s broken: %q", dcattest.MandatoryAP3, r.Problems)
	}
	if got := strings.Join(r.Datasets, " "); got != "document-5 layer-12 table-3" {
		t.Errorf("datasets %s", got)
	}
	if r.Paging.Total != 4 || r.Paging.Next != catalog.IRI+"?page=2" {
		t.Errorf("paging %+v", r.Paging)
	}
}

// The layer's mapping, spelled out in Turtle.
func TestLayerMapping(t *testing.T) {
	ttl, _, _ := write(t, dcat.Build(catalog, records()[:1], nil))
	for _, want := range []string{
		`<https://geo.example.org/layers/12/>` + "\n    a dcat:Dataset",
		`dct:identifier "layer-12"`,
		`dcat:keyword "transport"`,
		`dcat:theme <https://geo.example.org/services/api/v1.x/data/?category=transport%2Froads>`,
		`skos:prefLabel "Roads & streets"`,
		`dcat:bbox "POLYGON((174.5 -41.5, 175.25 -41.5, 175.25 -41, 174.5 -41, 174.5 -41.5))"^^gsp:wktLiteral`,
		`dct:issued "2026-11-03T04:05:06Z"^^xsd:dateTime`,
		`dct:temporal _:b`,
		`a dct:PeriodOfTime`,
		`dcat:startDate "2019-07-01T00:00:00Z"^^xsd:dateTime`,
		`foaf:name "Wellington Council"`,
		`vcard:hasEmail <mailto:gis@example.org>`,
		`dct:license <https://creativecommons.org/licenses/by/4.0/legalcode>`,
		`dcat:accessService <https://geo.example.org/layers/12/#service-`,
		`dct:conformsTo <http://www.opengis.net/def/serviceType/ogc/wfs>`,
		`dcat:downloadURL <https://geo.example.org/services/api/v1.x/exports/?layer=12&format=gpkg>`,
		`dcat:mediaType <http://www.iana.org/assignments/media-types/application/geopackage+sqlite3>`,
		`dct:format <http://publications.europa.eu/resource/authority/file-type/GPKG>`,
		`dcat:themeTaxonomy <https://geo.example.org/services/api/v1.x/categories/>`,
	} {
		if !strings.Contains(string(ttl), want) {
			t.Errorf("no %s in\n%s", want, ttl)
		}
	}
}

// DCAT-US 3: the document's shape, with the hostile record's values
// escaped by JSON and its unsafe IRIs left out.
func TestDCATUS(t *testing.T) {
	doc := dcat.BuildUS(catalog, records(), 4, catalog.IRI+"?page=2")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type       string `json:"@type"`
		ConformsTo struct{ Title string }
		Dataset    []struct {
			Identifier, Title, Description, AccessLevel, License, LandingPage string
			Keyword, Theme                                                    []string
			Publisher                                                         struct{ Name string }
			ContactPoint                                                      struct{ FN, HasEmail string }
			Spatial                                                           []struct{ BBox string }
			Temporal                                                          []struct{ StartDate, EndDate string }
			Distribution                                                      []struct{ AccessURL, DownloadURL, MediaType, Format, Title string }
		}
		Next string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "Catalog" || got.ConformsTo.Title != "DCAT-US 3.0" || len(got.Dataset) != 3 || got.Next == "" {
		t.Fatalf("%s", b)
	}
	roads := got.Dataset[0]
	if roads.Identifier != "layer-12" || roads.AccessLevel != "public" || roads.ContactPoint.HasEmail != "mailto:gis@example.org" ||
		len(roads.Spatial) != 1 || roads.Spatial[0].BBox != "174.5,-41.5,175.25,-41" || roads.Publisher.Name != "Wellington Council" ||
		roads.License != "https://creativecommons.org/licenses/by/4.0/legalcode" || len(roads.Theme) != 1 ||
		len(roads.Temporal) != 1 || roads.Temporal[0].StartDate != "2019-07-01T00:00:00Z" || roads.Temporal[0].EndDate != "" {
		t.Errorf("roads %+v", roads)
	}
	var download bool
	for _, d := range roads.Distribution {
		download = download || (d.DownloadURL != "" && d.MediaType == "application/geopackage+sqlite3" && d.Format == "GPKG")
	}
	if !download {
		t.Errorf("no GeoPackage download in %+v", roads.Distribution)
	}
	bad := got.Dataset[2]
	if bad.Title != dcat.Clean(hostile) || bad.ContactPoint.HasEmail != "" || strings.Contains(bad.License, "javascript") || bad.License == "" {
		t.Errorf("hostile table %+v", bad)
	}
	if doc := got.Dataset[1]; doc.Description == "" || doc.ContactPoint.FN == "" || doc.License == "" {
		t.Errorf("bare document %+v", doc)
	}
}

// Check keeps IRIs of the schemes written and encodes what would break a
// syntax.
func TestCheck(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/x y":   "https://a.example/x%20y",
		"http://a.example/<\">":   "http://a.example/%3C%22%3E",
		"mailto:a@example.org":    "mailto:a@example.org",
		"https://a.example/é":     "https://a.example/é",
		"javascript:alert(1)":     "",
		"/relative":               "",
		"http:///nohost":          "",
		"https://a.example/\x01z": "", // url.Parse refuses controls
		"":                        "",
	} {
		got, ok := dcat.Check(in)
		if got != want || ok != (want != "") {
			t.Errorf("Check(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// An export format is requested, not fetched: its distribution has an
// accessURL and no downloadURL, in both profiles.
func TestExportFormatsAreNotDownloads(t *testing.T) {
	r := records()[0]
	r.Formats = []catalogrecords.Format{{Name: "GeoPackage", MediaType: "application/geopackage+sqlite3", URL: origin + "/services/api/v1.x/exports/", Export: true}}
	r.FillLinks(origin)
	ttl, _, _ := write(t, dcat.Build(catalog, []catalogrecords.Record{r}, nil))
	if strings.Contains(string(ttl), "dcat:downloadURL") || !strings.Contains(string(ttl), `dct:title "Export as GeoPackage"`) {
		t.Errorf("export distribution:\n%s", ttl)
	}
	b, err := json.Marshal(dcat.BuildUS(catalog, []catalogrecords.Record{r}, 1, ""))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "downloadURL") || !strings.Contains(string(b), `"accessURL":"`+origin+`/services/api/v1.x/exports/"`) {
		t.Errorf("DCAT-US export distribution: %s", b)
	}
}
