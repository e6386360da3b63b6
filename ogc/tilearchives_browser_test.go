package ogc_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/geopub/geopub/internal/browsertest"
)

// pmtilesDist is the browser build of the pmtiles npm package
// (scripts/pmtiles-reader), installed by scripts/ensure-npm.sh.
func pmtilesDist(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal("npm is missing; the archive map test loads the pmtiles npm package")
		}
		t.Skip("npm is missing")
	}
	out, err := exec.Command("bash", filepath.Join("..", "scripts", "ensure-npm.sh"), "pmtiles-reader").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-npm.sh pmtiles-reader: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "node_modules", "pmtiles", "dist", "pmtiles.js")
}

// archivePage is a page on another origin drawing a layer's PMTiles
// archive with MapLibre GL JS and the pmtiles protocol: red circles on
// white.
const archivePage = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/maplibre-gl.css"><script src="/maplibre-gl.js"></script><script src="/pmtiles.js"></script>
<style>html,body,#map{margin:0;width:100%;height:100%}</style></head><body><div id="map"></div><script>
const protocol = new pmtiles.Protocol();
maplibregl.addProtocol("pmtiles", protocol.tile);
const el = document.getElementById("map");
const map = new maplibregl.Map({container: el, center: [CENTER], zoom: 12, fadeDuration: 0, attributionControl: false,
  style: {version: 8, sources: {a: {type: "vector", url: "pmtiles://ARCHIVE"}}, layers: [
    {id: "bg", type: "background", paint: {"background-color": "#ffffff"}},
    {id: "pts", type: "circle", source: "a", "source-layer": "LAYER", paint: {"circle-color": "#ff0000", "circle-radius": 5}}]}});
el.geopubMap = map;
map.on("error", e => { el.dataset.state = "error"; el.dataset.error = String((e.error && e.error.message) || e); });
map.on("idle", () => { if (map.isSourceLoaded("a")) el.dataset.state = "ready"; });
</script></body></html>`

// Issue 28: MapLibre with the PMTiles protocol draws a layer's archive,
// read by ranges across origins, in headless Chromium.
func TestTileArchiveDrawsInMapLibre(t *testing.T) {
	dist := pmtilesDist(t)
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		fs := randomPoints(21, 40)
		id := publishLayer(t, e, owner.User, "Drawn points", "Point", fs)
		path := "/services/tiles/v1/layer=" + itoa(id) + "/tiles.pmtiles"
		archiveGet(t, e, path, "", nil)
		waitArchive(t, e, path, "", func(d archiveDoc) bool { return d.State == "ready" })

		assets := filepath.Join("..", "web", "mappreview", "assets")
		page := strings.NewReplacer("CENTER", itoa3(west+span/2)+","+itoa3(south+span*0.375),
			"ARCHIVE", e.HTTP.URL+path, "LAYER", "layer-"+itoa(id)).Replace(archivePage)
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/":
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(page))
			case "/maplibre-gl.js", "/maplibre-gl.css":
				http.ServeFile(w, r, filepath.Join(assets, r.URL.Path[1:]))
			case "/pmtiles.js":
				http.ServeFile(w, r, dist)
			default:
				http.NotFound(w, r)
			}
		}))
		defer site.Close()

		ctx, cancel, output := browsertest.NewBrowser(t, 2*time.Minute)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.NavigateResponse(site.URL+"/")); err != nil {
			t.Fatalf("opening the page: %v\n%s", err, output())
		}
		state, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const el = document.getElementById("map");
			return el.dataset.state === "error" ? "error: " + el.dataset.error : (el.dataset.state || null); })()`,
			chromedp.WithPollingInterval(100*time.Millisecond)))
		if err != nil || state != "ready" {
			t.Fatalf("the map did not draw: %q %v\n%s", state, err, output())
		}
		time.Sleep(300 * time.Millisecond)
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		img, err := decodeArchivePNG(b)
		if err != nil {
			t.Fatal(err)
		}
		scale, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.devicePixelRatio`))
		red := 0
		for _, f := range fs {
			c := f.g.FlatCoords()
			pt, err := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[[2]float64](
				`(() => { const q = map.project([`+itoa3(c[0])+`, `+itoa3(c[1])+`]); return [q.x, q.y]; })()`))
			if err != nil {
				t.Fatal(err)
			}
			r, g, bl, _ := img.At(int(pt[0]*scale), int(pt[1]*scale)).RGBA()
			if r>>8 > 200 && g>>8 < 90 && bl>>8 < 90 {
				red++
			}
		}
		if red < len(fs)*9/10 {
			t.Errorf("%d of %d points are drawn red where they lie", red, len(fs))
		}
		// Far from every point the map is the white background.
		r, g, bl, _ := img.At(int(5*scale), int(5*scale)).RGBA()
		if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
			t.Errorf("the map's corner is %d,%d,%d, want white", r>>8, g>>8, bl>>8)
		}
	})
}

func itoa3(f float64) string { return strconv.FormatFloat(f, 'f', 7, 64) }

func decodeArchivePNG(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
