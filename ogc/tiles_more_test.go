package ogc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// waitFresh outlasts the test server's freshness window.

// A publish gives new tiles at once (the cache is keyed by the published
// version), and a draft is never served.
func TestVectorTilesFollowPublishes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		first := randomPoints(1, 200)
		pts := publishLayer(t, e, owner.User, "Points", "point", first)
		x, y := tileXY(tLon, tLat, 12)
		path := tilePath("layer", pts, 12, x, y)
		name := fmt.Sprintf("layer-%d", pts)
		resp, body := fetch(t, e, path, nil)
		n1 := checkTile(t, body, name, first, 12, x, y)
		etag := resp.Header.Get("ETag")

		// A draft with other features changes nothing.
		writeVersion(t, e, owner.User, pts, "Points", "point", randomPoints(7, 20), false)
		waitFresh()
		if resp, b := fetch(t, e, path, nil); resp.Header.Get("ETag") != etag || string(b) != string(body) {
			t.Fatalf("a draft changed the tile")
		}

		// A publish of other features: new tile, new ETag, the old one no
		// longer validates.
		second := randomPoints(9, 50)
		writeVersion(t, e, owner.User, pts, "Points", "point", second, true)
		waitFresh()
		resp, body = fetch(t, e, path, map[string]string{"If-None-Match": etag})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag {
			t.Fatalf("after a publish: %d %s", resp.StatusCode, resp.Header.Get("ETag"))
		}
		if n2 := checkTile(t, body, name, second, 12, x, y); n2 == n1 {
			t.Fatalf("after a publish: still %d features", n2)
		}
	})
}

// A set's tile holds one MVT layer per member the caller may use; its
// TileJSON lists them.
func TestVectorTileSets(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, reader := e.NewUser(t, "Owner"), e.NewUser(t, "Reader")
		points, squares := randomPoints(1, 100), randomSquares(2, 60)
		pts := publishLayer(t, e, owner.User, "Points", "point", points)
		sq := publishLayer(t, e, owner.User, "Squares", "polygon", squares)
		private := publishLayer(t, e, owner.User, "Private", "point", randomPoints(3, 30))
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/permissions/", private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, owner.ID))
		set := publishSet(t, e, owner.User, "Wellington", sq, private, pts)
		x, y := tileXY(tLon, tLat, 13)
		path := tilePath("set", set, 13, x, y)

		resp, body := fetch(t, e, path+"?key="+reader.Key, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		layers := decodeTile(t, body)
		if len(layers) != 2 {
			t.Fatalf("reader's set tile has layers %v", keys(layers))
		}
		checkTile(t, body, fmt.Sprintf("layer-%d", pts), points, 13, x, y)
		checkTile(t, body, fmt.Sprintf("layer-%d", sq), squares, 13, x, y)
		if _, b := fetch(t, e, path+"?key="+owner.Key, nil); len(decodeTile(t, b)) != 3 {
			t.Fatalf("owner's set tile has layers %v", keys(decodeTile(t, b)))
		}
		// Each member's layer is that layer's own tile.
		_, own := fetch(t, e, tilePath("layer", pts, 13, x, y), nil)
		if !strings.Contains(string(body), string(own)) {
			t.Fatal("the set tile does not hold the member's tile")
		}

		var tj tileJSON
		getJSON(t, e, fmt.Sprintf("/services/tiles/v1/set=%d/tile.json?key=%s", set, reader.Key), &tj)
		if len(tj.VectorLayers) != 2 || tj.VectorLayers[0].ID != fmt.Sprintf("layer-%d", sq) || tj.VectorLayers[1].ID != fmt.Sprintf("layer-%d", pts) ||
			!strings.Contains(tj.Tiles[0], fmt.Sprintf("/services/tiles/v1/set=%d/{z}/{x}/{y}.pbf", set)) {
			t.Fatalf("set TileJSON %+v", tj)
		}
		// The set's tiles service off: 404.
		putJSON(t, e, owner.Key, fmt.Sprintf("/sets/%d/services/tiles/", set), `{"enabled": false}`)
		waitFresh()
		if resp, _ := fetch(t, e, path+"?key="+reader.Key, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("set with tiles off: %d", resp.StatusCode)
		}
	})
}

type tileJSON struct {
	TileJSON     string    `json:"tilejson"`
	Name         string    `json:"name"`
	Scheme       string    `json:"scheme"`
	Tiles        []string  `json:"tiles"`
	MinZoom      *int      `json:"minzoom"`
	MaxZoom      *int      `json:"maxzoom"`
	Bounds       []float64 `json:"bounds"`
	Center       []float64 `json:"center"`
	VectorLayers []struct {
		ID          string            `json:"id"`
		Description string            `json:"description"`
		Fields      map[string]string `json:"fields"`
	} `json:"vector_layers"`
}

// TileJSON 3.0.0 of a layer: the tile URL carries the key as the request
// did, bounds and center fit the data, fields are listed.
func TestVectorTileJSON(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		pts := publishLayer(t, e, owner.User, "Points", "point", randomPoints(1, 100))
		base := fmt.Sprintf("/services/tiles/v1/layer=%d/", pts)
		var tj tileJSON
		getJSON(t, e, base+"tile.json?key="+owner.Key, &tj)
		if tj.TileJSON != "3.0.0" || tj.Name != "Points" || tj.Scheme != "xyz" || tj.MinZoom == nil || *tj.MinZoom != 0 || tj.MaxZoom == nil || *tj.MaxZoom < 14 ||
			len(tj.Bounds) != 4 || tj.Bounds[0] < west || tj.Bounds[2] > west+span || tj.Bounds[1] < south || tj.Bounds[3] > south+span ||
			len(tj.Center) != 3 || tj.Center[0] < tj.Bounds[0] || tj.Center[0] > tj.Bounds[2] ||
			len(tj.VectorLayers) != 1 || tj.VectorLayers[0].ID != fmt.Sprintf("layer-%d", pts) ||
			tj.VectorLayers[0].Fields["name"] != "String" || tj.VectorLayers[0].Fields["rank"] != "Number" || len(tj.VectorLayers[0].Fields) != 2 {
			t.Fatalf("TileJSON %+v", tj)
		}
		want := e.HTTP.URL + base + "{z}/{x}/{y}.pbf?key=" + owner.Key
		if len(tj.Tiles) != 1 || tj.Tiles[0] != want {
			t.Fatalf("tiles %v, want %s", tj.Tiles, want)
		}
		// The template works.
		x, y := tileXY(tLon, tLat, 12)
		u := strings.NewReplacer("{z}", "12", "{x}", fmt.Sprint(x), "{y}", fmt.Sprint(y)).Replace(tj.Tiles[0])
		if resp, _ := fetch(t, e, strings.TrimPrefix(u, e.HTTP.URL), nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("template tile: %d", resp.StatusCode)
		}
		// The path form keeps the key in the path; a header key and an
		// anonymous call are not written into the document.
		getJSON(t, e, fmt.Sprintf("/services;key=%s/tiles/v1/layer=%d/tile.json", owner.Key, pts), &tj)
		if tj.Tiles[0] != fmt.Sprintf("%s/services;key=%s/tiles/v1/layer=%d/{z}/{x}/{y}.pbf", e.HTTP.URL, owner.Key, pts) {
			t.Fatalf("path key tiles %v", tj.Tiles)
		}
		r := e.Do(t, servertest.Request{Method: "GET", Path: e.HTTP.URL + base + "tile.json", Key: owner.Key})
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), owner.Key) || r.Header.Get("ETag") == "" {
			t.Fatalf("header key: %d %s", r.Status, r.Body)
		}
		if resp, b := fetch(t, e, base+"tile.json", map[string]string{"If-None-Match": r.Header.Get("ETag")}); resp.StatusCode != http.StatusNotModified {
			t.Fatalf("TileJSON If-None-Match: %d %s", resp.StatusCode, b)
		}
	})
}

// The service rule on every tile request: the tiles service enabled and
// permitted, view on the layer, the tiles scope; the key as header, query
// or path parameter; anonymous callers on public layers.
func TestVectorTilePermissions(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, reader := e.NewUser(t, "Owner"), e.NewUser(t, "Reader")
		pub := publishLayer(t, e, owner.User, "Public", "point", randomPoints(1, 50))
		private := publishLayer(t, e, owner.User, "Private", "point", randomPoints(2, 50))
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/permissions/", private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, owner.ID))
		x, y := tileXY(tLon, tLat, 12)
		status := func(path string, header map[string]string) int {
			resp, body := fetch(t, e, path, header)
			if resp.StatusCode >= 400 {
				var msg struct{ Detail string }
				if json.Unmarshal(body, &msg) != nil || msg.Detail == "" {
					t.Fatalf("%s: %d without a message: %s", path, resp.StatusCode, body)
				}
			}
			if resp.Header.Get("Accepted-OAuth-Scopes") != "tiles" && resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s: Accepted-OAuth-Scopes %q", path, resp.Header.Get("Accepted-OAuth-Scopes"))
			}
			return resp.StatusCode
		}
		pubTile, privTile := tilePath("layer", pub, 12, x, y), tilePath("layer", private, 12, x, y)
		privJSON := fmt.Sprintf("/services/tiles/v1/layer=%d/tile.json", private)
		header := func(key string) map[string]string { return map[string]string{"Authorization": "key " + key} }
		noScope := e.Token(t, owner.User, "query layers:read")
		for name, c := range map[string]struct {
			path   string
			header map[string]string
			want   int
		}{
			"anonymous, public":             {pubTile, nil, http.StatusOK},
			"anonymous, private":            {privTile, nil, http.StatusUnauthorized},
			"anonymous, private TileJSON":   {privJSON, nil, http.StatusUnauthorized},
			"reader, private":               {privTile, header(reader.Key), http.StatusNotFound},
			"reader, private by key":        {privTile + "?key=" + reader.Key, nil, http.StatusNotFound},
			"owner, private by header":      {privTile, header(owner.Key), http.StatusOK},
			"owner, private by key":         {privTile + "?key=" + owner.Key, nil, http.StatusOK},
			"owner, private by path key":    {strings.Replace(privTile, "/services/", "/services;key="+owner.Key+"/", 1), nil, http.StatusOK},
			"owner, private TileJSON":       {privJSON + "?key=" + owner.Key, nil, http.StatusOK},
			"token without the tiles scope": {privTile + "?key=" + noScope, nil, http.StatusUnauthorized},
			"no scope, public":              {pubTile, header(noScope), http.StatusUnauthorized},
			"unknown key":                   {pubTile + "?key=" + strings.Repeat("x", 32), nil, http.StatusUnauthorized},
			"unknown path key":              {strings.Replace(pubTile, "/services/", "/services;key="+url.PathEscape(strings.Repeat("y", 32))+"/", 1), nil, http.StatusUnauthorized},
		} {
			if got := status(c.path, c.header); got != c.want {
				t.Errorf("%s: %d, want %d", name, got, c.want)
			}
		}
		resp, body := fetch(t, e, privTile+"?key="+noScope, nil)
		if !strings.Contains(string(body), "tiles scope") || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("missing scope: %d %s", resp.StatusCode, body)
		}

		// The tiles service turned off: 404 for everyone, the owner too.
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/services/tiles/", pub), `{"enabled": false}`)
		waitFresh()
		if got := status(pubTile, header(owner.Key)); got != http.StatusNotFound {
			t.Fatalf("tiles off, owner: %d", got)
		}
		if got := status(pubTile, header(reader.Key)); got != http.StatusNotFound {
			t.Fatalf("tiles off, reader: %d", got)
		}
		// Back on, with a permission list naming only the owner: the
		// reader is refused, the owner is served.
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/services/tiles/", pub), `{"enabled": true}`)
		putJSON(t, e, owner.Key, fmt.Sprintf("/layers/%d/services/tiles/permissions/", pub), fmt.Sprintf(`[{"permission": "access", "user": %d}]`, owner.ID))
		waitFresh()
		if got := status(pubTile, header(reader.Key)); got != http.StatusNotFound {
			t.Fatalf("listed roles only, reader: %d", got)
		}
		if got := status(pubTile, header(owner.Key)); got != http.StatusOK {
			t.Fatalf("listed roles only, owner: %d", got)
		}
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func putJSON(t *testing.T, e *env, key, path, body string) {
	t.Helper()
	r := e.Do(t, servertest.Request{Method: "PUT", Path: path, Key: key, Body: body})
	if r.Status != http.StatusOK {
		t.Fatalf("PUT %s: %d %s", path, r.Status, r.Body)
	}
}

func getJSON(t *testing.T, e *env, path string, v any) {
	t.Helper()
	resp, body := fetch(t, e, path, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

// A key in the path never reaches the request log, nor an error body.
func TestPathKeyNotLogged(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		var log bytes.Buffer
		var mu sync.Mutex
		e := servertest.NewWith(t, st, func(c *server.Config) {
			c.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &log}, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		owner := e.NewUser(t, "Owner")
		pts := publishLayer(t, e, owner.User, "Points", "point", randomPoints(1, 10))
		bad := strings.Repeat("z", 32)
		for _, key := range []string{owner.Key, bad} {
			resp, body := fetch(t, e, fmt.Sprintf("/services;key=%s/tiles/v1/layer=%d/0/0/0.pbf", key, pts), nil)
			if strings.Contains(string(body), key) || (key == owner.Key) != (resp.StatusCode == http.StatusOK) {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(log.String(), "/services/tiles/v1/layer=") || strings.Contains(log.String(), owner.Key) || strings.Contains(log.String(), bad) {
			t.Fatalf("log:\n%s", log.String())
		}
	})
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Once a layer's feature index is built (the point queries' own, started
// in the background by the first tile), tiles are made from it, with the
// same features as the tiles the store made before; geopub_tiles_made_total
// counts both makers.
func TestVectorTilesFromTheFeatureIndex(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		fs := randomPoints(3, 400)
		id := publishLayer(t, e, owner.User, "Points", "point", fs)
		name := fmt.Sprintf("layer-%d", id)
		tiles := e.Server.Tiles
		byStore := tiles.Made("store") + tiles.Made("postgis")

		x, y := tileXY(tLon, tLat, 13)
		_, first := fetch(t, e, tilePath("layer", id, 13, x, y), nil)
		n := checkTile(t, first, name, fs, 13, x, y)
		if tiles.Made("store")+tiles.Made("postgis") != byStore+1 || tiles.Made("index") != 0 {
			t.Fatalf("the first tile was not made from the store: %d index, %d store, %d postgis",
				tiles.Made("index"), tiles.Made("store"), tiles.Made("postgis"))
		}
		vid := *e.Store.Client.Layer.GetX(context.Background(), id).PublishedVersionID
		deadline := time.Now().Add(10 * time.Second)
		for e.Server.Query.Indexes().Resident(vid) == nil {
			if time.Now().After(deadline) {
				t.Fatal("the feature index was not built in the background within 10 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		// Its neighbours and parent, made from the index.
		for _, c := range [][3]int{{13, x + 1, y}, {13, x, y + 1}, {12, x / 2, y / 2}} {
			resp, body := fetch(t, e, tilePath("layer", id, c[0], c[1], c[2]), nil)
			if resp.StatusCode == http.StatusOK {
				checkTile(t, body, name, fs, c[0], c[1], c[2])
			}
		}
		if got := tiles.Made("index"); got != 3 {
			t.Fatalf("%d tiles made from the index, want 3", got)
		}
		// The first tile again, made from the index in a server whose tile
		// cache is empty: the same features.
		fresh := servertest.New(t, e.Store)
		if _, err := fresh.Server.Query.Indexes().Get(context.Background(), vid); err != nil {
			t.Fatal(err)
		}
		_, again := fetch(t, fresh, tilePath("layer", id, 13, x, y), nil)
		if m := checkTile(t, again, name, fs, 13, x, y); m != n || fresh.Server.Tiles.Made("index") != 1 {
			t.Fatalf("from the index: %d features (%d from the store), %d made from the index", m, n, fresh.Server.Tiles.Made("index"))
		}

		fams, err := e.Server.Metrics.Gatherer().Gather()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range fams {
			if f.GetName() != "geopub_tiles_made_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				if m.GetLabel()[0].GetValue() == "index" && m.GetCounter().GetValue() == 3 {
					found = true
				}
			}
		}
		if !found {
			t.Fatal("geopub_tiles_made_total{maker=\"index\"} is not 3")
		}
	})
}
