package gdal_test

import (
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/airbusgeo/godal"
	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/gdal"
)

// pointRecord is a batch record of a point with an integer and a text.
func pointRecord(t *testing.T, x, y float64, n int64, s string) []byte {
	t.Helper()
	g, err := wkb.Marshal(geom.NewPointFlat(geom.XY, []float64{x, y}), binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	b := binary.LittleEndian.AppendUint32(nil, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(g)))
	for _, v := range []float64{x, y, x, y} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = append(b, g...)
	b = binary.LittleEndian.AppendUint64(append(b, 1), uint64(n))
	b = append(append(binary.LittleEndian.AppendUint32(append(b, 3), uint32(len(s))), s...), 0)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// Rows are clipped to the clip area and reprojected as they are written;
// a part ends after PartFeatures features.
func TestVectorWriter(t *testing.T) {
	clip := squareWKB(t, 174, -42, 176, -40)
	c, err := gdal.NewClip(clip, 2193)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if e := c.Envelope(); e != [4]float64{174, -42, 176, -40} {
		t.Errorf("Envelope = %v", e)
	}
	p := filepath.Join(t.TempDir(), "w.geojson")
	w, err := gdal.OpenVectorWriter(gdal.VectorLayer{Driver: "GeoJSON", Path: p, Layer: "w", GeomType: gdal.GeomPoint,
		Names: []string{"n", "s"}, Types: []int{1, 3}, Booleans: []bool{false, false}, PartFeatures: 1}, c)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, r := range [][]byte{pointRecord(t, 170, -41, 1, "out"), pointRecord(t, 175, -41, 2, "in"), pointRecord(t, 175.5, -41, 3, "next")} {
		buf = append(buf, r...)
	}
	off := 0
	if n, err := w.Write(c, buf, &off); n != 1 || !errors.Is(err, gdal.ErrPartFull) || off != len(buf)-len(pointRecord(t, 175.5, -41, 3, "next")) {
		t.Errorf("Write = %d, %v, offset %d", n, err, off)
	}
	if err := w.Close(false); err != nil {
		t.Fatal(err)
	}
	ds, err := godal.Open(p, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	f, err := gdal.NextFeature(ds.Layers()[0])
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	defer f.Close()
	if e := f.Geometry().Env; f.Int64(0) != 2 || f.Text(1) != "in" || e[0] < 1e6 || e[1] < 5e6 {
		t.Errorf("feature %d %q at %v; want 2, in, in NZTM", f.Int64(0), f.Text(1), e)
	}
	if _, err := gdal.NewClip(nil, 999999); err == nil || err.Error() != "unknown CRS EPSG:999999" {
		t.Errorf("NewClip(999999) = %v", err)
	}
}
