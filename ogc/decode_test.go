package ogc_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

func init() { gdal.Init() }

// decoded is one feature of a tile as GDAL's MVT driver reads it.
type decoded struct {
	layer string
	fid   int64
	name  string
	rank  int64
	typ   string
	area  float64
	// box is the feature's bounds on the tile grid, y down (GDAL gives y
	// up: extent minus y).
	box [4]float64
}

// decodeTile reads an MVT with GDAL (unclipped, so the buffer's features
// are seen too) and returns its features by layer name.
func decodeTile(t testing.TB, body []byte) map[string][]decoded {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tile.pbf")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := godal.Open(path, godal.VectorOnly(), godal.DriverOpenOption("CLIP=NO"))
	if err != nil {
		t.Fatalf("GDAL cannot open the tile: %v", err)
	}
	defer ds.Close()
	out := map[string][]decoded{}
	for _, l := range ds.Layers() {
		for {
			f := l.NextFeature()
			if f == nil {
				break
			}
			d := decoded{layer: l.Name()}
			fs := f.Fields()
			d.fid = fs["mvt_id"].Int()
			d.name = fs["name"].String()
			d.rank = fs["rank"].Int()
			g := f.Geometry()
			d.typ = g.Name()
			d.area = g.Area()
			b, err := g.Bounds()
			if err != nil {
				t.Fatal(err)
			}
			d.box = [4]float64{b[0], 4096 - b[3], b[2], 4096 - b[1]}
			g.Close()
			f.Close()
			out[d.layer] = append(out[d.layer], d)
		}
		sort.Slice(out[l.Name()], func(i, j int) bool { return out[l.Name()][i].fid < out[l.Name()][j].fid })
	}
	return out
}
