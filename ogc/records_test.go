package ogc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/testtier"
)

// OGC API - Records over the catalogue, on both stores: the documents,
// every items parameter, paging, access for every kind of caller, bad
// input, agreement with /data/ and with the ISO full form, and OWSLib.
func TestRecords(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newRecordsFixture(t, e)
		t.Run("documents", func(t *testing.T) { testRecordsDocuments(t, f) })
		t.Run("items", func(t *testing.T) { testRecordsItems(t, f) })
		t.Run("record", func(t *testing.T) { testRecordsRecord(t, f) })
		t.Run("access", func(t *testing.T) { testRecordsAccess(t, f) })
		t.Run("bad input", func(t *testing.T) { testRecordsBadInput(t, f) })
		t.Run("same as /data/", func(t *testing.T) { testRecordsLikeREST(t, f) })
		t.Run("ISO full form", func(t *testing.T) { testRecordsISO(t, f) })
		t.Run("owslib", func(t *testing.T) { testRecordsOWSLib(t, f) })
		t.Run("feedless group", func(t *testing.T) { testRecordsFeedless(t, f) })
	})
}

func testRecordsDocuments(t *testing.T, f *recordsFixture) {
	var landing struct{ Links []struct{ Rel, Href string } }
	f.get(t, "", "/").json(t, http.StatusOK, "application/json", &landing)
	rels := map[string]bool{}
	for _, l := range landing.Links {
		rels[l.Rel] = true
	}
	for _, want := range []string{"self", "service-desc", "conformance", "data"} {
		if !rels[want] {
			t.Errorf("landing lacks %s: %+v", want, landing.Links)
		}
	}
	var conf struct{ ConformsTo []string }
	f.get(t, "", "/conformance").json(t, http.StatusOK, "application/json", &conf)
	if !slices.Contains(conf.ConformsTo, "http://www.opengis.net/spec/ogcapi-records-1/1.0/conf/record-core") {
		t.Errorf("conformance %v", conf.ConformsTo)
	}
	var api map[string]any
	f.get(t, "", "/api").json(t, http.StatusOK, "application/vnd.oai.openapi+json", &api)
	var coll struct {
		ID, ItemType string
		Links        []struct{ Rel string }
	}
	f.get(t, "", "/collections/catalogue").json(t, http.StatusOK, "application/json", &coll)
	if coll.ID != "catalogue" || coll.ItemType != "record" {
		t.Errorf("collection %+v", coll)
	}
	var q struct{ Properties map[string]any }
	f.get(t, "", "/collections/catalogue/queryables").json(t, http.StatusOK, "application/schema+json", &q)
	if q.Properties["title"] == nil || q.Properties["geometry"] == nil {
		t.Errorf("queryables %+v", q)
	}
	r := f.get(t, "", "/collections?f=html")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.body), "group-"+strconv.Itoa(f.harbour.ID)) {
		t.Errorf("collections HTML %d %s", r.status, r.body)
	}
	if r := f.get(t, "", "/collections/catalogue/items", "Accept", "text/html"); !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("Accept text/html gives %s", r.header.Get("Content-Type"))
	}
	// Accept: application/xml where only JSON is written: JSON, not a refusal.
	if r := f.get(t, "", "/collections", "Accept", "application/xml"); r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Errorf("Accept XML on /collections: %d %s", r.status, r.header.Get("Content-Type"))
	}
	req, _ := http.NewRequest(http.MethodHead, f.e.HTTP.URL+"/services/ogc/records/collections/catalogue/items", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

func testRecordsItems(t *testing.T, f *recordsFixture) {
	base := "/collections/catalogue/items"
	p, ids := f.items(t, "", base)
	if !slices.Equal(ids, f.public()) || p.NumberMatched != 4 || p.NumberReturned != 4 || p.Type != "FeatureCollection" {
		t.Errorf("catalogue %v (%d matched), want %v", ids, p.NumberMatched, f.public())
	}
	roads, parks, census, iso := f.id("layer", f.roads), f.id("layer", f.parks), f.id("table", f.census), f.id("layer", f.withISO)
	cases := map[string][]string{
		"?bbox=174.5,-41.5,175,-41":       {roads, iso},
		"?bbox=174.5,-41.5,0,175,-41,100": {roads, iso},
		"?bbox=170,-38,-170,-36":          {parks},
		"?q=auckland":                     {parks},
		"?q=nothing,auckland":             {parks},
		"?type=table":                     {census},
		"?type=dataset":                   f.public(),
		"?type=service":                   nil,
		"?ids=" + roads + "," + census:    {census, roads},
		"?externalIds=" + url.QueryEscape(f.e.API+"/layers/"+strconv.Itoa(f.parks)+"/"):                                   {parks},
		"?datetime=2000-01-01T00:00:00Z/..":                                                                               f.public(),
		"?datetime=../2000-01-01":                                                                                         nil,
		"?filter=" + url.QueryEscape("title LIKE 'Harbour%'"):                                                             {roads},
		"?filter=" + url.QueryEscape("S_INTERSECTS(geometry, BBOX(174.5,-37.5,175,-36.5))"):                               {parks},
		"?filter-lang=cql2-json&filter=" + url.QueryEscape(`{"op":"=","args":[{"property":"type"},"table"]}`):             {census},
		"?filter=" + url.QueryEscape("CASEI(title) = casei('HARBOUR ROADS') AND ACCENTI(title) LIKE accenti('Hárbour%')"): {roads},
		"?filter=" + url.QueryEscape("type IN ('table') OR title BETWEEN 'Aa' AND 'Ab'"):                                  {census},
		"?filter=" + url.QueryEscape("publisher = '"+f.harbour.Name+"'"):                                                  {roads},
	}
	for q, want := range cases {
		slices.Sort(want)
		if _, got := f.items(t, "", base+q); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	// Sorting, and paging by next links: every record once, in order.
	p, _ = f.items(t, "", base+"?sortby=title")
	var titles []string
	for _, r := range p.Features {
		titles = append(titles, r.Properties.Title)
	}
	if !slices.IsSorted(titles) {
		t.Errorf("sortby=title %v", titles)
	}
	for _, sortby := range []string{"title", "-title", "-updated", ""} {
		got := f.all(t, "", base+"?limit=1&sortby="+sortby)
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		if !slices.Equal(sorted, f.public()) {
			t.Errorf("paging sortby=%s: %v", sortby, got)
		}
	}
	if p, _ := f.items(t, "", base+"?limit=100000"); p.NumberReturned != 4 {
		t.Errorf("a large limit is clamped, not refused: %+v", p)
	}
	// A group's collection: what it owns.
	if _, got := f.items(t, "", "/collections/group-"+strconv.Itoa(f.harbour.ID)+"/items"); !slices.Equal(got, []string{roads}) {
		t.Errorf("group collection %v", got)
	}
}

func testRecordsRecord(t *testing.T, f *recordsFixture) {
	id := f.id("layer", f.roads)
	var r recordJSON
	f.get(t, "", "/collections/catalogue/items/"+id).json(t, http.StatusOK, "application/geo+json", &r)
	if r.ID != id || r.Type != "Feature" || r.Properties.Type != "dataset" || r.Properties.Title != "Harbour roads" || r.Geometry == nil {
		t.Fatalf("record %+v", r)
	}
	rels := map[string]string{}
	for _, l := range r.Links {
		rels[l.Rel+" "+l.Type] = l.Href
	}
	if rels["self application/geo+json"] == "" || rels["alternate text/html"] == "" || rels["collection application/json"] == "" ||
		!strings.HasSuffix(rels["describes application/json"], "/services/api/v1.x/layers/"+strconv.Itoa(f.roads)+"/") {
		t.Errorf("links %v", rels)
	}
	// Through its group's collection too, not through another's.
	f.get(t, "", "/collections/group-"+strconv.Itoa(f.harbour.ID)+"/items/"+id).json(t, http.StatusOK, "application/geo+json", &r)
	var ex exception
	f.get(t, f.owner.Key, "/collections/group-"+strconv.Itoa(f.quiet.ID)+"/items/"+id).json(t, http.StatusNotFound, "application/json", &ex)
	h := f.get(t, "", "/collections/catalogue/items/"+id+"?f=html")
	if h.status != http.StatusOK || !strings.Contains(string(h.body), "Harbour roads") {
		t.Errorf("HTML %d", h.status)
	}
	// A hostile description is escaped on every page that shows it.
	for _, p := range []string{"/collections/catalogue/items/" + f.id("layer", f.parks) + "?f=html", "/collections/catalogue/items?f=html"} {
		h := f.get(t, "", p)
		if h.status != http.StatusOK || strings.Contains(string(h.body), "<script>") || !strings.Contains(string(h.body), "&lt;script&gt;") {
			t.Errorf("%s: %d, not escaped: %s", p, h.status, h.body)
		}
	}
	var parks recordJSON
	f.get(t, "", "/collections/catalogue/items/"+f.id("layer", f.parks)).json(t, http.StatusOK, "application/geo+json", &parks)
	if parks.Properties.Description != Hostile {
		t.Errorf("description %q", parks.Properties.Description)
	}
}

// A private or unpublished dataset is absent from every door for
// outsiders: the list, a group's collection, the record, the ISO form;
// its owner sees the private one (never the draft).
func testRecordsAccess(t *testing.T, f *recordsFixture) {
	private, draft := f.id("layer", f.private), f.id("layer", f.draft)
	quiet := "/collections/group-" + strconv.Itoa(f.quiet.ID)
	for _, key := range []string{"", f.reader.Key} {
		if _, ids := f.items(t, key, "/collections/catalogue/items?limit=100"); slices.Contains(ids, private) || slices.Contains(ids, draft) {
			t.Errorf("outsider %q sees %v", key, ids)
		}
		for _, p := range []string{"/collections/catalogue/items/" + private, "/collections/catalogue/items/" + private + "?f=iso",
			"/collections/catalogue/items/" + draft, quiet, quiet + "/items"} {
			var ex exception
			f.get(t, key, p).json(t, http.StatusNotFound, "application/json", &ex)
		}
		var cs struct{ Collections []struct{ ID string } }
		f.get(t, key, "/collections").json(t, http.StatusOK, "application/json", &cs)
		for _, c := range cs.Collections {
			if c.ID == "group-"+strconv.Itoa(f.quiet.ID) {
				t.Errorf("outsider %q sees the private group's collection", key)
			}
		}
	}
	if _, ids := f.items(t, f.owner.Key, "/collections/catalogue/items?limit=100"); !slices.Contains(ids, private) || slices.Contains(ids, draft) {
		t.Errorf("owner sees %v", ids)
	}
	if _, ids := f.items(t, f.owner.Key, quiet+"/items"); !slices.Equal(ids, []string{private}) {
		t.Errorf("owner's group collection %v", ids)
	}
	var ex exception
	f.get(t, f.owner.Key, "/collections/catalogue/items/"+draft).json(t, http.StatusNotFound, "application/json", &ex)
	// The key parameter works, and is never written back.
	r := f.get(t, "", "/collections/catalogue/items?limit=1&key="+f.owner.Key)
	if r.status != http.StatusOK || strings.Contains(string(r.body), f.owner.Key) {
		t.Errorf("key parameter: %d %s", r.status, r.body)
	}
	// A token without the catalogue scope: 401 naming it.
	f.get(t, f.noScope, "/collections").json(t, http.StatusUnauthorized, "application/json", &ex)
	if !strings.Contains(ex.Description, "catalog") {
		t.Errorf("scope refusal %+v", ex)
	}
	if got := f.get(t, "", "/").header.Get("Accepted-OAuth-Scopes"); got == "" {
		t.Error("no Accepted-OAuth-Scopes")
	}
}

// Hostile input on the parameters and CQL2: a 4xx with a message, quickly.
func testRecordsBadInput(t *testing.T, f *recordsFixture) {
	deep := strings.Repeat("(", 3000) + "title='a'" + strings.Repeat(")", 3000)
	bad := []string{
		"/collections/catalogue/items?unknown=1", "/collections/catalogue/items?limit=-1", "/collections/catalogue/items?limit=1&limit=2",
		"/collections/catalogue/items?bbox=1,2", "/collections/catalogue/items?bbox=a,b,c,d", "/collections/catalogue/items?datetime=soon",
		"/collections/catalogue/items?sortby=secret", "/collections/catalogue/items?cursor=garbage",
		"/collections/catalogue/items?cursor=" + strings.Repeat("x", 5000),
		"/collections/catalogue/items?filter=" + url.QueryEscape("title = "), "/collections/catalogue/items?filter=" + url.QueryEscape("password = 'x'"),
		"/collections/catalogue/items?filter=" + url.QueryEscape(deep), "/collections/catalogue/items?filter=true&filter-lang=xpath",
		"/collections/catalogue/items?filter-lang=cql2-json&filter=" + url.QueryEscape(`{"op":"=","args":[`),
		"/collections/catalogue/items?f=pdf", "/collections?bbox=1,2,3,4", "/collections/catalogue/items/layer-1?q=x",
		"/collections/catalogue?f=iso",
	}
	for _, p := range bad {
		start := time.Now()
		var ex exception
		f.get(t, "", p).json(t, http.StatusBadRequest, "application/json", &ex)
		if ex.Description == "" {
			t.Errorf("%s: no message", p)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", p, d)
		}
	}
	for _, p := range []string{"/collections/nothing", "/collections/group-x/items", "/collections/group-999999/items",
		"/collections/catalogue/items/nothing", "/collections/catalogue/items/layer-999999", "/collections/catalogue/items/layer-01"} {
		var ex exception
		f.get(t, "", p).json(t, http.StatusNotFound, "application/json", &ex)
	}
}

// The same caller sees the same set through /data/ and Records.
func testRecordsLikeREST(t *testing.T, f *recordsFixture) {
	for _, key := range []string{"", f.reader.Key, f.owner.Key} {
		rest := f.restIDs(t, key)
		_, recs := f.items(t, key, "/collections/catalogue/items?limit=1000")
		if !slices.Equal(rest, recs) {
			t.Errorf("caller %q: /data/ %v, Records %v", key, rest, recs)
		}
	}
}

// A record and its ISO full form agree field by field, for a dataset
// with an uploaded ISO 19139 document (issue 27, point 5).
func testRecordsISO(t *testing.T, f *recordsFixture) {
	path := "/collections/catalogue/items/" + f.id("layer", f.withISO)
	var r recordJSON
	f.get(t, "", path).json(t, http.StatusOK, "application/geo+json", &r)
	for _, x := range []response{f.get(t, "", path+"?f=iso"), f.get(t, "", path, "Accept", "application/xml")} {
		if x.status != http.StatusOK || !strings.Contains(x.header.Get("Content-Type"), "xml") {
			t.Fatalf("ISO form: %d %s", x.status, x.body)
		}
		doc, err := metadata.Parse(x.body)
		if err != nil {
			t.Fatal(err)
		}
		box := []float64{}
		if r.Geometry != nil {
			c := r.Geometry.Coordinates[0]
			box = []float64{c[0][0], c[0][1], c[2][0], c[2][1]}
		}
		if doc.Title != r.Properties.Title || doc.Abstract != r.Properties.Description || !slices.Equal(doc.Keywords, r.Properties.Keywords) || !slices.Equal(doc.BBox, box) {
			t.Errorf("ISO %q %q %v %v\nrecord %q %q %v %v", doc.Title, doc.Abstract, doc.Keywords, doc.BBox,
				r.Properties.Title, r.Properties.Description, r.Properties.Keywords, box)
		}
		if doc.Title != "Wellington Road Centrelines" {
			t.Errorf("the uploaded document's title is not the record's: %q", doc.Title)
		}
	}
}

// owslibRecordsScript lists the record collections and reads items with
// bbox and q through OWSLib's OGC API - Records client.
const owslibRecordsScript = `
import json, sys
from owslib.ogcapi.records import Records
api = Records(sys.argv[1])
out = {
    "records": api.records(),
    "all": [r["id"] for r in api.collection_items("catalogue", limit=100)["features"]],
    "bbox": [r["id"] for r in api.collection_items("catalogue", bbox=[174.5, -41.5, 175, -41])["features"]],
    "q": [r["id"] for r in api.collection_items("catalogue", q="auckland")["features"]],
    "item": api.collection_item("catalogue", sys.argv[2])["properties"]["title"],
}
print(json.dumps(out))
`

// OWSLib's OGC API - Records client (Debian python3-owslib) against the
// real server.
func testRecordsOWSLib(t *testing.T, f *recordsFixture) {
	testtier.FullOnly(t, "runs OWSLib (python3) against the server")
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.ogcapi.records").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, python, "-c", owslibRecordsScript, f.e.HTTP.URL+"/services/ogc/records", f.id("layer", f.roads)).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct {
		Records, All, BBox, Q []string
		Item                  string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	slices.Sort(got.All)
	slices.Sort(got.BBox)
	want := []string{f.id("layer", f.roads), f.id("layer", f.withISO)}
	slices.Sort(want)
	switch {
	case !slices.Contains(got.Records, "catalogue"), !slices.Contains(got.Records, "group-"+strconv.Itoa(f.harbour.ID)):
		t.Errorf("OWSLib record collections %v", got.Records)
	case !slices.Equal(got.All, f.public()), !slices.Equal(got.BBox, want):
		t.Errorf("OWSLib all %v, bbox %v", got.All, got.BBox)
	case !slices.Equal(got.Q, []string{f.id("layer", f.parks)}), got.Item != "Harbour roads":
		t.Errorf("OWSLib q %v, item %q", got.Q, got.Item)
	}
}

// A group that keeps its data out of public feeds has no records
// (graph's rule), so no collection either; its datasets stay on /data/.
func testRecordsFeedless(t *testing.T, f *recordsFixture) {
	ctx := context.Background()
	f.e.Store.Client.Group.UpdateOneID(f.harbour.ID).SetCatalogFeedsEnabled(false).ExecX(ctx)
	defer f.e.Store.Client.Group.UpdateOneID(f.harbour.ID).SetCatalogFeedsEnabled(true).ExecX(ctx)
	harbour := "group-" + strconv.Itoa(f.harbour.ID)
	for _, key := range []string{"", f.owner.Key} {
		var cs struct{ Collections []struct{ ID string } }
		f.get(t, key, "/collections").json(t, http.StatusOK, "application/json", &cs)
		for _, c := range cs.Collections {
			if c.ID == harbour {
				t.Errorf("caller %q: the feedless group's collection is listed", key)
			}
		}
		var ex exception
		f.get(t, key, "/collections/"+harbour+"/items").json(t, http.StatusNotFound, "application/json", &ex)
		if _, ids := f.items(t, key, "/collections/catalogue/items?limit=100"); slices.Contains(ids, f.id("layer", f.roads)) {
			t.Errorf("caller %q: the feedless group's record is listed", key)
		}
	}
	if !slices.Contains(f.restIDs(t, ""), f.id("layer", f.roads)) {
		t.Error("/data/ lost the feedless group's layer")
	}
}
