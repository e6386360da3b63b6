package ogc_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// pixelOf is a longitude, latitude's pixel on tile z/x/y.
func pixelOf(lon, lat float64, z, x, y int) (float64, float64) {
	gx, gy := gridOf(lon, lat, z, x, y)
	return gx / 16, gy / 16
}

// A vector layer's raster tile has the style's colour where its features
// are and nothing elsewhere: discs on points, filled squares; a set's tile
// draws its members in order over a raster layer.
func TestRasterTilesOfVectors(t *testing.T) {
	_, rgbSrc := writeGridFixtures(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		pointsFs, squaresFs := randomPoints(4, 300), randomSquares(5, 150)
		pts := publishLayer(t, e, owner.User, "Points", "point", pointsFs)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squaresFs)
		z := 14
		x, y := tileXY(tLon, tLat, z)
		red := color.NRGBA{R: 255, A: 255}

		img := getImage(t, e, rasterPath("layer", pts, z, x, y, "png")+"?style=style%3Dauto%2Ccolor%3Dff0000", nil)
		var on, off int
		for _, f := range pointsFs {
			c := f.g.FlatCoords()
			px, py := pixelOf(c[0], c[1], z, x, y)
			if px < 1 || py < 1 || px > 255 || py > 255 {
				continue
			}
			on++
			if got := nrgba(img.At(int(px), int(py))); !near(got, red, 30) {
				t.Fatalf("point %d at pixel %.1f,%.1f: %v", f.fid, px, py, got)
			}
		}
		for py := 0; py < 256; py += 3 {
			for px := 0; px < 256; px += 3 {
				far := true
				for _, f := range pointsFs {
					c := f.g.FlatCoords()
					fx, fy := pixelOf(c[0], c[1], z, x, y)
					if math.Hypot(fx-float64(px)-0.5, fy-float64(py)-0.5) < 6 {
						far = false
						break
					}
				}
				if far {
					off++
					if got := nrgba(img.At(px, py)); got.A != 0 {
						t.Fatalf("pixel %d,%d far from every point: %v", px, py, got)
					}
				}
			}
		}
		if on < 10 || off < 1000 {
			t.Fatalf("%d points and %d empty pixels checked", on, off)
		}

		// Squares in their default colour: filled half-transparent inside,
		// nothing far outside.
		img = getImage(t, e, rasterPath("layer", sq, z, x, y, "png"), nil)
		inside := 0
		for _, f := range squaresFs {
			b := f.g.Bounds()
			px0, py1 := pixelOf(b.Min(0), b.Min(1), z, x, y)
			px1, py0 := pixelOf(b.Max(0), b.Max(1), z, x, y)
			cx, cy := (px0+px1)/2, (py0+py1)/2
			if f.fid == 1001 || cx < 0 || cy < 0 || cx > 255 || cy > 255 {
				continue // the first square has a hole in the middle
			}
			inside++
			if got := nrgba(img.At(int(cx), int(cy))); got.A < 90 {
				t.Fatalf("square %d's middle %.0f,%.0f: %v", f.fid, cx, cy, got)
			}
		}
		if inside < 3 {
			t.Fatalf("%d squares checked", inside)
		}
		for py := 0; py < 256; py += 4 {
			for px := 0; px < 256; px += 4 {
				far := true
				for _, f := range squaresFs {
					b := f.g.Bounds()
					px0, py1 := pixelOf(b.Min(0), b.Min(1), z, x, y)
					px1, py0 := pixelOf(b.Max(0), b.Max(1), z, x, y)
					if float64(px) > px0-3 && float64(px) < px1+3 && float64(py) > py0-3 && float64(py) < py1+3 {
						far = false
						break
					}
				}
				if got := nrgba(img.At(px, py)); far && got.A != 0 {
					t.Fatalf("pixel %d,%d outside every square: %v", px, py, got)
				}
			}
		}

		// A set: the colour raster under red points.
		rgb := publishGrid(t, e, owner.User, "Photo", layer.KindRaster, rgbSrc)
		set := publishSet(t, e, owner.User, "Both", rgb, pts)
		img = getImage(t, e, rasterPath("set", set, z, x, y, "png")+"?style=color=ff0000", nil)
		for _, f := range pointsFs[:50] {
			c := f.g.FlatCoords()
			px, py := pixelOf(c[0], c[1], z, x, y)
			if px < 1 || py < 1 || px > 255 || py > 255 {
				continue
			}
			if got := nrgba(img.At(int(px), int(py))); !near(got, red, 30) {
				t.Fatalf("set: point %d at pixel %.1f,%.1f: %v", f.fid, px, py, got)
			}
		}
		if got := nrgba(img.At(0, 0)); got.A != 255 || got.B < 120 || got.B > 136 {
			t.Fatalf("set: the raster under the corner: %v", got)
		}
		// The set's WMTS capabilities, RESTful and KVP: one layer, set-N,
		// down to the raster's zoom, its tiles the set's.
		for _, p := range []string{fmt.Sprintf("/services/wmts/1.0.0/set/%d/WMTSCapabilities.xml", set),
			fmt.Sprintf("/services/wmts/1.0.0/set/%d?service=WMTS&request=GetCapabilities", set)} {
			resp, body := fetch(t, e, p, nil)
			var doc struct {
				Layers []struct {
					Identifier string `xml:"Identifier"`
					Resources  []struct {
						Template string `xml:"template,attr"`
					} `xml:"ResourceURL"`
				} `xml:"Contents>Layer"`
				Matrices []string `xml:"Contents>TileMatrixSet>TileMatrix>Identifier"`
			}
			if err := xml.Unmarshal(body, &doc); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %v\n%s", p, resp.StatusCode, err, body)
			}
			if len(doc.Layers) != 1 || doc.Layers[0].Identifier != fmt.Sprintf("set-%d", set) || len(doc.Matrices) != 21 ||
				len(doc.Layers[0].Resources) != 3 || !strings.Contains(doc.Layers[0].Resources[0].Template, fmt.Sprintf("/services/tiles/v1/set=%d/{TileMatrix}/{TileCol}/{TileRow}.png?style={Style}", set)) {
				t.Fatalf("%s: %+v", p, doc)
			}
		}
	})
}

// Raster tiles, raster.json and WMTS follow the service rule: a private
// layer is 401 anonymous and 404 to others, a token needs the tiles scope,
// a disabled tiles service is 404 for everyone, a draft is never served.
func TestRasterTilePermissions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, reader := e.NewUser(t, "Owner"), e.NewUser(t, "Reader")
		fs := randomPoints(1, 50)
		pub := publishLayer(t, e, owner.User, "Public", "point", fs)
		private := publishLayer(t, e, owner.User, "Private", "point", randomPoints(2, 50))
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/permissions/", private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, owner.ID))
		draft, err := e.Store.Client.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName("Draft").
			SetUserID(owner.User.ID).Save(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		writeVersion(t, e, owner.User, draft.ID, "Draft", "point", fs, false)
		z := 12
		x, y := tileXY(tLon, tLat, z)
		header := func(key string) map[string]string { return map[string]string{"Authorization": "key " + key} }
		noScope := e.Token(t, owner.User, "query layers:read")
		caps := func(id int) string { return fmt.Sprintf("/services/wmts/1.0.0/layer/%d/WMTSCapabilities.xml", id) }
		kvp := func(id int) string {
			return fmt.Sprintf("/services/wmts/1.0.0/layer/%d?SERVICE=WMTS&REQUEST=GetTile&LAYER=layer-%d&STYLE=style%%3Dauto&TILEMATRIXSET=EPSG:3857&TILEMATRIX=%d&TILEROW=%d&TILECOL=%d&FORMAT=image/png", id, id, z, y, x)
		}
		rj := func(id int) string { return fmt.Sprintf("/services/tiles/v1/layer=%d/raster.json", id) }
		cases := []struct {
			name   string
			path   string
			header map[string]string
			want   int
		}{
			{"anonymous, public", rasterPath("layer", pub, z, x, y, "png"), nil, http.StatusOK},
			{"anonymous, public WMTS", caps(pub), nil, http.StatusOK},
			{"anonymous, public KVP GetTile", kvp(pub), nil, http.StatusOK},
			{"anonymous, public raster.json", rj(pub), nil, http.StatusOK},
			{"anonymous, private", rasterPath("layer", private, z, x, y, "png"), nil, http.StatusUnauthorized},
			{"anonymous, private WMTS", caps(private), nil, http.StatusUnauthorized},
			{"reader, private", rasterPath("layer", private, z, x, y, "jpg"), header(reader.Key), http.StatusNotFound},
			{"reader, private WMTS", caps(private), header(reader.Key), http.StatusNotFound},
			{"reader, private raster.json", rj(private) + "?key=" + reader.Key, nil, http.StatusNotFound},
			{"owner, private by path key", strings.Replace(rasterPath("layer", private, z, x, y, "webp"), "/services/", "/services;key="+owner.Key+"/", 1), nil, http.StatusOK},
			{"owner, private WMTS by path key", strings.Replace(caps(private), "/services/", "/services;key="+owner.Key+"/", 1), nil, http.StatusOK},
			{"token without the tiles scope", rasterPath("layer", pub, z, x, y, "png") + "?key=" + noScope, nil, http.StatusUnauthorized},
			{"token without the tiles scope, WMTS", caps(pub), header(noScope), http.StatusUnauthorized},
			{"owner, draft only", rasterPath("layer", draft.ID, z, x, y, "png"), header(owner.Key), http.StatusNotFound},
			{"owner, draft only WMTS", caps(draft.ID), header(owner.Key), http.StatusNotFound},
			{"bad style", rasterPath("layer", pub, z, x, y, "png") + "?style=color=red", nil, http.StatusBadRequest},
		}
		for _, c := range cases {
			if resp, body := fetch(t, e, c.path, c.header); resp.StatusCode != c.want {
				t.Errorf("%s: %d, want %d: %s", c.name, resp.StatusCode, c.want, body)
			}
		}

		// A draft of the public layer changes nothing.
		path := rasterPath("layer", pub, z, x, y, "png")
		resp, body := fetch(t, e, path, nil)
		writeVersion(t, e, owner.User, pub, "Public", "point", randomPoints(7, 20), false)
		waitFresh()
		if r2, b2 := fetch(t, e, path, nil); r2.Header.Get("ETag") != resp.Header.Get("ETag") || string(b2) != string(body) {
			t.Fatal("a draft changed the raster tile")
		}

		// The tiles service turned off: 404 for everyone, the owner too.
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/services/tiles/", pub), `{"enabled": false}`)
		waitFresh()
		for _, p := range []string{path, caps(pub), rj(pub), kvp(pub)} {
			if resp, _ := fetch(t, e, p, header(owner.Key)); resp.StatusCode != http.StatusNotFound {
				t.Fatalf("tiles off, owner, %s: %d", p, resp.StatusCode)
			}
		}
	})
}
