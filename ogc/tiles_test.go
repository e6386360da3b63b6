package ogc_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent/layer"
)

// The test tiles: around a point inside the fixture box.
const tLon, tLat = west + 0.05, south + 0.03

func tilePath(kind string, id, z, x, y int) string {
	return fmt.Sprintf("/services/tiles/v1/%s=%d/%d/%d/%d.pbf", kind, id, z, x, y)
}

// expectedRange counts the fixtures that must be in tile z/x/y (their box
// meets the tile grown by the buffer less slack units) and those that may
// be (grown by the buffer plus slack): snapping decides at the border.
func expectedRange(fs []feature, z, x, y int, slack float64) (must, may int) {
	for _, f := range fs {
		b := gridBox(f.g, z, x, y)
		if b[0] <= 4096+64-slack && b[2] >= -64+slack && b[1] <= 4096+64-slack && b[3] >= -64+slack {
			must++
		}
		if b[0] <= 4096+64+slack && b[2] >= -64-slack && b[1] <= 4096+64+slack && b[3] >= -64-slack {
			may++
		}
	}
	return must, may
}

// gridBox is a geometry's box on tile z/x/y's grid (y down).
func gridBox(g geom.T, z, x, y int) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	c := g.FlatCoords()
	for i := 0; i+1 < len(c); i += g.Stride() {
		gx, gy := gridOf(c[i], c[i+1], z, x, y)
		b = [4]float64{math.Min(b[0], gx), math.Min(b[1], gy), math.Max(b[2], gx), math.Max(b[3], gy)}
	}
	return b
}

// checkTile decodes a layer's tile and compares it with the fixtures: the
// count of features meeting the buffered tile, their attributes, and
// their positions on the grid (within a unit for points, within the
// buffered tile for polygons).
func checkTile(t *testing.T, body []byte, layerName string, fs []feature, z, x, y int) int {
	t.Helper()
	got := decodeTile(t, body)[layerName]
	must, may := expectedRange(fs, z, x, y, 2)
	if len(got) < must || len(got) > may || len(got) == 0 {
		t.Fatalf("tile %d/%d/%d of %s: %d features, want %d to %d", z, x, y, layerName, len(got), must, may)
	}
	byFID := map[int64]feature{}
	for _, f := range fs {
		byFID[f.fid] = f
	}
	for _, d := range got {
		f, ok := byFID[d.fid]
		if !ok || d.name != f.attrs["name"] || d.rank != f.attrs["rank"] {
			t.Fatalf("feature %+v does not match its fixture %+v", d, f.attrs)
		}
		want := gridBox(f.g, z, x, y)
		switch f.g.(type) {
		case *geom.Point:
			if d.typ != "POINT" || math.Abs(d.box[0]-want[0]) > 1 || math.Abs(d.box[1]-want[1]) > 1 {
				t.Fatalf("point %d at %v on the grid, want %v", d.fid, d.box, want)
			}
		default:
			if (d.typ != "POLYGON" && d.typ != "MULTIPOLYGON") || d.box[0] < want[0]-1 || d.box[2] > want[2]+1 || d.box[1] < want[1]-1 || d.box[3] > want[3]+1 ||
				d.box[0] < -65 || d.box[2] > 4096+65 || d.box[1] < -65 || d.box[3] > 4096+65 {
				t.Fatalf("polygon %d (%s) at %v on the grid, want within %v and the buffered tile", d.fid, d.typ, d.box, want)
			}
			// The first square has a hole of a quarter of its area.
			full := (d.box[2] - d.box[0]) * (d.box[3] - d.box[1])
			if d.fid == 1001 && want[0] > 0 && want[2] < 4096 && want[1] > 0 && want[3] < 4096 && math.Abs(d.area/full-0.75) > 0.1 {
				t.Fatalf("square with a hole: area %v of %v", d.area, full)
			}
		}
	}
	return len(got)
}

// Issue 16, vector tiles: a published layer of points and one of polygons
// give tiles at several zooms that GDAL decodes to the features meeting
// each tile, attributes preserved, geometry on the tile grid; gzip when
// asked; ETag and 304; an empty tile is a 200 of zero bytes.
func TestVectorTiles(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		points, squares := randomPoints(1, 300), randomSquares(2, 100)
		pts := publishLayer(t, e, owner.User, "Points", "point", points)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squares)
		for _, z := range []int{10, 13, 15} {
			x, y := tileXY(tLon, tLat, z)
			for _, c := range []struct {
				id int
				fs []feature
			}{{pts, points}, {sq, squares}} {
				resp, body := fetch(t, e, tilePath("layer", c.id, z, x, y), nil)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
					t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
				}
				checkTile(t, body, fmt.Sprintf("layer-%d", c.id), c.fs, z, x, y)
			}
		}

		// gzip when accepted, the same tile inside; its own ETag.
		x, y := tileXY(tLon, tLat, 13)
		path := tilePath("layer", pts, 13, x, y)
		plain, body := fetch(t, e, path, nil)
		gz, zipped := fetch(t, e, path, map[string]string{"Accept-Encoding": "gzip"})
		if gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("ETag") == plain.Header.Get("ETag") || !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("gzip headers %v", gz.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, body) {
			t.Fatalf("gzipped tile differs: %v", err)
		}
		// ETag and If-None-Match.
		etag := plain.Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || plain.Header.Get("Cache-Control") == "" {
			t.Fatalf("validators %v", plain.Header)
		}
		if resp, b := fetch(t, e, path, map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Fatalf("If-None-Match: %d", resp.StatusCode)
		}
		if resp, _ := fetch(t, e, path, map[string]string{"If-None-Match": `"other"`}); resp.StatusCode != http.StatusOK {
			t.Fatalf("other ETag: %d", resp.StatusCode)
		}
		// Any origin may read tiles; preflights are answered.
		if plain.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("CORS %v", plain.Header)
		}
		pre, err := http.NewRequest(http.MethodOptions, e.HTTP.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		pre.Header.Set("Origin", "https://maps.example.com")
		pre.Header.Set("Access-Control-Request-Method", "GET")
		pre.Header.Set("Access-Control-Request-Headers", "authorization")
		presp, err := http.DefaultClient.Do(pre)
		if err != nil {
			t.Fatal(err)
		}
		presp.Body.Close()
		if presp.StatusCode != http.StatusNoContent || !strings.Contains(presp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Fatalf("preflight %d %v", presp.StatusCode, presp.Header)
		}
		// HEAD: the headers alone.
		head, err := http.Head(e.HTTP.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		if head.StatusCode != http.StatusOK || head.Header.Get("ETag") != etag || head.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
			t.Fatalf("HEAD: %d %v", head.StatusCode, head.Header)
		}
		// .mvt is the same tile.
		if resp, b := fetch(t, e, strings.TrimSuffix(path, ".pbf")+".mvt", nil); resp.StatusCode != http.StatusOK || !bytes.Equal(b, body) {
			t.Fatalf(".mvt: %d", resp.StatusCode)
		}
		// A tile far from the data is empty: a 200 of zero bytes, typed
		// and cached as other tiles (GDAL refuses a 204).
		fx, fy := tileXY(0, 0, 13)
		if resp, b := fetch(t, e, tilePath("layer", pts, 13, fx, fy), nil); resp.StatusCode != http.StatusOK || len(b) != 0 ||
			resp.Header.Get("ETag") == "" || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" ||
			resp.Header.Get("Cache-Control") != plain.Header.Get("Cache-Control") || resp.Header.Get("Content-Length") != "0" {
			t.Fatalf("empty tile: %d %v %s", resp.StatusCode, resp.Header, b)
		}
		// The whole world at zoom 0 holds every point, while the squares
		// are far smaller than a grid unit there: dropped, an empty tile.
		_, world := fetch(t, e, tilePath("layer", pts, 0, 0, 0), nil)
		if n := len(decodeTile(t, world)[fmt.Sprintf("layer-%d", pts)]); n != len(points) {
			t.Fatalf("zoom 0: %d points, want %d", n, len(points))
		}
		if resp, b := fetch(t, e, tilePath("layer", sq, 0, 0, 0), nil); resp.StatusCode != http.StatusOK || len(b) != 0 {
			t.Fatalf("zoom 0 squares: %d %d bytes", resp.StatusCode, len(b))
		}
	})
}

// Bad tile addresses are 400 with a message; unknown owners 404.
func TestVectorTileBadRequests(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		pts := publishLayer(t, e, owner.User, "Points", "point", randomPoints(1, 10))
		table := publishLayer(t, e, owner.User, "Table", "", []feature{{1, nil, map[string]any{"name": "row", "rank": int64(1)}}})
		if err := e.Store.Client.Layer.UpdateOneID(table).SetType(layer.TypeTable).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		base := fmt.Sprintf("/services/tiles/v1/layer=%d/", pts)
		for path, want := range map[string]int{
			base + "25/0/0.pbf":                      http.StatusBadRequest,
			base + "2/4/0.pbf":                       http.StatusBadRequest,
			base + "2/0/4.pbf":                       http.StatusBadRequest,
			base + "a/0/0.pbf":                       http.StatusBadRequest,
			base + "1/-1/0.pbf":                      http.StatusBadRequest,
			base + "1/0/0.gif":                       http.StatusBadRequest,
			base + "1/0/0":                           http.StatusBadRequest,
			base + "99999999999/0/0.pbf":             http.StatusBadRequest,
			"/services/tiles/v1/layer=abc/0/0/0.pbf": http.StatusNotFound,
			"/services/tiles/v1/roads=1/0/0/0.pbf":   http.StatusNotFound,
			"/services/tiles/v1/layer=99999/0/0/0.pbf?key=" + owner.Key:                   http.StatusNotFound,
			"/services/tiles/v1/set=99999/tile.json?key=" + owner.Key:                     http.StatusNotFound,
			fmt.Sprintf("/services/tiles/v1/layer=%d/0/0/0.pbf?key=%s", table, owner.Key): http.StatusNotFound,
			fmt.Sprintf("/services/tiles/v1/layer=%d/tile.json?key=%s", table, owner.Key): http.StatusNotFound,
		} {
			resp, body := fetch(t, e, path, nil)
			var msg struct{ Detail string }
			if resp.StatusCode != want || json.Unmarshal(body, &msg) != nil || msg.Detail == "" {
				t.Fatalf("%s: %d %s, want %d with a message", path, resp.StatusCode, body, want)
			}
		}
	})
}
