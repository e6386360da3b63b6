package vectortiles

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
)

// layerWriter's tiles are byte for byte orb's mvt.Marshal of the same
// features: every geometry type fit returns, open and closed rings,
// negative and huge ids, shared and new keys and values of every kind,
// features without attributes.
func TestLayerWriterMatchesOrb(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	pt := func() orb.Point { return orb.Point{float64(rng.IntN(4224) - 64), float64(rng.IntN(4224) - 64)} }
	ring := func(closed bool) orb.Ring {
		r := orb.Ring{pt(), pt(), pt(), pt()}
		if closed {
			r = append(r, r[0])
		}
		return r
	}
	geoms := []orb.Geometry{
		pt(), orb.MultiPoint{pt(), pt(), pt()},
		orb.LineString{pt(), pt(), pt()}, orb.MultiLineString{{pt(), pt()}, {pt(), pt(), pt()}},
		orb.Polygon{ring(true), ring(true)}, orb.Polygon{ring(false)},
		orb.MultiPolygon{{ring(true)}, {ring(true), ring(false)}},
	}
	attrs := []string{
		`{"name":"a","rank":3,"f":1.5,"ok":true}`,
		`{"rank":3,"name":"b","neg":-7,"no":false,"gone":null}`,
		`{}`,
		`{"big":12345678901234,"e":-2e3,"name":"a","u":"ü ☃"}`,
		`{"esc":"a\"b","nested":{"a":[1,2]},"rank":4}`,
	}
	for _, n := range []int{1, 2, 7, 200} {
		var fs []*geojson.Feature
		w := newLayerWriter()
		for i := range n {
			g := geoms[i%len(geoms)]
			fid := int64(i*37) - 5
			if i == 3 {
				fid = 1 << 40
			}
			a := []byte(attrs[i%len(attrs)])
			props, err := decodeProperties(a)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, &geojson.Feature{ID: fid, Geometry: g, Properties: props})
			if w.pairs, err = attrPairs(a, w.pairs[:0]); err != nil {
				t.Fatal(err)
			}
			w.add(fid, g, w.pairs)
		}
		want, err := mvt.Marshal(mvt.Layers{{Name: "layer-12", Version: 2, Extent: Extent, Features: fs}})
		if err != nil {
			t.Fatal(err)
		}
		if got := w.bytes("layer-12"); !bytes.Equal(got, want) {
			t.Fatalf("%d features: %d bytes, orb %d:\n% x\n% x", n, len(got), len(want), got, want)
		}
	}
	if newLayerWriter().bytes("empty") != nil {
		t.Fatal("a layer without features is not nil")
	}
}
