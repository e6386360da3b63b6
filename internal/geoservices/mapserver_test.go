package geoservices

import (
	"math"
	"strings"
	"testing"
)

// ArcGIS Online's Web Mercator levels, as its services list them.
func TestLODs(t *testing.T) {
	want := map[int][2]float64{
		0:  {156543.03392800014, 5.91657527591555e8},
		10: {152.87405657041106, 577790.554289},
		19: {0.29858214164761665, 1128.497176},
		22: {0.037322767705952, 141.062147},
	}
	lods := LODs(22)
	for z, w := range want {
		if l := lods[z]; l.Level != z || math.Abs(l.Resolution-w[0]) > 1e-9 || math.Abs(l.Scale-w[1]) > 1e-3 {
			t.Errorf("level %d: %+v, want %v", z, l, w)
		}
	}
	vt := VectorTileInfo(16)
	if vt.Rows != 512 || vt.LODs[0].Resolution != lods[1].Resolution || vt.LODs[16].Scale != lods[17].Scale {
		t.Errorf("vector tile scheme %+v", vt.LODs[0])
	}
}

func TestParseExport(t *testing.T) {
	params := func(q map[string]string) func(string) string { return func(k string) string { return q[k] } }
	e, err := ParseExport(params(map[string]string{"bbox": `{"xmin":170,"ymin":-45,"xmax":175,"ymax":-40,"spatialReference":{"wkid":4326}}`,
		"size": "800,600", "format": "png8", "transparent": "TRUE", "layers": "show:0, 2", "f": "image"}))
	if err != nil {
		t.Fatal(err)
	}
	// The envelope's spatial reference is the box's; imageSR follows it.
	if e.ImageSR != 4326 || e.Box != [4]float64{170, -45, 175, -40} || e.Width != 800 || e.Height != 600 || e.Format != "png" ||
		!e.Transparent || e.F != "image" || !e.Layers.Shows(2) || e.Layers.Shows(1) {
		t.Fatalf("%+v", e)
	}
	// A 4326 box asked in 3857 is projected.
	e, err = ParseExport(params(map[string]string{"bbox": "-180,0,180,85.0511287798066", "bboxSR": "4326", "imageSR": "102100"}))
	if err != nil || e.ImageSR != 3857 || math.Abs(e.Box[0]+mercatorHalf) > 1e-6 || math.Abs(e.Box[3]-mercatorHalf) > 1e-3 || e.F != "json" {
		t.Fatalf("%+v %v", e, err)
	}
	r := e.Result("http://x/export?f=image")
	if r.Extent.SpatialReference.WKID != 102100 || r.Width != 400 || r.Scale <= 0 {
		t.Fatalf("%+v", r)
	}
	for _, q := range []map[string]string{
		{"bbox": "1,2,3"}, {"bbox": "1,2,3,4", "bboxSR": "2193"}, {"bbox": "3,2,1,4"}, {"bbox": "1,2,3,4", "size": "0,10"},
		{"bbox": "1,2,3,4", "format": "tiff"}, {"bbox": "1,2,3,4", "layers": "top:1"}, {"bbox": "NaN,2,3,4"},
	} {
		if _, err := ParseExport(params(q)); err == nil || err.Code != 400 || strings.TrimSpace(err.Message) == "" {
			t.Errorf("%v: %v", q, err)
		}
	}
}
