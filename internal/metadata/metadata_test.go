package metadata

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each realistic document is detected as its format, and its title,
// abstract, keywords and bounding box are extracted.
func TestParseFormats(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Simple
	}{
		{"iso19139.xml", Simple{Format: ISO, Title: "Wellington Road Centrelines",
			Abstract: "Centrelines of the public roads maintained by Wellington City Council, captured from aerial imagery & field survey.",
			Keywords: []string{"transport", "roads", "transport networks"}, BBox: []float64{174.6, -41.4, 174.9, -41.1},
			TimeStart: at("2019-07-01T00:00:00Z"), TimeEnd: at("2024-06-30T12:00:00Z")}},
		{"iso19115-3.xml", Simple{Format: ISO, Title: "Canterbury Groundwater Bores",
			Abstract: "Locations and depths of consented groundwater bores in Canterbury.",
			Keywords: []string{"groundwater", "hydrology"}, BBox: []float64{170.5, -44.9, 173.9, -42},
			TimeStart: at("2023-01-01T00:00:00Z"), TimeEnd: at("2023-12-31T23:59:59.999999999Z")}},
		{"fgdc.xml", Simple{Format: FGDC, Title: "Hydrologic Units of the Chesapeake Bay Watershed",
			Abstract: "Boundaries of 12-digit hydrologic units draining to the Chesapeake Bay.",
			Keywords: []string{"inlandWaters", "watersheds", "Chesapeake Bay"}, BBox: []float64{-80.5, 36.7, -74.9, 42.9}}},
		{"oai_dc.xml", Simple{Format: DC, Title: "Auckland Bus Stops",
			Abstract: "Every bus stop served by the Auckland network, with its stop code.", Keywords: []string{"public transport", "bus"}}},
		{"dc_record.xml", Simple{Format: DC, Title: "Nelson Coastal Hazard Zones",
			Abstract: "Coastal inundation and erosion hazard zones for the Nelson coast.", Keywords: []string{"coastal hazards"}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := Parse(read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

// Unsafe, malformed, unknown and oversized documents are refused as bad
// requests with a message saying why; entities are never expanded.
func TestParseRefuses(t *testing.T) {
	big := append([]byte(`<metadata><idinfo><descript><abstract>`), bytes.Repeat([]byte("a"), MaxSize)...)
	big = append(big, []byte(`</abstract></descript></idinfo></metadata>`)...)
	for _, tc := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"XXE", read(t, "xxe.xml"), "DOCTYPE"},
		{"BillionLaughs", read(t, "billion_laughs.xml"), "DOCTYPE"},
		{"UndeclaredEntity", []byte(`<metadata><idinfo><citation><citeinfo><title>&xxe;</title></citeinfo></citation></idinfo></metadata>`), "not well-formed"},
		{"Empty", []byte("  \n"), "empty"},
		{"NotXML", []byte(`{"title": "json"}`), "not XML"},
		{"Truncated", []byte(`<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"><gmd:identificationInfo>`), "not well-formed"},
		{"UnknownRoot", []byte(`<rss version="2.0"><channel><title>x</title></channel></rss>`), "root element is rss"},
		{"ISOLocalNameWrongNamespace", []byte(`<MD_Metadata xmlns="http://example.org/"/>`), "{http://example.org/}MD_Metadata"},
		{"FGDCWithoutIdinfo", []byte(`<metadata><metainfo/></metadata>`), "Unrecognised metadata format"},
		{"Latin1", []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><metadata><idinfo/></metadata>`), "UTF-8"},
		{"Oversized", big, "10 MiB"},
		{"Deep", []byte(strings.Repeat("<a>", maxDepth+1) + strings.Repeat("</a>", maxDepth+1)), "deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.doc)
			if err == nil {
				t.Fatalf("accepted: %+v", s)
			}
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (%s), want a BAD_REQUEST mentioning %q", err, apperr.CodeOf(err), tc.want)
			}
		})
	}
}

// A bounding box out of range or incomplete is left out, not guessed.
func TestBadBoundingBoxIgnored(t *testing.T) {
	doc := `<metadata><idinfo><citation><citeinfo><title>T</title></citeinfo></citation>
		<spdom><bounding><westbc>-200</westbc><eastbc>10</eastbc><northbc>5</northbc><southbc>1</southbc></bounding></spdom></idinfo></metadata>`
	s, err := Parse([]byte(doc))
	if err != nil || s.BBox != nil || s.Title != "T" {
		t.Fatalf("%+v %v", s, err)
	}
}

// The Dublin Core rendering of a simplified form is itself a Dublin Core
// document that reads back the same, with markup in values escaped.
func TestRenderDCRoundTrip(t *testing.T) {
	s, err := Parse(read(t, "iso19139.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s.Title = `Roads <script>alert("x")</script> & more`
	out := RenderDC(s)
	if bytes.Contains(out, []byte("<script>")) {
		t.Fatalf("markup not escaped: %s", out)
	}
	back, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Format != DC || back.Title != s.Title || back.Abstract != s.Abstract || !reflect.DeepEqual(back.Keywords, s.Keywords) {
		t.Fatalf("round trip %+v\nfrom %+v", back, s)
	}
	if !bytes.Contains(out, []byte("<dc:coverage>westlimit=174.6; southlimit=-41.4; eastlimit=174.9; northlimit=-41.1;")) {
		t.Fatalf("coverage missing: %s", out)
	}
}

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}
