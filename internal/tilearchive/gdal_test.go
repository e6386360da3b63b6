package tilearchive

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/airbusgeo/godal"
	"github.com/paulmach/orb/encoding/mvt"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func init() { gdal.Init() }

// mercator is lon, lat in EPSG:3857 metres.
func mercator(lon, lat float64) (float64, float64) {
	const r = 6378137.0
	return lon * math.Pi / 180 * r, math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * r
}

// GDAL's MBTiles driver opens a vector archive of the real vector tile
// service's MVT (both stores): its metadata, the layer the tiles hold, at
// every zoom as many features as the source's tiles of that zoom hold,
// and their extent within the data's box.
func TestMBTilesVectorReadByGDAL(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		box := storeLayer(t, st, 3000)
		rec := record(mvtSource(st))
		path := filepath.Join(t.TempDir(), "v.mbtiles")
		vl := []any{map[string]any{"id": "layer-1", "fields": map[string]string{"n": "Number", "name": "String"}}}
		stats, err := WriteMBTiles(context.Background(), path, rec, Options{MinZoom: 0, MaxZoom: 12, Bounds: box, Type: TypeMVT,
			Name: "points", Metadata: map[string]any{"vector_layers": vl}})
		if err != nil {
			t.Fatal(err)
		}
		perZoom := map[int]int{}
		for k, b := range rec.tiles {
			if len(b) == 0 {
				continue
			}
			var z int
			for i := range k {
				if k[i] == '/' {
					z, _ = strconv.Atoi(k[:i])
					break
				}
			}
			ls, err := mvt.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range ls {
				perZoom[z] += len(l.Features)
			}
		}
		for _, z := range []int{0, 6, 12} {
			ds, err := godal.Open(path, godal.VectorOnly(), godal.DriverOpenOption("ZOOM_LEVEL="+strconv.Itoa(z), "CLIP=NO"))
			if err != nil {
				t.Fatalf("GDAL cannot open the MBTiles: %v", err)
			}
			if d := ds.Driver().ShortName(); d != "MBTiles" {
				t.Fatalf("opened by %s", d)
			}
			if md := ds.Metadatas(); md["name"] != "points" || md["format"] != "pbf" || md["maxzoom"] != "12" {
				t.Fatalf("metadata %v", md)
			}
			ls := ds.Layers()
			if len(ls) != 1 || ls[0].Name() != "layer-1" {
				t.Fatalf("%d layers", len(ls))
			}
			n, err := ls[0].FeatureCount()
			if err != nil {
				t.Fatal(err)
			}
			if n != perZoom[z] || (z == 12 && n < 3300) {
				t.Fatalf("zoom %d: GDAL reads %d features, the tiles hold %d (3,300 stored)", z, n, perZoom[z])
			}
			if z == 12 {
				b, err := ls[0].Bounds()
				if err != nil {
					t.Fatal(err)
				}
				x0, y0 := mercator(box[0], box[1])
				x1, y1 := mercator(box[2], box[3])
				const slack = 40 // metres: a grid unit at zoom 12 is 2.4 m
				if math.Abs(b[0]-x0) > slack || math.Abs(b[1]-y0) > slack || math.Abs(b[2]-x1) > slack || math.Abs(b[3]-y1) > slack {
					t.Fatalf("extent %v, want about %v", b, [4]float64{x0, y0, x1, y1})
				}
			}
			ds.Close()
		}
		if stats.Tiles < 40 {
			t.Fatalf("only %d tiles", stats.Tiles)
		}
	})
}

// GDAL's MBTiles driver opens a raster archive of PNG tiles: its size and
// bounds at the deepest zoom, one overview per shallower zoom, and the
// colour each tile was drawn in.
func TestMBTilesRasterReadByGDAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.mbtiles")
	o := Options{MinZoom: 2, MaxZoom: 10, Bounds: wellington, Type: TypePNG, Name: "raster"}
	if _, err := WriteMBTiles(context.Background(), path, pngSource(wellington), o); err != nil {
		t.Fatal(err)
	}
	ds, err := godal.Open(path, godal.RasterOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open the MBTiles: %v", err)
	}
	defer ds.Close()
	if d := ds.Driver().ShortName(); d != "MBTiles" {
		t.Fatalf("opened by %s", d)
	}
	gt, err := ds.GeoTransform()
	if err != nil {
		t.Fatal(err)
	}
	res := 2 * math.Pi * 6378137 / 256 / (1 << 10)
	if math.Abs(gt[1]-res) > 1e-6 {
		t.Fatalf("pixel size %v, want zoom 10's %v", gt[1], res)
	}
	x0, y0 := mercator(wellington[0], wellington[1])
	x1, y1 := mercator(wellington[2], wellington[3])
	s := ds.Structure()
	got := [4]float64{gt[0], gt[3] + float64(s.SizeY)*gt[5], gt[0] + float64(s.SizeX)*gt[1], gt[3]}
	for i, want := range []float64{x0, y0, x1, y1} {
		if math.Abs(got[i]-want) > res {
			t.Fatalf("bounds %v, want %v within a pixel", got, []float64{x0, y0, x1, y1})
		}
	}
	if s.NBands != 4 {
		t.Fatalf("%d bands", s.NBands)
	}
	if n := len(ds.Bands()[0].Overviews()); n < 1 {
		t.Fatalf("%d overviews", n)
	}
	// Pixels read through GDAL are those drawn for their tile: the tile's
	// colour on the checkerboard's dark squares, transparent elsewhere,
	// and nothing under the zoom-8 tiles left empty.
	const world = 2 * math.Pi * 6378137
	n := float64(int(1) << 10)
	checked := 0
	for _, f := range [][2]float64{{0.3, 0.4}, {0.5, 0.5}, {0.71, 0.22}, {0.9, 0.83}} {
		col, row := int(f[0]*float64(s.SizeX)), int(f[1]*float64(s.SizeY))
		mx := gt[0] + (float64(col)+0.5)*gt[1]
		my := gt[3] + (float64(row)+0.5)*gt[5]
		gx, gy := (mx+world/2)/world*n, (world/2-my)/world*n
		tx, ty := int(gx), int(gy)
		i, j := int((gx-float64(tx))*256), int((gy-float64(ty))*256)
		var want [4]uint8
		if tx/4%2 == 0 && (i/32+j/32)%2 == 0 {
			want = [4]uint8{200, uint8(tx), uint8(ty), 255}
			checked++
		}
		var got [4]uint8
		for b := range 4 {
			buf := make([]uint8, 1)
			if err := ds.Bands()[b].Read(col, row, buf, 1, 1); err != nil {
				t.Fatal(err)
			}
			got[b] = buf[0]
		}
		if got != want && !(want[3] == 0 && got[3] == 0) {
			t.Fatalf("pixel %d,%d in tile 10/%d/%d: %v, want %v", col, row, tx, ty, got, want)
		}
	}
	if checked == 0 {
		t.Fatal("no coloured pixel checked")
	}
}
