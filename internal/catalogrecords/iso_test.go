package catalogrecords_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/metadata"
)

func sampleRecord() *catalogrecords.Record {
	r := &catalogrecords.Record{
		Identifier: "layer-12", Type: catalogrecords.Layer, Kind: "vector", ID: 12, VersionID: 40,
		Title: "Rivers & streams", Abstract: "All <rivers> of the region.",
		Keywords: []string{"water", "rivers"},
		Themes:   []catalogrecords.Theme{{Key: "nature/inlandWaters", Name: "Inland waters"}},
		BBox:     []float64{166.4, -47.3, 178.6, -34.4}, CRS: "EPSG:2193",
		Created:   time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		Modified:  time.Date(2024, 2, 2, 3, 4, 5, 0, time.UTC),
		Published: time.Date(2024, 2, 3, 3, 4, 5, 0, time.UTC),
		License:   &catalogrecords.License{Type: "cc-by", Version: "4.0", Title: "CC BY", URL: "https://creativecommons.org/licenses/by/4.0/"},
		Publisher: catalogrecords.Party{Kind: "organization", Name: "Water Group", URL: "https://example.test/groups/3/"},
		Contact:   catalogrecords.Party{Kind: "organization", Name: "Water Group", Email: "water@example.test"},
		Services:  []string{"wfs", "tiles", "wmts", "export"},
		Formats:   []catalogrecords.Format{{Name: "GeoPackage", MediaType: "application/geopackage+sqlite3", URL: "https://example.test/exports/?layer=12&format=gpkg"}},
	}
	r.FillLinks("https://example.test")
	return r
}

// texts collects the character data of every element with local name
// local, in document order.
func texts(t *testing.T, doc []byte, local string) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var out []string
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, doc)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			stack = append(stack, v.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			// the value sits in the property's inner element
			if n := len(stack); n >= 2 && (stack[n-2] == local || stack[n-1] == local) {
				out = append(out, string(v))
			}
		}
	}
}

func TestISO19139Generated(t *testing.T) {
	r := sampleRecord()
	doc, err := catalogrecords.ISO19139(r)
	if err != nil {
		t.Fatal(err)
	}
	check := func(local string, want ...string) {
		t.Helper()
		got := texts(t, doc, local)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s = %q, want %q", local, got, want)
		}
	}
	check("fileIdentifier", "layer-12")
	check("title", "Rivers & streams", "Geopub categories")
	check("abstract", "All <rivers> of the region.")
	check("keyword", "water", "rivers", "Inland waters")
	check("topicCategory", "inlandWaters")
	check("westBoundLongitude", "166.4")
	check("northBoundLatitude", "-34.4")
	check("electronicMailAddress", "water@example.test")
	check("organisationName", "Water Group", "Water Group")
	var urls, protocols []string
	for _, l := range r.Links {
		urls = append(urls, l.Href)
		protocols = append(protocols, l.Protocol())
	}
	// the publisher's page is a URL too, written before the distribution
	check("URL", append([]string{"https://example.test/groups/3/"}, urls...)...)
	check("protocol", protocols...)
	if !bytes.Contains(doc, []byte(`codeListValue="license"`)) || !bytes.Contains(doc, []byte("CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)")) {
		t.Errorf("licence missing:\n%s", doc)
	}
	if !bytes.Contains(doc, []byte("OGC:WFS")) || !bytes.Contains(doc, []byte("WWW:DOWNLOAD")) {
		t.Errorf("service protocols missing:\n%s", doc)
	}
}

func TestISO19115_3Generated(t *testing.T) {
	r := sampleRecord()
	doc, err := catalogrecords.ISO19115_3(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`<mdb:MD_Metadata xmlns:mdb="`+catalogrecords.NamespaceMDB+`"`)) {
		t.Fatalf("root: %s", doc[:200])
	}
	for local, want := range map[string]string{
		"code": "layer-12", "abstract": "All <rivers> of the region.", "eastBoundLongitude": "178.6",
		"keyword": "water|rivers|Inland waters",
	} {
		if got := strings.Join(texts(t, doc, local), "|"); got != want && !strings.HasPrefix(got, want) {
			t.Errorf("%s = %q, want %q", local, got, want)
		}
	}
	if n := bytes.Count(doc, []byte("<mrd:onLine>")); n != len(r.Links) {
		t.Errorf("%d online resources for %d links", n, len(r.Links))
	}
}

func TestISOUploadedAnsweredAsIs(t *testing.T) {
	r := sampleRecord()
	r.ISO, r.ISOFormat = []byte("<gmd:MD_Metadata>own</gmd:MD_Metadata>"), "19139"
	if doc, _ := catalogrecords.ISO19139(r); string(doc) != string(r.ISO) {
		t.Errorf("19139 upload not answered as is: %s", doc)
	}
	// the other encoding is generated from the record
	if doc, _ := catalogrecords.ISO19115_3(r); !bytes.Contains(doc, []byte("mdb:MD_Metadata")) {
		t.Errorf("19115-3 of a 19139 upload: %s", doc)
	}
	r.ISOFormat = "19115-3"
	if doc, _ := catalogrecords.ISO19115_3(r); string(doc) != string(r.ISO) {
		t.Errorf("19115-3 upload not answered as is: %s", doc)
	}
	// a record without extent, licence or links is still a valid document
	bare := &catalogrecords.Record{Identifier: "document-5", Type: catalogrecords.Document, Title: "Notes"}
	for _, f := range []func(*catalogrecords.Record) ([]byte, error){catalogrecords.ISO19139, catalogrecords.ISO19115_3} {
		doc, _ := f(bare)
		if got := strings.Join(texts(t, doc, "title"), "|"); !strings.Contains(got, "Notes") || bytes.Contains(doc, []byte("0001-01-01")) {
			t.Errorf("bare record: %s", doc)
		}
	}
}

// A generated document says what the record says, read back by the
// metadata reader that reads uploaded ones: title, abstract, keywords,
// box and temporal extent (an open end stays open), in both ISO forms.
func TestISOGeneratedReadsBack(t *testing.T) {
	r := sampleRecord()
	start := time.Date(2019, 7, 1, 0, 0, 0, 0, time.UTC)
	r.TimeStart, r.TimeEnd = &start, nil
	for name, gen := range map[string]func(*catalogrecords.Record) ([]byte, error){
		"19139": catalogrecords.ISO19139, "19115-3": catalogrecords.ISO19115_3,
	} {
		doc, err := gen(r)
		if err != nil {
			t.Fatal(err)
		}
		s, err := metadata.Parse(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Title != r.Title || s.Abstract != r.Abstract || len(s.BBox) != 4 || s.BBox[0] != r.BBox[0] || s.BBox[3] != r.BBox[3] ||
			s.TimeStart == nil || !s.TimeStart.Equal(start) || s.TimeEnd != nil || !slices.Contains(s.Keywords, r.Keywords[0]) {
			t.Errorf("%s read back as %+v", name, s)
		}
	}
}
