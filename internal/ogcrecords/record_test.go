package ogcrecords

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

func sample() catalogrecords.Record {
	r := catalogrecords.Record{Identifier: "layer-12", Type: "layer", Kind: "vector", ID: 12,
		Title: "Roads <b>", Abstract: "All roads.", Keywords: []string{"roads", "transport"},
		Themes:  []catalogrecords.Theme{{Key: "transport/roads", Name: "Roads"}},
		BBox:    []float64{174.5, -41.5, 175, -41},
		Created: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Modified: time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC),
		License:   &catalogrecords.License{Type: "cc-by", Version: "4.0", Title: "Creative Commons Attribution 4.0", URL: "https://creativecommons.org/licenses/by/4.0/"},
		Publisher: catalogrecords.Party{Kind: "organization", Name: "Wellington", URL: "https://h/groups/3/"},
		Contact:   catalogrecords.Party{Kind: "organization", Name: "Wellington", Email: "gis@example.org"},
		Services:  []string{"wfs", "tiles"},
		Formats:   []catalogrecords.Format{{Name: "GeoPackage", MediaType: "application/geopackage+sqlite3", URL: "https://h/exports/"}},
	}
	r.FillLinks("https://h")
	return r
}

func TestRecordCore(t *testing.T) {
	r := sample()
	rec := NewRecord(&r, "catalogue", "https://h/services/ogc/records")
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID, Type string
		Geometry struct {
			Type        string
			Coordinates [][][]float64
		}
		Time       any
		Properties map[string]any
		Links      []Link
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	p := got.Properties
	switch {
	case got.ID != "layer-12", got.Type != "Feature", got.Geometry.Type != "Polygon", got.Geometry.Coordinates[0][2][0] != 175,
		p["type"] != "dataset", p["title"] != "Roads <b>", p["description"] != "All roads.", p["license"] != "CC-BY-4.0",
		p["created"] != "2024-01-02T03:04:05Z", p["updated"] != "2024-02-03T04:05:06Z":
		t.Errorf("%s", b)
	}
	if !strings.Contains(string(b), `"themes":[{"concepts":[{"id":"transport/roads","title":"Roads"}],"scheme":"geopub:categories"}]`) ||
		!strings.Contains(string(b), `"contacts":[{"organization":"Wellington","links":[{"href":"https://h/groups/3/","rel":"about","type":"text/html"}],"roles":["publisher","pointOfContact"]}]`) {
		t.Errorf("themes or contacts: %s", b)
	}
	rels := map[string]int{}
	for _, l := range got.Links {
		rels[l.Rel]++
	}
	if rels["self"] != 1 || rels["collection"] != 1 || rels["describes"] != 2 || rels["service"] < 3 || rels["enclosure"] != 1 || rels["license"] != 1 {
		t.Errorf("links %v", rels)
	}
	none := NewRecord(&catalogrecords.Record{Identifier: "table-1", Title: "T"}, "catalogue", "https://h")
	if string(none.Geometry) != "null" || none.Properties.License != "" {
		t.Errorf("no extent: %+v", none)
	}
}

func TestFeatureCollectionLinks(t *testing.T) {
	r := sample()
	page := &catalogrecords.Page{Records: []catalogrecords.Record{r}, Matched: 7, Next: "CUR"}
	fc := NewFeatureCollection(page, "group-3", "https://h/r", url.Values{"q": {"roads"}}, time.Now())
	if fc.NumberMatched != 7 || fc.NumberReturned != 1 {
		t.Errorf("%+v", fc)
	}
	var next string
	for _, l := range fc.Links {
		if l.Rel == "next" {
			next = l.Href
		}
	}
	if next != "https://h/r/collections/group-3/items?cursor=CUR&q=roads" {
		t.Errorf("next %q", next)
	}
	var b bytes.Buffer
	if err := of.WriteHTML(&b, ItemsPage(GroupCollection(3, "W"), fc, "")); err != nil || strings.Contains(b.String(), "<b>") {
		t.Errorf("HTML %v: %s", err, b.String())
	}
	b.Reset()
	if err := of.WriteHTML(&b, RecordPage(fc.Features[0])); err != nil || strings.Contains(b.String(), "<b>") || !strings.Contains(b.String(), "GeoPackage") {
		t.Errorf("HTML %v: %s", err, b.String())
	}
}

// Record core's time: the temporal extent where known, ".." for an open
// end, null when there is none.
func TestRecordTime(t *testing.T) {
	start := time.Date(2019, 7, 1, 0, 0, 0, 0, time.UTC)
	r := catalogrecords.Record{Identifier: "layer-1", Type: catalogrecords.Layer, ID: 1, Title: "T", TimeStart: &start}
	b, err := json.Marshal(NewRecord(&r, CatalogueID, "https://h/services/ogc/records"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"time":{"interval":["2019-07-01T00:00:00Z",".."]}`) {
		t.Errorf("time of an open-ended extent: %s", b)
	}
	r.TimeStart = nil
	if b, _ = json.Marshal(NewRecord(&r, CatalogueID, "https://h/services/ogc/records")); !strings.Contains(string(b), `"time":null`) {
		t.Errorf("time without an extent: %s", b)
	}
}
