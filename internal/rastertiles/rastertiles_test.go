package rastertiles

import (
	"encoding/xml"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"

	"github.com/geopub/geopub/internal/vectortiles"
)

// Style strings as DP sends them, and the mistakes refused.
func TestParseStyle(t *testing.T) {
	for s, want := range map[string]string{
		"": "", "auto": "", "style=auto": "", "style=42": "", "style=auto,color=ff0000": "ff0000ff",
		"color=#00FF0080": "00ff0080", "style=auto, color=0000ff": "0000ffff",
	} {
		st, err := ParseStyle(s)
		if err != nil || st.key() != want {
			t.Errorf("%q: %q %v, want %q", s, st.key(), err, want)
		}
	}
	for _, s := range []string{"color=red", "color=ff00", "fill=ff0000", "bogus"} {
		if _, err := ParseStyle(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// Tiles' Web Mercator boxes: zoom 0 is the world, zoom 1's first tile its
// north-west quarter.
func TestMercatorBox(t *testing.T) {
	if b := MercatorBox(vectortiles.Tile{}); b != [4]float64{-mercatorHalf, -mercatorHalf, mercatorHalf, mercatorHalf} {
		t.Fatalf("zoom 0: %v", b)
	}
	if b := MercatorBox(vectortiles.Tile{Z: 1}); b != [4]float64{-mercatorHalf, 0, 0, mercatorHalf} {
		t.Fatalf("1/0/0: %v", b)
	}
}

// The ramp runs from its first stop to its last, clamped beyond.
func TestRamp(t *testing.T) {
	if Ramp(-5, 0, 10) != rampStops[0] || Ramp(10, 0, 10) != rampStops[len(rampStops)-1] || Ramp(99, 0, 10) != rampStops[len(rampStops)-1] {
		t.Fatal("ramp ends")
	}
	if Ramp(5, 0, 10) != rampStops[2] {
		t.Fatalf("middle %v", Ramp(5, 0, 10))
	}
}

// A drawn MVT point is a disc of the colour; the rest stays transparent.
func TestDrawMVT(t *testing.T) {
	fc := geojson.NewFeatureCollection()
	fc.Append(geojson.NewFeature(orb.Point{2048, 2048}))
	fc.Append(geojson.NewFeature(orb.LineString{{0, 512}, {4096, 512}}))
	body, err := mvt.Marshal(mvt.Layers{mvt.NewLayer("layer-1", fc)})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, Size, Size))
	c := color.NRGBA{R: 200, G: 10, B: 10, A: 255}
	if err := drawMVT(img, body, c); err != nil {
		t.Fatal(err)
	}
	if got := img.NRGBAAt(128, 128); got != c {
		t.Fatalf("point: %v", got)
	}
	if got := img.NRGBAAt(100, 32); got.A < 200 {
		t.Fatalf("line: %v", got)
	}
	if got := img.NRGBAAt(128, 100); got.A != 0 {
		t.Fatalf("empty: %v", got)
	}
}

// The capabilities document is well-formed XML with a matrix per zoom.
func TestCapabilitiesDocument(t *testing.T) {
	src := &Source{Name: "layer-1", Title: "A & B", Bounds: [4]float64{170, -45, 175, -40}, MaxZoom: 3}
	body, err := Capabilities(src, WMTSLinks{Capabilities: "http://h/c.xml?key=a&b", KVP: "http://h/w?",
		Tile: map[Format]string{PNG: "http://h/{TileMatrix}/{TileCol}/{TileRow}.png?style={Style}"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Title    string    `xml:"Contents>Layer>Title"`
		Scales   []float64 `xml:"Contents>TileMatrixSet>TileMatrix>ScaleDenominator"`
		Resource struct {
			Template string `xml:"template,attr"`
		} `xml:"Contents>Layer>ResourceURL"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if doc.Title != "A & B" || len(doc.Scales) != 4 || math.Abs(doc.Scales[3]-scale0/8) > 1e-6 || !strings.Contains(doc.Resource.Template, "{Style}") {
		t.Fatalf("%+v", doc)
	}
}
