package mappreview

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestVendoredChecksums: the embedded MapLibre files are those
// assets/update.sh copied from npm and pinned in SHA256SUMS.
func TestVendoredChecksums(t *testing.T) {
	sums, err := fs.ReadFile(files, "assets/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", sc.Text())
		}
		b, err := fs.ReadFile(files, "assets/"+name)
		if err != nil {
			t.Fatalf("%s is listed in SHA256SUMS but not embedded: %v", name, err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s does not match SHA256SUMS: run assets/update.sh", name)
		}
		n++
	}
	if n != 3 {
		t.Errorf("SHA256SUMS lists %d files, want 3", n)
	}
}

func TestAssets(t *testing.T) {
	h := Handler()
	do := func(method, target string, hdr ...string) *http.Response {
		req := httptest.NewRequest(method, target, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result()
	}
	for name, ct := range map[string]string{
		"maplibre-gl.js":  "text/javascript; charset=utf-8",
		"maplibre-gl.css": "text/css; charset=utf-8",
		"preview.js":      "text/javascript; charset=utf-8",
		"LICENSE.txt":     "text/plain; charset=utf-8",
	} {
		u := AssetURL(name)
		if !strings.HasPrefix(u, Path+"/assets/"+name+"?v=") {
			t.Fatalf("AssetURL(%q) = %q", name, u)
		}
		res := do(http.MethodGet, u)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != ct ||
			!strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("GET %s: %d %q %q", u, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
		}
		if res := do(http.MethodGet, u, "If-None-Match", res.Header.Get("ETag")); res.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match: %d", u, res.StatusCode)
		}
	}
	if AssetURL("SHA256SUMS") != "" || AssetURL("nope.js") != "" {
		t.Error("AssetURL names a file that is not served")
	}
	for target, status := range map[string]int{
		Path + "/assets/nope.js":         http.StatusNotFound,
		Path + "/assets/":                http.StatusNotFound,
		Path + "/assets/../preview.js":   http.StatusNotFound,
		Path + "/assets/SHA256SUMS":      http.StatusNotFound,
		Path + "/preview.js":             http.StatusNotFound,
		Path + "/assets/maplibre-gl.css": http.StatusOK,
	} {
		if res := do(http.MethodGet, target); res.StatusCode != status {
			t.Errorf("GET %s: %d, want %d", target, res.StatusCode, status)
		}
	}
	if res := do(http.MethodPost, AssetURL("preview.js")); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
}

// TestConfig: the page's description of a map carries the template with
// its braces, the bounds, the layers and the colours tests check; a
// grid's map has no vector tiles and one raster.
func TestConfig(t *testing.T) {
	m := &Map{Tiles: TilesPath + "/layer=3/{z}/{x}/{y}.pbf", Bounds: [4]float64{1, 2, 3, 4}, Layers: []string{"layer-3"}}
	c := m.Config()
	for _, want := range []string{`"tiles":"/services/tiles/v1/layer=3/{z}/{x}/{y}.pbf"`, `"bounds":[1,2,3,4]`,
		`"layers":["layer-3"]`, `"fill":"` + FillColor + `"`, `"fillOpacity":0.6`, `"rasters":[]`} {
		if !strings.Contains(c, want) {
			t.Errorf("Config() = %s, want %s in it", c, want)
		}
	}
	m = &Map{Bounds: [4]float64{1, 2, 3, 4}, Rasters: []Raster{{Tiles: TilesPath + "/layer=4/{z}/{x}/{y}.png", Bounds: [4]float64{1, 2, 3, 4}, MaxZoom: 12}}}
	c = m.Config()
	for _, want := range []string{`"tiles":""`, `"layers":[]`,
		`"rasters":[{"tiles":"/services/tiles/v1/layer=4/{z}/{x}/{y}.png","bounds":[1,2,3,4],"maxzoom":12}]`} {
		if !strings.Contains(c, want) {
			t.Errorf("Config() of a grid = %s, want %s in it", c, want)
		}
	}
}
