package ogc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/geoservices"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/vectortiles"
	"github.com/geopub/geopub/web/mappreview"
)

const arcgisServices = "/services/arcgis/rest/services/"

// arcgisGet fetches a GeoServices URL with token= as Esri clients send
// it (no token when key is empty).
func arcgisGet(t *testing.T, e *env, path, key string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	if key != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "token=" + url.QueryEscape(key)
	}
	return fetch(t, e, path, header)
}

// esriError decodes a GeoServices error document and checks its status.
func esriError(t *testing.T, resp *http.Response, body []byte, status int) geoservices.Error {
	t.Helper()
	var doc struct {
		Error *geoservices.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Error == nil || resp.StatusCode != status {
		t.Fatalf("%s: want an error document with status %d, got %d %.200q", resp.Request.URL, status, resp.StatusCode, body)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("error content type %q", resp.Header.Get("Content-Type"))
	}
	return *doc.Error
}

func decodePNG(t *testing.T, resp *http.Response, body []byte, w, h int) image.Image {
	t.Helper()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("%s: %d %q %s", resp.Request.URL, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s: %v pixels, want %dx%d", resp.Request.URL, b, w, h)
	}
	return img
}

// squareCentre is the middle of a fixture square, inside its hole-free
// part (the first square's hole is its middle: its corner quarter then).
func squareCentre(f feature, first bool) (lon, lat float64) {
	c := f.g.FlatCoords()
	x0, y0, x1, y1 := c[0], c[1], c[4], c[5]
	if first {
		return x0 + (x1-x0)/8, y0 + (y1-y0)/8
	}
	return (x0 + x1) / 2, (y0 + y1) / 2
}

// inSquare reports whether lon, lat is inside (or within slack degrees
// of) any fixture square.
func inSquare(fs []feature, lon, lat, slack float64) bool {
	for _, f := range fs {
		c := f.g.FlatCoords()
		if lon >= c[0]-slack && lon <= c[4]+slack && lat >= c[1]-slack && lat <= c[5]+slack {
			return true
		}
	}
	return false
}

// The map service of a layer and of a set: the root document's tiling
// scheme and extent, tiles equal to the raster tile service's, export in
// 4326 and 3857 with the data where it lies, f=json's href, 304s.
func TestArcGISMapServer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		squares, points := randomSquares(2, 60), randomPoints(1, 50)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squares)
		pts := publishLayer(t, e, owner.User, "Points", "point", points)
		set := publishSet(t, e, owner.User, "Both", pts, sq)
		key := e.Token(t, owner.User, "wxs:wms tiles")

		// The root document.
		resp, body := arcgisGet(t, e, arcgisServices+"layer_"+itoa(sq)+"/MapServer?f=json", key, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Accepted-OAuth-Scopes") != "wxs:wms" {
			t.Fatalf("root: %d %v %s", resp.StatusCode, resp.Header, body)
		}
		var root geoservices.MapServer
		if err := json.Unmarshal(body, &root); err != nil {
			t.Fatal(err)
		}
		ti := root.TileInfo
		if root.MapName != "Squares" || len(root.Layers) != 1 || root.Layers[0].ID != 0 || root.Layers[0].GeometryType != "esriGeometryPolygon" ||
			root.Layers[0].ParentLayerID != -1 || root.Layers[0].SubLayerIDs != nil || !root.SingleFusedMapCache ||
			root.SpatialReference.WKID != 102100 || root.SpatialReference.LatestWKID != 3857 || root.Units != "esriMeters" ||
			root.Capabilities != "Map,Query" || root.MaxImageWidth != 4096 || root.ExportTilesAllowed ||
			ti.Rows != 256 || ti.Cols != 256 || ti.DPI != 96 || ti.Format != "PNG32" || ti.Origin.X != -20037508.342787 ||
			len(ti.LODs) != rastertiles.MaxZoom+1 || ti.LODs[0].Resolution != 156543.03392800014 ||
			math.Abs(ti.LODs[10].Scale-577790.554289) > 0.001 || math.Abs(ti.LODs[19].Resolution-0.29858214164761665) > 1e-9 {
			t.Fatalf("root: %s", body)
		}
		x0, y0 := rastertiles.ToMercator(west, south)
		x1, y1 := rastertiles.ToMercator(west+span, south+span*0.75)
		fe := root.FullExtent
		if fe.XMin < x0-1000 || fe.XMax > x1+1000 || fe.YMin < y0-1000 || fe.YMax > y1+1000 || fe.XMin > fe.XMax-1000 ||
			fe.SpatialReference.WKID != 102100 {
			t.Fatalf("full extent %+v, want within %v %v %v %v", fe, x0, y0, x1, y1)
		}
		// The set's: one map layer per member, named by its place.
		_, body = arcgisGet(t, e, arcgisServices+"set_"+itoa(set)+"/MapServer?f=pjson", key, nil)
		var sroot geoservices.MapServer
		if err := json.Unmarshal(body, &sroot); err != nil || !bytes.Contains(body, []byte("\n  ")) {
			t.Fatalf("set root: %v %s", err, body)
		}
		if len(sroot.Layers) != 2 || sroot.Layers[0].ID != 0 || sroot.Layers[0].GeometryType != "esriGeometryPoint" ||
			sroot.Layers[1].ID != 1 || sroot.Layers[1].Name != "Squares" {
			t.Fatalf("set layers %+v", sroot.Layers)
		}

		// Tiles: the raster tile service's, z/y/x.
		z := 13
		x, y := tileXY(west+span/2, south+span*0.375, z)
		tilePath := fmt.Sprintf("%slayer_%d/MapServer/tile/%d/%d/%d", arcgisServices, sq, z, y, x)
		resp, tile := arcgisGet(t, e, tilePath, key, nil)
		decodePNG(t, resp, tile, 256, 256)
		_, want := fetch(t, e, rasterPath("layer", sq, z, x, y, "png"), map[string]string{"Authorization": "key " + owner.Key})
		if !bytes.Equal(tile, want) {
			t.Fatal("the MapServer tile differs from the raster tile service's")
		}
		etag := resp.Header.Get("ETag")
		if r, b := arcgisGet(t, e, tilePath, key, map[string]string{"If-None-Match": etag}); etag == "" || r.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Fatalf("If-None-Match: %d", r.StatusCode)
		}
		// A tile far away is transparent, not missing.
		fx, fy := tileXY(0, 0, z)
		resp, body = arcgisGet(t, e, fmt.Sprintf("%sset_%d/MapServer/tile/%d/%d/%d", arcgisServices, set, z, fy, fx), key, nil)
		empty := decodePNG(t, resp, body, 256, 256)
		if _, _, _, a := empty.At(128, 128).RGBA(); a != 0 {
			t.Fatal("an empty tile is not transparent")
		}

		// export of the tile's box in 3857 at 256 pixels is the tile.
		mb := rastertiles.MercatorBox(vectortiles.Tile{Z: z, X: x, Y: y})
		q := fmt.Sprintf("?bbox=%s,%s,%s,%s&bboxSR=102100&size=256,256&transparent=true&f=image", ftoa(mb[0]), ftoa(mb[1]), ftoa(mb[2]), ftoa(mb[3]))
		resp, body = arcgisGet(t, e, arcgisServices+"layer_"+itoa(sq)+"/MapServer/export"+q, key, nil)
		exported := decodePNG(t, resp, body, 256, 256)
		tileImg, _ := png.Decode(bytes.NewReader(tile))
		diff := 0
		for py := 0; py < 256; py++ {
			for px := 0; px < 256; px++ {
				if !near(nrgba(exported.At(px, py)), nrgba(tileImg.At(px, py)), 2) {
					diff++
				}
			}
		}
		if diff > 0 {
			t.Fatalf("export of a tile's box differs from the tile in %d pixels", diff)
		}

		// export in 4326 and in 3857: the squares where they lie, nothing
		// elsewhere; a white background unless transparent.
		box := [4]float64{west - 0.02, south - 0.02, west + span + 0.02, south + span*0.75 + 0.02}
		fill := color.NRGBA{}
		for _, sr := range []int{4326, 3857} {
			b := box
			if sr == 3857 {
				b[0], b[1] = rastertiles.ToMercator(box[0], box[1])
				b[2], b[3] = rastertiles.ToMercator(box[2], box[3])
			}
			w, h := 600, 450
			q := fmt.Sprintf("?bbox=%s,%s,%s,%s&bboxSR=%d&imageSR=%d&size=%d,%d&format=png32&f=image&transparent=true",
				ftoa(b[0]), ftoa(b[1]), ftoa(b[2]), ftoa(b[3]), sr, sr, w, h)
			resp, body := arcgisGet(t, e, arcgisServices+"layer_"+itoa(sq)+"/MapServer/export"+q, key, nil)
			img := decodePNG(t, resp, body, w, h)
			at := func(lon, lat float64) color.NRGBA {
				px, py := (lon-box[0])/(box[2]-box[0])*float64(w), (box[3]-lat)/(box[3]-box[1])*float64(h)
				if sr == 3857 {
					mx, my := rastertiles.ToMercator(lon, lat)
					px, py = (mx-b[0])/(b[2]-b[0])*float64(w), (b[3]-my)/(b[3]-b[1])*float64(h)
				}
				return nrgba(img.At(int(px), int(py)))
			}
			for i, f := range squares {
				c := at(squareCentre(f, i == 0))
				if c.A < 100 {
					t.Fatalf("EPSG:%d: square %d not drawn: %v", sr, i, c)
				}
				if fill.A == 0 {
					fill = c
				}
			}
			empty := 0
			for lon := box[0]; lon < box[2]; lon += 0.004 {
				for lat := box[1]; lat < box[3]; lat += 0.004 {
					if inSquare(squares, lon, lat, 0.001) {
						continue
					}
					if c := at(lon, lat); c.A != 0 {
						t.Fatalf("EPSG:%d: something drawn at %g, %g where no square is: %v", sr, lon, lat, c)
					}
					empty++
				}
			}
			if empty < 100 {
				t.Fatalf("only %d empty points checked", empty)
			}
		}
		// Not transparent: white where nothing is.
		q = fmt.Sprintf("?bbox=%s,%s,%s,%s&bboxSR=4326&imageSR=4326&size=100,80&f=image", ftoa(box[0]), ftoa(box[1]), ftoa(box[2]), ftoa(box[3]))
		resp, body = arcgisGet(t, e, arcgisServices+"layer_"+itoa(sq)+"/MapServer/export"+q, key, nil)
		if c := nrgba(decodePNG(t, resp, body, 100, 80).At(0, 0)); c != (color.NRGBA{255, 255, 255, 255}) {
			t.Fatalf("background %v", c)
		}
		// layers=hide:1 leaves the set's squares out; show:1 keeps them.
		for _, c := range []struct {
			layers string
			drawn  bool
		}{{"hide:1", false}, {"show:1", true}, {"", true}} {
			lon, lat := squareCentre(squares[1], false)
			q := fmt.Sprintf("?bbox=%s,%s,%s,%s&bboxSR=4326&imageSR=4326&size=600,450&f=image&transparent=true&layers=%s",
				ftoa(box[0]), ftoa(box[1]), ftoa(box[2]), ftoa(box[3]), c.layers)
			resp, body := arcgisGet(t, e, arcgisServices+"set_"+itoa(set)+"/MapServer/export"+q, key, nil)
			img := decodePNG(t, resp, body, 600, 450)
			px := int((lon - box[0]) / (box[2] - box[0]) * 600)
			py := int((box[3] - lat) / (box[3] - box[1]) * 450)
			if a := nrgba(img.At(px, py)).A; (a > 0) != c.drawn && !inPoint(points, box, lon, lat) {
				t.Fatalf("layers=%q: alpha %d at a square", c.layers, a)
			}
		}

		// f=json: the picture's size, extent and scale, and its href.
		q = fmt.Sprintf("?bbox=%s&bboxSR=4326&imageSR=3857&size=300,200&f=json", url.QueryEscape(fmt.Sprintf(`{"xmin":%g,"ymin":%g,"xmax":%g,"ymax":%g}`, box[0], box[1], box[2], box[3])))
		resp, body = arcgisGet(t, e, arcgisServices+"layer_"+itoa(sq)+"/MapServer/export"+q, key, nil)
		var res geoservices.ExportResult
		if err := json.Unmarshal(body, &res); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("f=json: %d %s", resp.StatusCode, body)
		}
		if res.Width != 300 || res.Height != 200 || res.Extent.SpatialReference.WKID != 102100 || math.Abs(res.Extent.XMin-x0+(0.02*20037508.342789244/180)) > 1 ||
			res.Scale <= 0 || !strings.HasPrefix(res.Href, e.HTTP.URL+arcgisServices) || !strings.Contains(res.Href, "token=") {
			t.Fatalf("f=json: %s", body)
		}
		resp, body = fetch(t, e, strings.TrimPrefix(res.Href, e.HTTP.URL), nil)
		decodePNG(t, resp, body, 300, 200)
	})
}

// inPoint reports whether a fixture point's disc may cover lon, lat.
func inPoint(fs []feature, _ [4]float64, lon, lat float64) bool {
	for _, f := range fs {
		c := f.g.FlatCoords()
		if math.Abs(c[0]-lon) < 0.003 && math.Abs(c[1]-lat) < 0.003 {
			return true
		}
	}
	return false
}

// A raster layer's export is warped by GDAL onto the box, in either
// CRS: the cells' colours where they lie, transparent beyond the grid.
func TestArcGISExportGrid(t *testing.T) {
	_, rgb := writeGridFixtures(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publishGrid(t, e, owner.User, "Colours", layer.KindRaster, rgb)
		key := e.Token(t, owner.User, "wxs:wms")
		// A box wider than the grid by 10% each side.
		gw, gs, ge, gn := float64(gridWest), gridNorth-gridH*gridCell, gridWest+gridW*gridCell, float64(gridNorth)
		mx, my := (ge-gw)/10, (gn-gs)/10
		box := [4]float64{gw - mx, gs - my, ge + mx, gn + my}
		w, h := 480, 360
		for _, sr := range []int{4326, 3857} {
			b := box
			if sr == 3857 {
				b[0], b[1] = rastertiles.ToMercator(box[0], box[1])
				b[2], b[3] = rastertiles.ToMercator(box[2], box[3])
			}
			q := fmt.Sprintf("?bbox=%s,%s,%s,%s&bboxSR=%d&imageSR=%d&size=%d,%d&f=image&transparent=true", ftoa(b[0]), ftoa(b[1]), ftoa(b[2]), ftoa(b[3]), sr, sr, w, h)
			resp, body := arcgisGet(t, e, arcgisServices+"layer_"+itoa(id)+"/MapServer/export"+q, key, nil)
			img := decodePNG(t, resp, body, w, h)
			at := func(lon, lat float64) color.NRGBA {
				px, py := (lon-box[0])/(box[2]-box[0])*float64(w), (box[3]-lat)/(box[3]-box[1])*float64(h)
				if sr == 3857 {
					x, y := rastertiles.ToMercator(lon, lat)
					px, py = (x-b[0])/(b[2]-b[0])*float64(w), (b[3]-y)/(b[3]-b[1])*float64(h)
				}
				return nrgba(img.At(int(px), int(py)))
			}
			for _, cell := range [][2]int{{50, 40}, {200, 150}, {350, 260}} {
				lon, lat := gw+(float64(cell[0])+0.5)*gridCell, gn-(float64(cell[1])+0.5)*gridCell
				want := rgbOf(cell[0], cell[1])
				got := at(lon, lat)
				if !near(got, color.NRGBA{uint8(want[0]), uint8(want[1]), uint8(want[2]), 255}, 4) {
					t.Fatalf("EPSG:%d: cell %v is %v, want %v", sr, cell, got, want)
				}
			}
			if c := at(gw-mx/2, gn+my/2); c.A != 0 {
				t.Fatalf("EPSG:%d: drawn beyond the grid: %v", sr, c)
			}
		}
	})
}

// Bad requests are 400 with an Esri error naming what is accepted; an
// unknown service 404; never 500.
func TestArcGISMapServerBadRequests(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", randomSquares(2, 5))
		key := owner.Key
		base := arcgisServices + "layer_" + itoa(sq) + "/MapServer"
		ok := "bbox=174,-42,175,-41&bboxSR=4326"
		for _, c := range []struct{ path, want string }{
			{"/export?" + ok + "&size=5000,100&f=image", "4096"},
			{"/export?" + ok + "&size=100&f=image", "size"},
			{"/export?bbox=1,2&f=image", "bbox"},
			{"/export?bbox=3,0,1,1&f=image", "bbox"},
			{"/export?bbox=a,b,c,d&f=json", "bbox"},
			{"/export?f=image", "bbox"},
			{"/export?bbox=0,0,400,10&bboxSR=4326&f=image", "range"},
			{"/export?bbox=0,0,1e9,1e9&f=image", "range"},
			{"/export?bbox=174,-42,175,-41&bboxSR=2193&f=image", "4326"},
			{"/export?" + ok + "&imageSR=%7B%22wkid%22%3A2193%7D&f=image", "4326"},
			{"/export?bbox=174,-42,175,-41&bboxSR=%7Bx&f=image", "wkid"},
			{"/export?" + ok + "&format=gif&f=image", "png"},
			{"/export?" + ok + "&f=kmz", "image"},
			{"/export?" + ok + "&layers=foo&f=image", "show"},
			{"/export?" + ok + "&layers=show:a&f=image", "show"},
			{"/export?" + ok + "&dpi=-3&f=image", "dpi"},
			{"/export?" + ok + "&transparent=maybe&f=image", "true"},
			{"/export?bbox=0,86,1,89&bboxSR=4326&imageSR=3857&f=image", "box"},
			{"/tile/99/0/0", "zoom"},
			{"/tile/3/9/0", "range"},
			{"/tile/a/0/0", "z"},
			{"/tile/3/-1/0", "y"},
		} {
			resp, body := arcgisGet(t, e, base+c.path, key, nil)
			er := esriError(t, resp, body, http.StatusBadRequest)
			if er.Code != 400 || !strings.Contains(strings.ToLower(er.Message+strings.Join(er.Details, " ")), strings.ToLower(c.want)) {
				t.Errorf("%s: %+v, want a message naming %q", c.path, er, c.want)
			}
		}
		vts := arcgisServices + "layer_" + itoa(sq) + "/VectorTileServer/tile/"
		for _, p := range []string{"99/0/0.pbf", "3/0/9.pbf", "3/0/0.png"} {
			resp, body := arcgisGet(t, e, vts+p, key, nil)
			esriError(t, resp, body, http.StatusBadRequest)
		}
		for _, p := range []string{"layer_999999/MapServer", "foo/MapServer", "layer_01/MapServer", "set_999999/MapServer/tile/1/0/0",
			"set_1/VectorTileServer", "layer_999999/VectorTileServer/resources/styles/root.json"} {
			resp, body := arcgisGet(t, e, arcgisServices+p, key, nil)
			esriError(t, resp, body, http.StatusNotFound)
		}
	})
}

// The vector tile service: its document, the tile service's MVT bytes,
// and a root style in the map preview's colours with absolute URLs.
func TestArcGISVectorTileServer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", randomSquares(2, 60))
		key := e.Token(t, owner.User, "tiles")
		base := arcgisServices + "layer_" + itoa(sq) + "/VectorTileServer"
		resp, body := arcgisGet(t, e, base+"?f=json", key, nil)
		var doc geoservices.VectorTileServer
		if err := json.Unmarshal(body, &doc); err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Accepted-OAuth-Scopes") != "tiles" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if doc.Name != "Squares" || doc.Capabilities != "TilesOnly" || doc.Type != "indexedVector" || doc.DefaultStyles != "resources/styles" ||
			len(doc.Tiles) != 1 || doc.Tiles[0] != "tile/{z}/{y}/{x}.pbf" || doc.ExportTilesAllowed || doc.TileInfo.Format != "pbf" ||
			doc.TileInfo.Rows != 512 || doc.TileInfo.LODs[0].Resolution != 156543.03392800014/2 || doc.MaxZoom != vectortiles.TileJSONMaxZoom ||
			doc.FullExtent.SpatialReference.WKID != 102100 {
			t.Fatalf("document %s", body)
		}
		for _, z := range []int{0, 10, 13} {
			x, y := tileXY(west+span/2, south+span*0.375, z)
			resp, got := arcgisGet(t, e, fmt.Sprintf("%s/tile/%d/%d/%d.pbf", base, z, y, x), key, nil)
			_, want := fetch(t, e, tilePath("layer", sq, z, x, y), map[string]string{"Authorization": "key " + owner.Key})
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) || (z > 0 && len(got) == 0) {
				t.Fatalf("z%d: %d, %d bytes, want the tile service's %d", z, resp.StatusCode, len(got), len(want))
			}
			if r, _ := arcgisGet(t, e, fmt.Sprintf("%s/tile/%d/%d/%d.pbf", base, z, y, x), key, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); r.StatusCode != http.StatusNotModified {
				t.Fatalf("If-None-Match: %d", r.StatusCode)
			}
		}
		resp, body = arcgisGet(t, e, base+"/resources/styles/root.json", key, nil)
		var st geoservices.Style
		if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("style %d %s", resp.StatusCode, body)
		}
		src := st.Sources[geoservices.StyleSourceName]
		wantTiles := e.HTTP.URL + base + "/tile/{z}/{y}/{x}.pbf?token=" + url.QueryEscape(key)
		if st.Version != 8 || src.Type != "vector" || len(src.Tiles) != 1 || src.Tiles[0] != wantTiles || len(st.Layers) != 5 ||
			st.Layers[1]["source-layer"] != vectortiles.LayerName(sq) {
			t.Fatalf("style %s, want tiles %s", body, wantTiles)
		}
		// The style's colours are the map preview's.
		if geoservices.StyleBackground != mappreview.Background || geoservices.StyleFillColor != mappreview.FillColor ||
			geoservices.StyleFillOpacity != mappreview.FillOpacity || geoservices.StyleLineColor != mappreview.LineColor ||
			geoservices.StylePointColor != mappreview.PointColor {
			t.Fatal("the root style's colours are not the map preview's")
		}
	})
}

// Who may use the map services: the owner of a private layer with a
// token; anonymous callers get 401, others without permission 404, a
// token without the scope 401 naming it, all as Esri error documents; a public
// layer serves anonymous callers; tables have no map; with the site's
// esri_map setting off every MapServer route is 404.
func TestArcGISMapAccess(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		box := "bbox=173.9,-41.1,174.1,-40.9&bboxSR=4326&size=32,32"
		mapRoutes := []string{"/MapServer?f=json", "/MapServer/export?" + box + "&f=image", "/MapServer/export?" + box + "&f=json", "/MapServer/tile/1/1/1"}
		vtsRoutes := []string{"/VectorTileServer?f=json", "/VectorTileServer/tile/1/1/1.pbf", "/VectorTileServer/resources/styles/root.json"}
		all := append(append([]string{}, mapRoutes...), vtsRoutes...)
		private := arcgisServices + "layer_" + itoa(f.private)
		for _, p := range all {
			if resp, body := arcgisGet(t, e, private+p, f.owner.Key, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("owner %s: %d %s", p, resp.StatusCode, body)
			}
			resp, body := arcgisGet(t, e, private+p, "", nil)
			esriError(t, resp, body, http.StatusUnauthorized)
			resp, body = arcgisGet(t, e, private+p, f.reader.Key, nil)
			esriError(t, resp, body, http.StatusNotFound)
			resp, body = arcgisGet(t, e, private+p, f.noScope, nil)
			if er := esriError(t, resp, body, http.StatusUnauthorized); !strings.Contains(er.Message, "scope") {
				t.Fatalf("no scope %s: %+v", p, er)
			}
			// The key in the header works as on every service.
			if resp, body := fetch(t, e, private+p, map[string]string{"Authorization": "key " + f.owner.Key}); resp.StatusCode != http.StatusOK {
				t.Fatalf("header key %s: %d %s", p, resp.StatusCode, body)
			}
			// A public layer serves anonymous callers.
			if resp, body := arcgisGet(t, e, arcgisServices+"layer_"+itoa(f.points)+p, "", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("anonymous on a public layer %s: %d %s", p, resp.StatusCode, body)
			}
			// Tables have no map.
			resp, body = arcgisGet(t, e, arcgisServices+"layer_"+itoa(f.table)+p, f.owner.Key, nil)
			esriError(t, resp, body, http.StatusNotFound)
		}
		// A bad token is Esri's invalid token (498, as HTTP 401).
		resp, body := arcgisGet(t, e, private+"/MapServer?f=json", "not-a-key", nil)
		if er := esriError(t, resp, body, http.StatusUnauthorized); er.Code != geoservices.CodeInvalidToken {
			t.Fatalf("bad token: %+v", er)
		}

		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		put := e.Do(t, servertest.Request{Method: http.MethodPut, Path: "/site/settings/", Key: admin.Key, Body: `{"esri_map": false}`})
		if put.Status != http.StatusOK {
			t.Fatalf("turning esri_map off: %d %s", put.Status, put.Body)
		}
		waitFresh()
		for _, p := range mapRoutes {
			resp, body := arcgisGet(t, e, private+p, f.owner.Key, nil)
			esriError(t, resp, body, http.StatusNotFound)
		}
		for _, p := range vtsRoutes {
			if resp, body := arcgisGet(t, e, private+p, f.owner.Key, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("vector tiles with esri_map off %s: %d %s", p, resp.StatusCode, body)
			}
		}
	})
}
