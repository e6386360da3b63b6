package ogc_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// owslibScript lists the collections, reads every item of one (OWSLib
// has no paging: one page of 100), one item, and a bbox and filter
// queries (one with CQL2's S_DISJOINT, ACCENTI and CASEI), printing the
// answers as JSON.
const owslibScript = `
import json, sys
from owslib.ogcapi.features import Features
api = Features(sys.argv[1], headers={"Authorization": "key " + sys.argv[2]})
cid = sys.argv[3]
out = {
    "conformance": api.conformance()["conformsTo"],
    "collections": api.feature_collections(),
    "title": api.collection(cid)["title"],
    "all": [f["id"] for f in api.collection_items(cid, limit=100)["features"]],
    "bbox": [f["id"] for f in api.collection_items(cid, bbox=[174.69, -41.31, 174.725, -41.275])["features"]],
    "filter": [f["id"] for f in api.collection_items(cid, filter="rank = 2 AND name LIKE 'Point 1%'")["features"]],
    "functions": [f["id"] for f in api.collection_items(cid, filter="NOT S_DISJOINT(geometry, BBOX(174.69, -41.31, 174.725, -41.275)) OR ACCENTI(CASEI(name)) LIKE accenti(casei('PÖINT 2%'))")["features"]],
    "item": api.collection_item(cid, "121")["properties"]["name"],
}
print(json.dumps(out))
`

// A second client that is not ours: OWSLib (Debian python3-owslib).
func testOWSLib(t *testing.T, f *fixture) {
	// Debian's Python, where python3-owslib installs (not a python3 of
	// some other installation earlier on PATH).
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.ogcapi.features").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib") // fails in CI, skips elsewhere
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, python, "-c", owslibScript, f.e.HTTP.URL+"/services/ogc/features", f.reader.Key, layerID(f.points)).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct {
		Conformance, Collections []string
		Title                    string
		All, BBox, Filter        []int64
		Functions                []int64
		Item                     string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var all []int64
	for _, p := range f.pointFeatures {
		all = append(all, p.fid)
	}
	switch {
	case len(got.Conformance) == 0, !slices.Contains(got.Collections, layerID(f.points)), got.Title != "Wellington points":
		t.Errorf("OWSLib read %+v", got)
	case !slices.Equal(got.All, all):
		t.Errorf("OWSLib items %v, want %v", got.All, all)
	case !slices.Equal(got.BBox, []int64{100, 103, 115, 118}), !slices.Equal(got.Filter, []int64{133, 142, 151}):
		t.Errorf("OWSLib bbox %v, filter %v", got.BBox, got.Filter)
	case !slices.Equal(got.Functions, []int64{100, 103, 106, 115, 118, 160, 163, 166, 169, 172}):
		t.Errorf("OWSLib filter with functions %v", got.Functions)
	case got.Item != Hostile:
		t.Errorf("OWSLib item name %q", got.Item)
	}
}
