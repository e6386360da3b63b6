package ogcrecords

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
)

func parse(t *testing.T, raw string) (*Items, error) {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ParseItems(q)
}

func TestParseItemsMapsOntoTheQuery(t *testing.T) {
	it, err := parse(t, "q=roads,rivers&bbox=174,-42,175,-41&datetime=2024-01-01T00:00:00Z/..&type=layer,table"+
		"&ids=layer-1&externalIds=https://x.example/services/api/v1.x/items/c7/,table-3&sortby=-updated&limit=5000&cursor=abc")
	if err != nil {
		t.Fatal(err)
	}
	q := it.Query
	switch {
	case q.Text != "roads rivers", !slices.Equal(q.BBox, []float64{174, -42, 175, -41}),
		q.ModifiedAfter == nil || !q.ModifiedAfter.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), q.ModifiedBefore != nil,
		!slices.Equal(q.Types, []catalogrecords.Type{"layer", "table"}),
		!slices.Equal(q.IDs, []string{"layer-1", "item-c7", "table-3"}),
		q.Sort != catalogrecords.SortModifiedDesc, q.Limit != MaxLimit, q.Cursor != "abc", q.Filter != nil, it.Empty:
		t.Errorf("%+v", it)
	}
	if it, err := parse(t, "limit=99999999999999999999999"); err != nil || it.Query.Limit != MaxLimit {
		t.Errorf("a huge limit is clamped: %+v %v", it, err)
	}
	it, err = parse(t, "")
	if err != nil || it.Query.Limit != DefaultLimit {
		t.Errorf("defaults %+v %v", it, err)
	}
	if it, _ := parse(t, "type=dataset"); it.Empty || it.Query.Types != nil {
		t.Errorf("type=dataset %+v", it)
	}
	for _, raw := range []string{"type=service", "ids=nothing-1", "externalIds=https://x.example/groups/3/"} {
		if it, err := parse(t, raw); err != nil || !it.Empty {
			t.Errorf("%s: %+v %v", raw, it, err)
		}
	}
}

func TestParseItemsFilterAndAntimeridian(t *testing.T) {
	it, err := parse(t, "filter=title LIKE 'Road%25' AND type='layer'&bbox=170,-50,-170,-30")
	if err != nil {
		t.Fatal(err)
	}
	if it.Query.Filter == nil || it.Query.BBox != nil {
		t.Fatalf("%+v", it)
	}
	rec := func(title string, box []float64) *catalogrecords.Record {
		return &catalogrecords.Record{Identifier: "layer-1", Type: "layer", Title: title, BBox: box}
	}
	if !it.Query.Filter(rec("Roads", []float64{175, -45, 176, -44})) || !it.Query.Filter(rec("Roads", []float64{-178, -45, -177, -44})) {
		t.Error("a match is refused")
	}
	if it.Query.Filter(rec("Rivers", []float64{175, -45, 176, -44})) || it.Query.Filter(rec("Roads", []float64{10, -45, 11, -44})) {
		t.Error("a non-match is kept")
	}
	it, err = parse(t, `filter={"op":"=","args":[{"property":"publisher"},"Wellington"]}&filter-lang=cql2-json`)
	if err != nil || it.Expr == nil {
		t.Fatalf("cql2-json: %v", err)
	}
}

// Hostile or mistaken input is a 400 with a message, quickly.
func TestParseItemsRefusesBadInput(t *testing.T) {
	deep := strings.Repeat("(", 5000) + "title='a'" + strings.Repeat(")", 5000)
	deepJSON := strings.Repeat(`{"op":"not","args":[`, 3000) + `true` + strings.Repeat(`]}`, 3000)
	cases := map[string]string{
		"unknown":        "foo=1",
		"twice":          "limit=1&limit=2",
		"limit zero":     "limit=0",
		"limit word":     "limit=ten",
		"limit blank":    "limit=%20",
		"limit empty":    "limit=",
		"bbox three":     "bbox=1,2,3",
		"bbox nan":       "bbox=NaN,1,2,3",
		"bbox lat":       "bbox=0,10,1,5",
		"bbox range":     "bbox=0,0,1,95",
		"bbox crs":       "bbox=0,0,1,1&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/2193",
		"bbox-crs alone": "bbox-crs=CRS84",
		"datetime":       "datetime=yesterday",
		"sortby":         "sortby=popularity",
		"filter syntax":  "filter=title = ",
		"filter prop":    "filter=secret = 1",
		"filter lang":    "filter=true&filter-lang=sql",
		"filter crs":     "filter=true&filter-crs=EPSG:2193",
		"lang alone":     "filter-lang=cql2-text",
		"filter deep":    "filter=" + url.QueryEscape(deep),
		"json deep":      "filter-lang=cql2-json&filter=" + url.QueryEscape(deepJSON),
		"json junk":      "filter-lang=cql2-json&filter=%7B",
		"filter long":    "filter=" + strings.Repeat("a", maxFilterBytes+1),
		"q long":         "q=" + strings.Repeat("a", maxTextBytes+1),
		"ids many":       "ids=" + strings.Repeat("layer-1,", maxIDs+1),
		"cursor long":    "cursor=" + strings.Repeat("a", maxTextBytes+1),
	}
	for name, raw := range cases {
		start := time.Now()
		_, err := parse(t, raw)
		var p *Problem
		if !errors.As(err, &p) || p.Status != 400 || p.Description == "" {
			t.Errorf("%s: %v", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s took %v", name, d)
		}
	}
}

func TestIdentifierOf(t *testing.T) {
	for in, want := range map[string]string{
		"layer-12": "layer-12",
		"https://h.example/services/api/v1.x/layers/12/": "layer-12",
		"https://h.example/tables/3/":                    "table-3",
		"https://h.example/items/c7/":                    "item-c7",
		"https://h.example/layers/x/":                    "",
		"https://h.example/":                             "",
		"::":                                             "",
	} {
		if got := identifierOf(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestCollections(t *testing.T) {
	for in, want := range map[string]int{"catalogue": 0, "group-3": 3} {
		if g, ok := ParseCollectionID(in); !ok || g != want {
			t.Errorf("%s: %d %v", in, g, ok)
		}
	}
	for _, in := range []string{"group-0", "group-03", "group-x", "layer-1", ""} {
		if _, ok := ParseCollectionID(in); ok {
			t.Errorf("%s is accepted", in)
		}
	}
	q := catalogrecords.Query{}
	GroupCollection(3, "Wellington").Restrict(&q)
	Catalogue().Restrict(&q)
	if !slices.Equal(q.GroupIDs, []int{3}) {
		t.Errorf("group restriction %v", q.GroupIDs)
	}
}
