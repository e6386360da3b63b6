package ogc_test

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/geoservices"
)

// clientPage serves a test page at /page, files under /npm/ (from npm)
// and /maplibre/ (the vendored MapLibre), and everything else from the
// Geopub server: one loopback origin, as a site embedding the services.
func clientPage(t *testing.T, e *env, npm, html string) string {
	t.Helper()
	target, err := url.Parse(e.HTTP.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(html))
	})
	if npm != "" {
		mux.Handle("/npm/", http.StripPrefix("/npm/", http.FileServer(http.Dir(npm))))
	}
	mux.Handle("/maplibre/", http.StripPrefix("/maplibre/", http.FileServer(http.Dir(filepath.Join("..", "web", "mappreview", "assets")))))
	mux.HandleFunc("/favicon.ico", http.NotFound)
	mux.Handle("/", proxy)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// blend is colour c at opacity a over bg.
func blend(c, bg color.NRGBA, a float64) color.NRGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{m(c.R, bg.R), m(c.G, bg.G), m(c.B, bg.B), 255}
}

// hexColor reads #rrggbb.
func hexColor(s string) color.NRGBA {
	var c color.NRGBA
	_, _ = fmt.Sscanf(s, "#%02x%02x%02x", &c.R, &c.G, &c.B)
	c.A = 255
	return c
}

// pixelAt is the screenshot's pixel at a viewport point.
func pixelAt(img image.Image, scale float64, pt browsertest.Point) color.NRGBA {
	return nrgba(img.At(int(pt.X*scale), int(pt.Y*scale)))
}

// squaresAt counts the fixture squares holding lon, lat or whose
// outline passes within 0.0003 degrees (some 2 pixels at zoom 13).
func squaresAt(fs []feature, lon, lat float64) int {
	const slack = 0.0003
	n := 0
	for _, f := range fs {
		c := f.g.FlatCoords()
		if lon >= c[0]-slack && lon <= c[4]+slack && lat >= c[1]-slack && lat <= c[5]+slack {
			n++
		}
	}
	return n
}

// checkMapPixels checks a screenshot: fill (over bg) at the centres of
// squares nothing else covers, bg where no square is (points and their
// discs left out when skip says so).
func checkMapPixels(t *testing.T, p *browsertest.MapPage, squares []feature, fill, bg color.NRGBA, tol int, skip func(lon, lat float64) bool) {
	t.Helper()
	img, scale := p.Screenshot()
	box := p.MapBox()
	inMap := func(pt browsertest.Point) bool {
		return pt.X > box[0]+4 && pt.X < box[2]-4 && pt.Y > box[1]+4 && pt.Y < box[3]-4
	}
	drawn := 0
	for i, f := range squares {
		lon, lat := squareCentre(f, i == 0)
		if i == 0 || squaresAt(squares, lon, lat) != 1 || skip(lon, lat) {
			continue
		}
		pt := p.Project(lon, lat)
		if !inMap(pt) {
			continue
		}
		if c := pixelAt(img, scale, pt); !near(c, fill, tol) {
			t.Errorf("square %d at %v: %v, want %v", i, pt, c, fill)
		}
		drawn++
	}
	empty := 0
	for lon := west - 0.01; lon < west+span+0.01; lon += 0.004 {
		for lat := south - 0.01; lat < south+span*0.75+0.01; lat += 0.004 {
			if inSquare(squares, lon, lat, 0.0015) || skip(lon, lat) {
				continue
			}
			pt := p.Project(lon, lat)
			if !inMap(pt) {
				continue
			}
			if c := pixelAt(img, scale, pt); !near(c, bg, tol) {
				t.Errorf("no square at %g, %g (%v) but %v, want %v", lon, lat, pt, c, bg)
			}
			empty++
		}
	}
	if drawn < 10 || empty < 100 {
		t.Fatalf("only %d squares and %d empty places checked", drawn, empty)
	}
}

// Esri Leaflet in Chromium draws a tiled MapServer layer of polygons
// (L.esri.tiledMapLayer) and a FeatureServer layer of points
// (L.esri.featureLayer), with token= as Esri clients send it: the fill
// where the squares are, the markers where the points are, nothing else.
func TestArcGISEsriLeaflet(t *testing.T) {
	browsertest.Chromium(t)
	npm := filepath.Join(esriClients(t), "node_modules")
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		squares, points := randomSquares(2, 60), randomPoints(1, 40)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squares)
		pts := publishLayer(t, e, owner.User, "Points", "point", points)
		key := e.Token(t, owner.User, "wxs:wms tiles query")
		mapURL := arcgisServices + "layer_" + itoa(sq) + "/MapServer"
		featURL := arcgisServices + "layer_" + itoa(pts) + "/FeatureServer/0"
		if resp, body := arcgisGet(t, e, featURL+"?f=json", key, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("FeatureServer layer: %d %s", resp.StatusCode, body)
		}
		withFeatures := true
		const marker = "#7b2cbf"
		cfg, _ := json.Marshal(map[string]any{"map": mapURL, "features": featURL, "withFeatures": withFeatures, "token": key,
			"center": []float64{south + span*0.375, west + span/2}, "marker": marker})
		page := `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/npm/leaflet/dist/leaflet.css">
<style>html, body { margin: 0; } #map { width: 900px; height: 700px; } .leaflet-container { background: #ffffff; }</style>
<script src="/npm/leaflet/dist/leaflet.js"></script>
<script src="/npm/esri-leaflet/dist/esri-leaflet.js"></script>
</head><body><div id="map"></div><script>
const cfg = ` + string(cfg) + `;
const el = document.getElementById('map');
const fail = (msg) => { el.dataset.state = 'error'; el.dataset.error = msg; };
const map = L.map(el, { zoomControl: false, attributionControl: false, fadeAnimation: false, zoomAnimation: false, markerZoomAnimation: false })
	.setView(cfg.center, 13);
el.geopubMap = { project: (ll) => map.latLngToContainerPoint([ll[1], ll[0]]) };
let waiting = cfg.withFeatures ? 2 : 1;
const done = () => { if (--waiting === 0) setTimeout(() => { if (el.dataset.state !== 'error') el.dataset.state = 'ready'; }, 300); };
const tiled = L.esri.tiledMapLayer({ url: cfg.map, token: cfg.token });
tiled.on('tileerror', () => fail('a MapServer tile failed'));
tiled.once('load', done);
tiled.addTo(map);
if (cfg.withFeatures) {
	const feats = L.esri.featureLayer({ url: cfg.features, token: cfg.token,
		pointToLayer: (g, ll) => L.circleMarker(ll, { radius: 6, stroke: false, fillColor: cfg.marker, fillOpacity: 1 }) });
	feats.on('requesterror', (e) => fail('FeatureLayer request: ' + (e.message || e.code)));
	feats.once('load', done);
	feats.addTo(map);
}
</script></body></html>`
		p := browsertest.OpenMapPage(t, clientPage(t, e, npm, page)+"/page")
		defer p.Close()
		// The tiles' fill: the layer's colour at 45% over the white page.
		resp, body := arcgisGet(t, e, mapURL+"?f=json", key, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		tileFill := tileFillColor(t, e, sq, key, squares)
		white := color.NRGBA{255, 255, 255, 255}
		skip := func(lon, lat float64) bool { return withFeatures && inPoint(points, [4]float64{}, lon, lat) }
		checkMapPixels(t, p, squares, blend(tileFill, white, float64(tileFill.A)/255), white, 6, skip)
		if withFeatures {
			img, scale := p.Screenshot()
			for _, f := range points {
				c := f.g.FlatCoords()
				if got := pixelAt(img, scale, p.Project(c[0], c[1])); !near(got, hexColor(marker), 6) {
					t.Errorf("point at %g, %g: %v, want the marker %s", c[0], c[1], got, marker)
				}
			}
		}
	})
}

// tileFillColor is the colour (with alpha) a MapServer tile gives the
// inside of a square nothing else covers.
func tileFillColor(t *testing.T, e *env, id int, key string, squares []feature) color.NRGBA {
	t.Helper()
	for i, f := range squares {
		lon, lat := squareCentre(f, i == 0)
		if i == 0 || squaresAt(squares, lon, lat) != 1 {
			continue
		}
		z := 13
		x, y := tileXY(lon, lat, z)
		resp, body := arcgisGet(t, e, fmt.Sprintf("%slayer_%d/MapServer/tile/%d/%d/%d", arcgisServices, id, z, y, x), key, nil)
		img := decodePNG(t, resp, body, 256, 256)
		gx, gy := gridOf(lon, lat, z, x, y)
		return nrgba(img.At(int(gx/16), int(gy/16)))
	}
	t.Fatal("no lone square")
	return color.NRGBA{}
}

// MapLibre (the map preview's vendored copy) in Chromium draws a
// VectorTileServer's root style: the preview's fill where the squares
// are, the background elsewhere.
func TestArcGISVectorTileStyleMapLibre(t *testing.T) {
	browsertest.Chromium(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		squares := randomSquares(2, 60)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squares)
		key := e.Token(t, owner.User, "tiles")
		style := arcgisServices + "layer_" + itoa(sq) + "/VectorTileServer/resources/styles/root.json?token=" + url.QueryEscape(key)
		cfg, _ := json.Marshal(map[string]any{"style": style, "center": []float64{west + span/2, south + span*0.375}})
		page := `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/maplibre/maplibre-gl.css">
<style>html, body { margin: 0; } #map { width: 900px; height: 700px; }</style>
<script src="/maplibre/maplibre-gl.js"></script>
</head><body><div id="map"></div><script>
const cfg = ` + string(cfg) + `;
const el = document.getElementById('map');
const map = new maplibregl.Map({ container: el, style: location.origin + cfg.style, center: cfg.center, zoom: 12,
	attributionControl: false, fadeDuration: 0, canvasContextAttributes: { preserveDrawingBuffer: true }, preserveDrawingBuffer: true });
el.geopubMap = map;
map.on('error', (e) => { el.dataset.state = 'error'; el.dataset.error = String(e.error && e.error.message || e.error); });
map.once('idle', () => { if (el.dataset.state !== 'error') el.dataset.state = 'ready'; });
</script></body></html>`
		p := browsertest.OpenMapPage(t, clientPage(t, e, "", page)+"/page")
		defer p.Close()
		bg := hexColor(geoservices.StyleBackground)
		fill := blend(hexColor(geoservices.StyleFillColor), bg, geoservices.StyleFillOpacity)
		checkMapPixels(t, p, squares, fill, bg, 8, func(float64, float64) bool { return false })
	})
}
