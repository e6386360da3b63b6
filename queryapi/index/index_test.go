package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Search finds exactly the items a brute-force scan finds, for trees of
// every depth.
func TestSearchMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 255, 256, 257, 5000} {
		var b Builder
		boxes := make([][4]float64, n)
		for i := range boxes {
			x, y := rng.Float64()*360-180, rng.Float64()*180-90
			w, h := rng.Float64()*2*float64(i%2), rng.Float64()*2*float64(i%2)
			boxes[i] = [4]float64{x, y, x + w, y + h}
			b.Add(int64(i), boxes[i], i%2 == 0, []byte{byte(i)}, []byte(`{"i":1}`))
		}
		ix := b.Build()
		if ix.Len() != n {
			t.Fatalf("n=%d: Len %d", n, ix.Len())
		}
		for q := 0; q < 50; q++ {
			x, y := rng.Float64()*360-180, rng.Float64()*180-90
			qb := [4]float64{x, y, x + rng.Float64()*30, y + rng.Float64()*30}
			var got, want []int64
			ix.Search(qb[0], qb[1], qb[2], qb[3], func(i int) bool {
				got = append(got, ix.FID(i))
				return true
			})
			for i, bb := range boxes {
				if !(bb[2] < qb[0] || bb[3] < qb[1] || bb[0] > qb[2] || bb[1] > qb[3]) {
					want = append(want, int64(i))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d query %v: got %v, want %v", n, qb, got, want)
			}
		}
		// Items keep their own geometry and attributes through the sort.
		for i := 0; i < ix.Len(); i++ {
			fid := ix.FID(i)
			minx, miny, _, _ := ix.Box(i)
			if minx != boxes[fid][0] || miny != boxes[fid][1] || ix.IsPoint(i) != (fid%2 == 0) || string(ix.Attrs(i)) != `{"i":1}` {
				t.Fatalf("item %d (fid %d) mixed up", i, fid)
			}
			if wkb := ix.WKB(i); (fid%2 == 0) != (wkb == nil) || (wkb != nil && wkb[0] != byte(fid)) {
				t.Fatalf("item %d (fid %d) geometry %v", i, fid, wkb)
			}
		}
	}
}

func TestSearchStops(t *testing.T) {
	var b Builder
	for i := range 100 {
		b.Add(int64(i), [4]float64{0, 0, 1, 1}, true, nil, nil)
	}
	ix := b.Build()
	calls := 0
	ix.Search(0, 0, 1, 1, func(int) bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Fatalf("calls %d", calls)
	}
}
