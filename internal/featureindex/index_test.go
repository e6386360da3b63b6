package featureindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Search finds exactly the items a brute-force scan finds, for trees of
// every depth, of points and boxes mixed and of points only (stored
// apart).
func TestSearchMatchesScan(t *testing.T) {
	t.Run("mixed", func(t *testing.T) { searchMatchesScan(t, false) })
	t.Run("points", func(t *testing.T) { searchMatchesScan(t, true) })
}

func searchMatchesScan(t *testing.T, pointsOnly bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	isPoint := func(fid int64) bool { return pointsOnly || fid%2 == 0 }
	for _, n := range []int{0, 1, 2, 15, 16, 17, 255, 256, 257, 5000} {
		var b Builder
		boxes := make([][4]float64, n)
		for i := range boxes {
			x, y := rng.Float64()*360-180, rng.Float64()*180-90
			w, h := 0.0, 0.0
			if !isPoint(int64(i)) {
				w, h = rng.Float64()*2, rng.Float64()*2
			}
			boxes[i] = [4]float64{x, y, x + w, y + h}
			var wkb []byte
			if !isPoint(int64(i)) {
				wkb = []byte{byte(i)}
			}
			b.Add(int64(i), boxes[i], isPoint(int64(i)), wkb, []byte(`{"i":1}`))
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
		if n > 0 {
			ext := boxes[0]
			for _, bb := range boxes {
				ext = [4]float64{min(ext[0], bb[0]), min(ext[1], bb[1]), max(ext[2], bb[2]), max(ext[3], bb[3])}
			}
			if x0, y0, x1, y1 := ix.Bounds(); [4]float64{x0, y0, x1, y1} != ext {
				t.Fatalf("n=%d: Bounds %v, want %v", n, [4]float64{x0, y0, x1, y1}, ext)
			}
		}
		// Items keep their own geometry and attributes through the sort.
		for i := 0; i < ix.Len(); i++ {
			fid := ix.FID(i)
			minx, miny, maxx, maxy := ix.Box(i)
			if [4]float64{minx, miny, maxx, maxy} != boxes[fid] || ix.IsPoint(i) != isPoint(fid) || string(ix.Attrs(i)) != `{"i":1}` {
				t.Fatalf("item %d (fid %d) mixed up", i, fid)
			}
			if wkb := ix.WKB(i); isPoint(fid) != (wkb == nil) || (wkb != nil && wkb[0] != byte(fid)) {
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
