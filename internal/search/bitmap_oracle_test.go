package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
)

// TestBitmapsMatchScan checks the bitmap evaluation against the scan it
// replaced, on a generated view large enough for every path (bitmap
// facets and walked orders as well as scanned facets and heaps), before
// and after a round of single-doc changes and grant changes.
func TestBitmapsMatchScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	words := []string{"river", "road", "lake", "forest", "coast", "parcel", "school", "flood", "wind", "rock"}
	doc := func(i int) loadedDoc {
		typ := []Type{TypeLayer, TypeTable, TypeSet, TypeDocument}[r.IntN(4)]
		d := Doc{Ref: Ref{Type: typ, ID: i/2 + 1, State: []State{Published, Latest}[i%2]},
			Kind: pick("vector", "raster", "table", "set", "document", ""), Title: pick(words...) + " " + pick(words...),
			Description: pick(words...) + " and " + pick(words...), VersionStatus: pick("published", "draft", "importing"),
			GroupID: r.IntN(4), UserID: 1 + r.IntN(5), LicenseType: pick("cc-by", "cc-by-nc", ""), LicenseVersion: pick("4.0", "3.0", ""),
			GeometryType: pick("point", "polygon", ""), HasZ: r.IntN(3) == 0, HasPK: r.IntN(2) == 0,
			CreatedAt: time.UnixMicro(int64(r.IntN(1000)) * 1e9), UpdatedAt: time.UnixMicro(int64(r.IntN(1000)) * 1e9),
			Popularity: int64(r.IntN(20)), PermKind: "layer", PermID: i/2 + 1, SourceType: pick("", "upload", "wfs")}
		if d.Ref.State == Published {
			d.VersionStatus = "published"
		}
		if d.GroupID != 0 {
			d.GroupName = fmt.Sprint("G", d.GroupID)
		}
		for range r.IntN(3) {
			if tag := pick("a", "b", "c", "d", "e"); !slices.Contains(d.Tags, tag) {
				d.Tags = append(d.Tags, tag)
			}
		}
		if r.IntN(2) == 0 {
			d.Categories = expandCategories([]KeyName{{Key: pick("land/cover", "land/parcels", "water/rivers"), Name: "C"}})
		}
		d.Geotags = []KeyName{{Key: pick("north", "south"), Name: "N"}}
		if r.IntN(3) == 0 {
			x := []float64{0.5, 1, 8}[r.IntN(3)]
			d.RasterResolution = &x
			img := r.IntN(2) == 0
			d.IsImagery = &img
			d.RasterBands = []string{pick("red", "gray")}
		}
		return loadedDoc{Doc: d, id: int64(i + 1)}
	}
	grantsOf := func() []grant {
		var gs []grant
		if r.IntN(5) > 0 {
			gs = append(gs, grant{access.Subject{Kind: datasetpermission.SubjectEveryone}, access.Level(1 + r.IntN(3))})
		}
		if r.IntN(3) == 0 {
			gs = append(gs, grant{access.Subject{Kind: datasetpermission.SubjectUser, ID: 1 + r.IntN(5)}, access.Level(1 + r.IntN(4))})
		}
		return gs
	}
	const n = 40000
	v := newView()
	current := map[int64]loadedDoc{}
	for i := range n {
		d := doc(i)
		current[d.id] = d
		v.put(d)
	}
	for id := 1; id <= n/2; id++ {
		v.setGrants(permKey{"layer", id}, grantsOf())
	}
	v.buildOrders()
	check := func(round string) {
		rq := rand.New(rand.NewPCG(3, 4))
		for i := range 300 {
			q := Query{Viewer: []*access.Viewer{{}, {UserID: 1 + rq.IntN(5)}, {SiteAdmin: true}}[i%3], Limit: 1 + rq.IntN(40)}
			if rq.IntN(3) == 0 {
				q.State = Latest
			}
			if rq.IntN(2) == 0 {
				q.Q = words[rq.IntN(len(words))] + " " + words[rq.IntN(len(words))][:3]
			}
			q.Sort = []Sort{"", SortPopularity, SortName, SortNameDesc, SortCreated, SortCreatedOld, SortUpdated, SortUpdatedOld}[rq.IntN(8)]
			switch rq.IntN(8) {
			case 0:
				q.Tags, q.LicenseTypes = []string{"a", "c"}, []string{"-cc-by-nc"}
			case 1:
				q.Kinds, q.GeometryTypes = []string{"raster", "layer"}, []string{"point"}
			case 2:
				q.Categories, q.GroupIDs = []string{"land"}, []int{1, 2}
			case 3:
				hz, pub := rq.IntN(2) == 0, rq.IntN(2) == 0
				q.HasZ, q.Public = &hz, &pub
			case 4:
				x, a := 0.7, time.UnixMicro(500e9)
				q.RasterResolutionGT, q.CreatedAfter = &x, &a
			case 5:
				q.Owner = &Owner{UserID: 2, GroupIDs: []int{3}}
			case 6:
				q.VersionStatuses, q.SourceTypes = []string{"draft", "published"}, []string{"upload"}
			}
			q.Offset = rq.IntN(3) * 7
			q.Facets = true
			compareWithScan(t, v, round, q)
		}
	}
	check("loaded")
	for i := range 300 {
		j := r.IntN(n)
		if i%10 == 0 {
			v.remove(int64(j + 1))
			delete(current, int64(j+1))
			continue
		}
		d := doc(j)
		d.Popularity, d.Title = int64(r.IntN(20)), pick(words...)+" changed"
		v.put(d)
		current[d.id] = d
		v.setGrants(permKey{"layer", r.IntN(n/2) + 1}, grantsOf())
	}
	check("changed")
	// The patched text index scores as one built from the final docs.
	fresh := newView()
	for i := range n {
		if d, ok := current[int64(i+1)]; ok {
			fresh.put(d)
		}
	}
	for _, w := range words {
		if a, b := textScores(v, w+" ro"), textScores(fresh, w+" ro"); !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: the patched index scores %d docs, a fresh one %d", w, len(a), len(b))
		}
	}
}

// textScores scores q's words over every doc of v, by index id.
func textScores(v *view, q string) map[int64]float32 {
	all := roaring.New()
	for s := range v.docs {
		if v.docs[s].id != 0 {
			all.Add(uint32(s))
		}
	}
	scores := make([]float32, len(v.docs))
	out := map[int64]float32{}
	v.text.match(v.text.queryWords(Terms(q)), all, scores).Iterate(func(x uint32) bool {
		out[v.docs[x].id] = scores[x]
		return true
	})
	return out
}

// compareWithScan evaluates q both ways, with every path forced.
func compareWithScan(t *testing.T, v *view, round string, q Query) {
	t.Helper()
	q, terms, err := q.normalized()
	if err != nil {
		t.Fatal(err)
	}
	keep := v.scanFilter(q, nil)
	var want []int32
	var scores, scores2 []float32
	r := v.match(q, nil)
	if len(terms) > 0 {
		all := roaring.New()
		for s := range v.docs {
			if v.docs[s].id != 0 {
				all.Add(uint32(s))
			}
		}
		scores, scores2 = make([]float32, len(v.docs)), make([]float32, len(v.docs))
		all = v.text.match(v.text.queryWords(terms), all, scores)
		all.Iterate(func(x uint32) bool { want = append(want, int32(x)); return true })
		r = v.text.match(v.text.queryWords(terms), r, scores2)
	} else {
		for s := range v.docs {
			if v.docs[s].id != 0 {
				want = append(want, int32(s))
			}
		}
	}
	want = slices.DeleteFunc(want, func(s int32) bool { return !keep(&v.docs[s]) })
	var got []int32
	r.Iterate(func(x uint32) bool { got = append(got, int32(x)); return true })
	if !slices.Equal(got, want) {
		t.Fatalf("%s: %+v: matched %d docs, the scan %d", round, q, len(got), len(want))
	}
	for _, s := range got {
		if scores != nil && scores[s] != scores2[s] {
			t.Fatalf("%s: %+v: slot %d scores %v, the scan %v", round, q, s, scores2[s], scores[s])
		}
	}
	if fb, fs := v.facetsByBitmap(r, 10), v.facetsByScan(want, 10); !reflect.DeepEqual(fb, fs) {
		t.Fatalf("%s: %+v: facets by bitmap\n%+v\nby scan\n%+v", round, q, fb, fs)
	}
	n := q.Offset + q.Limit + 1
	hs, hk := v.heapOrder(q.Sort, r, scores2, nil, n)
	o := orderOf(q.Sort)
	brute := slices.Clone(got)
	slices.SortFunc(brute, func(a, b int32) int { return o.compare(v.keyOf(q.Sort, a, scores2), v.keyOf(q.Sort, b, scores2)) })
	if !slices.Equal(brute[:min(n, len(brute))], hs) {
		t.Fatalf("%s: %+v: heap %v, sorted %v", round, q, hs, brute[:min(n, len(brute))])
	}
	if len(hk) > 2 {
		mid := len(hk) / 2
		after := hk[mid]
		got, _ := v.heapOrder(q.Sort, r, scores2, &after, n)
		i := slices.Index(brute, hs[mid]) + 1
		if want := brute[i:min(i+n, len(brute))]; !slices.Equal(got, want) {
			t.Fatalf("%s: %+v: after a cursor heap %v, sorted %v", round, q, got, want)
		}
	}
	if q.Sort != SortRelevance {
		ws, wk := v.walkOrder(q.Sort, r, nil, n)
		if ws != nil && (!slices.Equal(ws, hs) || !slices.Equal(wk, hk)) {
			t.Fatalf("%s: %+v: walked %v, heap %v", round, q, ws, hs)
		}
		if len(hk) > 2 {
			after := hk[len(hk)/2]
			ws, _ := v.walkOrder(q.Sort, r, &after, n)
			hs, _ := v.heapOrder(q.Sort, r, scores2, &after, n)
			if ws != nil && !slices.Equal(ws, hs) {
				t.Fatalf("%s: %+v: after a cursor walked %v, heap %v", round, q, ws, hs)
			}
		}
	}
}
