package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/versiondiff"
)

// diffFields are the schema of the parcels whose changeset is compared
// with their diff: a date and a time of day besides numbers and text.
var diffFields = []schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "code", Type: "integer"}, {Name: "name", Type: "string"},
	{Name: "area", Type: "real"}, {Name: "surveyed", Type: "date"}, {Name: "opened", Type: "time"}}

// diffParcel is parcel code of version v (1 or 2), nil when v has none.
// From 1 to 2: codes 1-4 deleted, 7-12 renamed, 13-15 moved, 16 surveyed
// again, 31-40 inserted (their feature ids falling as their codes rise,
// so that feature id order is not key order).
func diffParcel(v, code int) *feature {
	switch {
	case v == 1 && code > 30, v == 2 && code <= 4, code > 40:
		return nil
	}
	fid := int64(code)
	if code > 30 {
		fid = int64(200 - code)
	}
	name, x := fmt.Sprintf("Parcel %d", code), 174+float64(code)/1000
	surveyed := time.Date(2024, 3, code%28+1, 0, 0, 0, 0, time.UTC)
	if v == 2 && code >= 7 && code <= 12 {
		name += " (renamed)"
	}
	if v == 2 && code >= 13 && code <= 15 {
		x += 0.5
	}
	if v == 2 && code == 16 {
		surveyed = surveyed.AddDate(1, 0, 0)
	}
	return &feature{fid, pt(x, -41), map[string]any{"code": int64(code), "name": name, "area": float64(code) + 0.25,
		"surveyed": surveyed, "opened": "09:30:00"}}
}

func diffParcels(v int) []feature {
	var out []feature
	for code := 1; code <= 40; code++ {
		if p := diffParcel(v, code); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// wantChange is a change as the changeset type should serve it.
type wantChange struct {
	ID     string
	Props  map[string]any
	Coords []float64
}

// diffChanges are the changes versiondiff finds between the layer's two
// published versions (older first), as features of typ.
func diffChanges(t *testing.T, e *env, layerID int, typ string) []wantChange {
	t.Helper()
	ctx := context.Background()
	vs, err := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(layerID), layerversion.PublishedAtNotNil()).
		Order(ent.Asc(layerversion.FieldPublishedAt)).All(ctx)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions: %v %d", err, len(vs))
	}
	version := func(v *ent.LayerVersion) versiondiff.Version {
		return versiondiff.Version{ID: v.ID, Fields: v.Fields, PrimaryKey: v.PrimaryKeyFields, CRS: v.Crs, GeometryType: v.GeometryType}
	}
	var out []wantChange
	ops := map[versiondiff.Op]string{versiondiff.Insert: "INSERT", versiondiff.Update: "UPDATE", versiondiff.Delete: "DELETE"}
	d, err := versiondiff.Compare(ctx, e.Store, version(vs[0]), version(vs[1]), versiondiff.Options{}, func(c versiondiff.Change) error {
		r := c.New
		if c.Op == versiondiff.Delete {
			r = c.Old
		}
		b, err := json.Marshal(r.Attrs)
		if err != nil {
			return err
		}
		var props map[string]any
		if err := json.Unmarshal(b, &props); err != nil {
			return err
		}
		props["surveyed"] = featurerows.DateOnly(props["surveyed"].(string))
		props["__change__"] = ops[c.Op]
		g, err := wkb.Unmarshal(r.Geom)
		if err != nil {
			return err
		}
		out = append(out, wantChange{ID: fmt.Sprintf("%s.%d", typ, r.FID), Props: props, Coords: g.(*geom.Point).FlatCoords()})
		return nil
	})
	if err != nil || !d.Complete {
		t.Fatalf("versiondiff: %v %+v", err, d)
	}
	// The generator's changes: 4 deletes, 10 updates, 10 inserts.
	if d.Counts != (versiondiff.Counts{Inserts: 10, Updates: 10, Deletes: 4}) {
		t.Fatalf("versiondiff counts %+v", d.Counts)
	}
	return out
}

// changesetJSON is a GetFeature answer of a changeset type in GeoJSON.
type changesetJSON struct {
	NumberMatched  *int64 `json:"numberMatched"`
	NumberReturned int    `json:"numberReturned"`
	Links          []struct {
		Rel  string `json:"rel"`
		Href string `json:"href"`
	} `json:"links"`
	Features []struct {
		ID         string         `json:"id"`
		Properties map[string]any `json:"properties"`
		Geometry   struct {
			Coordinates []float64 `json:"coordinates"`
		} `json:"geometry"`
	} `json:"features"`
}

func (fc changesetJSON) changes() []wantChange {
	out := []wantChange{}
	for _, f := range fc.Features {
		out = append(out, wantChange{ID: f.ID, Props: f.Properties, Coords: f.Geometry.Coordinates})
	}
	return out
}

func sameChanges(got, want []wantChange) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || !reflect.DeepEqual(g.Props, w.Props) || len(g.Coords) != len(w.Coords) {
			return false
		}
		for j := range g.Coords {
			if math.Abs(g.Coords[j]-w.Coords[j]) > 1e-9 {
				return false
			}
		}
	}
	return true
}

// A changeset type answers exactly the diff of the two versions
// (versiondiff): every change once, in its order, paged by start index
// wherever a page starts, its filters applied to it; GDAL and OWSLib read
// it.
func TestWFSChangesetIsTheDiff(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		t1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		t2 := t1.Add(24 * time.Hour)
		id := publishKeyedVersion(t, e, owner.User, 0, t1, false, diffFields, diffParcels(1))
		publishKeyedVersion(t, e, owner.User, id, t2, false, diffFields, diffParcels(2))
		local := fmt.Sprintf("layer-%d-changeset", id)
		typ := "geopub:" + local
		want := diffChanges(t, e, id, local)
		f := &fixture{e: e, owner: owner}
		viewparams := "from:" + t1.Format(time.RFC3339) + ";to:" + t2.Format(time.RFC3339)

		get := func(extra ...string) changesetJSON {
			t.Helper()
			var fc changesetJSON
			params := append([]string{"REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "OUTPUTFORMAT", "application/json",
				"VIEWPARAMS", viewparams}, extra...)
			f.wfs(t, owner.Key, params...).json(t, http.StatusOK, "application/json", &fc)
			return fc
		}
		matched := func(fc changesetJSON) int64 {
			if fc.NumberMatched == nil {
				return -1
			}
			return *fc.NumberMatched
		}

		// Counted before any page is read.
		if fc := get("RESULTTYPE", "hits"); matched(fc) != int64(len(want)) || len(fc.Features) != 0 {
			t.Errorf("hits: matched %d, %d features; want %d", matched(fc), len(fc.Features), len(want))
		}
		// In one page: the diff itself, in its order.
		if fc := get(); !sameChanges(fc.changes(), want) || matched(fc) != int64(len(want)) {
			t.Errorf("changeset:\n%v\nwant\n%v", fc.changes(), want)
		}
		// Paged by 4, following next links: every change once.
		var paged []wantChange
		for start := 0; ; {
			fc := get("COUNT", "4", "STARTINDEX", itoa(start))
			if matched(fc) != int64(len(want)) {
				t.Errorf("start %d: matched %d, want %d", start, matched(fc), len(want))
			}
			paged = append(paged, fc.changes()...)
			var next string
			for _, l := range fc.Links {
				if l.Rel == "next" {
					next = l.Href
				}
			}
			if next == "" {
				break
			}
			u, err := url.Parse(next)
			if err != nil || u.Query().Get("STARTINDEX") != itoa(start+len(fc.Features)) || len(fc.Features) != 4 {
				t.Fatalf("start %d: %d features, next %q", start, len(fc.Features), next)
			}
			start += 4
		}
		if !sameChanges(paged, want) {
			t.Errorf("paged:\n%v\nwant\n%v", paged, want)
		}
		// Pages starting anywhere, the last one short.
		for _, start := range []int{9, 1, 21, 23, 24, 30} {
			end := min(start+5, len(want))
			fc := get("COUNT", "5", "STARTINDEX", itoa(start))
			if !sameChanges(fc.changes(), want[min(start, end):end]) || matched(fc) != int64(len(want)) {
				t.Errorf("start %d: %v (matched %d), want %v", start, fc.changes(), matched(fc), want[min(start, end):end])
			}
		}
		// Filtered and paged: the updates.
		var updates []wantChange
		for _, c := range want {
			if c.Props["__change__"] == "UPDATE" {
				updates = append(updates, c)
			}
		}
		filter := `<Filter><PropertyIsEqualTo><ValueReference>__change__</ValueReference><Literal>UPDATE</Literal></PropertyIsEqualTo></Filter>`
		var got []wantChange
		for start := 0; start < len(updates)+3; start += 3 {
			fc := get("FILTER", filter, "COUNT", "3", "STARTINDEX", itoa(start))
			if matched(fc) != int64(len(updates)) {
				t.Errorf("updates from %d: matched %d, want %d", start, matched(fc), len(updates))
			}
			got = append(got, fc.changes()...)
		}
		if !sameChanges(got, updates) {
			t.Errorf("updates:\n%v\nwant\n%v", got, updates)
		}
		// GML: the date as a date.
		r := f.wfs(t, owner.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "VIEWPARAMS", viewparams,
			"FILTER", `<Filter><PropertyIsEqualTo><ValueReference>code</ValueReference><Literal>16</Literal></PropertyIsEqualTo></Filter>`)
		if s := string(r.body); r.status != http.StatusOK || !strings.Contains(s, "<geopub:surveyed>2025-03-17</geopub:surveyed>") ||
			!strings.Contains(s, "<geopub:__change__>UPDATE</geopub:__change__>") || !strings.Contains(s, `numberMatched="1"`) {
			t.Errorf("GML: %d %s", r.status, s)
		}

		t.Run("GDAL", func(t *testing.T) { testChangesetGDAL(t, f, typ, viewparams, want) })
		t.Run("OWSLib", func(t *testing.T) { testChangesetOWSLib(t, f, typ, viewparams, want) })
	})
}

// GDAL's WFS driver reads a changeset type, the viewparams in its
// connection URL, in WFS 2.0 (paging by STARTINDEX, pages of 7) and 1.1.0.
func testChangesetGDAL(t *testing.T, f *fixture, typ, viewparams string, want []wantChange) {
	ogr2ogr := requireTool(t, "ogr2ogr", "gdal-bin")
	for _, version := range []string{"2.0.0", "1.1.0"} {
		out := filepath.Join(t.TempDir(), "out.geojson")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		src := "WFS:" + f.e.HTTP.URL + "/services/wfs/?key=" + f.owner.Key + "&VIEWPARAMS=" + url.QueryEscape(viewparams)
		if version != "2.0.0" {
			src += "&VERSION=" + version
		}
		cmd := exec.CommandContext(ctx, ogr2ogr, "-f", "GeoJSON", out, src, typ)
		cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30", "CPL_DEBUG=ON", "OGR_WFS_PAGING_ALLOWED=ON", "OGR_WFS_PAGE_SIZE=7")
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s ogr2ogr: %v\n%s", version, err, b)
		}
		if version == "2.0.0" && !strings.Contains(string(b), "STARTINDEX=7") {
			t.Errorf("GDAL did not page:\n%s", b)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var fc struct {
			Features []struct {
				Properties map[string]any `json:"properties"`
			} `json:"features"`
		}
		if err := json.Unmarshal(raw, &fc); err != nil {
			t.Fatal(err)
		}
		var got, wantIDs []string
		for _, ft := range fc.Features {
			got = append(got, fmt.Sprint(ft.Properties["gml_id"], " ", ft.Properties["__change__"], " ", ft.Properties["surveyed"]))
		}
		for _, c := range want {
			wantIDs = append(wantIDs, fmt.Sprint(c.ID, " ", c.Props["__change__"], " ", c.Props["surveyed"]))
		}
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%s: GDAL read\n%v\nwant\n%v", version, got, wantIDs)
		}
	}
}

// owsChangesetScript reads a changeset type in pages of 6 with OWSLib's
// WFS 2.0 client. OWSLib has no viewparams argument: the script adds it
// to the GetFeature URL OWSLib builds.
const owsChangesetScript = `
import json, sys, re
from urllib.parse import quote
from owslib.wfs import WebFeatureService
wfs = WebFeatureService(sys.argv[1], version="2.0.0", headers={"Authorization": "key " + sys.argv[2]})
name, viewparams = sys.argv[3], sys.argv[4]
build = wfs.getGETGetFeatureRequest
wfs.getGETGetFeatureRequest = lambda *a, **k: build(*a, **k) + "&VIEWPARAMS=" + quote(viewparams)
out = {"types": list(wfs.contents), "features": []}
start = 0
while True:
    fc = json.load(wfs.getfeature(typename=[name], outputFormat="application/json", startindex=start, maxfeatures=6))
    out["features"] += [[f["id"], f["properties"]["__change__"]] for f in fc["features"]]
    if len(fc["features"]) < 6:
        break
    start += 6
print(json.dumps(out))
`

// OWSLib's WFS 2.0 client lists the changeset type and reads it in pages.
func testChangesetOWSLib(t *testing.T, f *fixture, typ, viewparams string, want []wantChange) {
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.wfs").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, python, "-W", "ignore", "-c", owsChangesetScript, f.e.HTTP.URL+"/services/wfs/", f.owner.Key, typ, viewparams).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct {
		Types    []string
		Features [][]string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if !slices.Contains(got.Types, typ) {
		t.Errorf("OWSLib types %v lack %s", got.Types, typ)
	}
	var wantFeatures [][]string
	for _, c := range want {
		wantFeatures = append(wantFeatures, []string{c.ID, c.Props["__change__"].(string)})
	}
	if !reflect.DeepEqual(got.Features, wantFeatures) {
		t.Errorf("OWSLib read\n%v\nwant\n%v", got.Features, wantFeatures)
	}
}
