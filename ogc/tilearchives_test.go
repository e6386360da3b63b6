package ogc_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/remote/s3source/s3test"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/tilearchives"
	"github.com/geopub/geopub/internal/usage"
)

// archiveDoc is the description at an archive URL + ".json".
type archiveDoc struct {
	State      string `json:"state"`
	Ready      bool   `json:"ready"`
	Rebuilding bool   `json:"rebuilding"`
	URL        string `json:"url"`
	Detail     string `json:"detail"`
	File       *struct {
		VersionID int       `json:"version_id"`
		ETag      string    `json:"etag"`
		Bytes     int64     `json:"bytes"`
		Tiles     int64     `json:"tiles"`
		MinZoom   int       `json:"minzoom"`
		MaxZoom   int       `json:"maxzoom"`
		Bounds    []float64 `json:"bounds"`
	} `json:"file"`
	Build *struct {
		TilesDone     int64   `json:"tiles_done"`
		TilesEstimate int64   `json:"tiles_estimate"`
		Progress      float64 `json:"progress"`
		Error         string  `json:"error"`
	} `json:"build"`
	Limits tilearchives.LimitsDoc `json:"limits"`
	Plan   *struct {
		MaxZoom int   `json:"maxzoom"`
		Tiles   int64 `json:"estimated_tiles"`
	} `json:"plan"`
}

// archiveGet GETs path with the key (if any) and extra headers.
func archiveGet(t testing.TB, e *env, path, key string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	for k, v := range header {
		h[k] = v
	}
	if key != "" {
		h["Authorization"] = "key " + key
	}
	return fetch(t, e, path, h)
}

// waitArchive polls the archive's description until ok says it is done.
func waitArchive(t testing.TB, e *env, path, key string, ok func(d archiveDoc) bool) archiveDoc {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	var d archiveDoc
	for time.Now().Before(deadline) {
		resp, body := archiveGet(t, e, path+".json", key, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s.json: %d %s", path, resp.StatusCode, body)
		}
		d = archiveDoc{}
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatal(err)
		}
		if ok(d) {
			return d
		}
		if d.State == "failed" {
			t.Fatalf("the build of %s failed: %s", path, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: still %s after two minutes: %+v", path, d.State, d)
	return d
}

// pmtilesHeader reads the fields of a PMTiles v3 header a test checks.
type pmtilesHeader struct {
	TileType, MinZoom, MaxZoom byte
	Bounds                     [4]float64
	Addressed                  uint64
}

func readPMTilesHeader(t testing.TB, b []byte) pmtilesHeader {
	t.Helper()
	if len(b) < 127 || string(b[:7]) != "PMTiles" || b[7] != 3 {
		t.Fatalf("not a PMTiles v3 archive: % x", b[:min(len(b), 16)])
	}
	e7 := func(off int) float64 { return float64(int32(binary.LittleEndian.Uint32(b[off:]))) / 1e7 }
	return pmtilesHeader{TileType: b[99], MinZoom: b[100], MaxZoom: b[101],
		Bounds: [4]float64{e7(102), e7(106), e7(110), e7(114)}, Addressed: binary.LittleEndian.Uint64(b[72:])}
}

// checkRanges checks range requests on an archive URL against its whole
// file: single, suffix and multiple ranges, If-Range, and 416.
func checkRanges(t *testing.T, e *env, path, key string, full []byte, etag string) {
	t.Helper()
	n := len(full)
	for _, c := range []struct {
		rng        string
		start, end int
	}{{"bytes=0-126", 0, 127}, {"bytes=100-", 100, n}, {"bytes=-50", n - 50, n}, {"bytes=3-3", 3, 4}} {
		resp, body := archiveGet(t, e, path, key, map[string]string{"Range": c.rng})
		if resp.StatusCode != http.StatusPartialContent {
			t.Fatalf("Range %s: %d %s", c.rng, resp.StatusCode, body)
		}
		if !bytes.Equal(body, full[c.start:c.end]) {
			t.Errorf("Range %s: %d bytes differ from the file's [%d:%d]", c.rng, len(body), c.start, c.end)
		}
		if got := resp.Header.Get("ETag"); got != etag {
			t.Errorf("Range %s: ETag %s, want %s", c.rng, got, etag)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Content-Range") {
			t.Errorf("Range %s: CORS headers %v", c.rng, resp.Header)
		}
	}
	// Two ranges: a multipart/byteranges answer whose parts are the bytes.
	resp, body := archiveGet(t, e, path, key, map[string]string{"Range": "bytes=0-9,20-29"})
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusPartialContent || err != nil {
		t.Fatalf("two ranges: %d %s %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for _, want := range [][]byte{full[0:10], full[20:30]} {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		if !bytes.Equal(got, want) {
			t.Errorf("two ranges: part %q, want %q", got, want)
		}
	}
	// If-Range with the current ETag gives the range, with another the
	// whole (new) file.
	resp, body = archiveGet(t, e, path, key, map[string]string{"Range": "bytes=0-9", "If-Range": etag})
	if resp.StatusCode != http.StatusPartialContent || len(body) != 10 {
		t.Errorf("If-Range current: %d, %d bytes", resp.StatusCode, len(body))
	}
	resp, body = archiveGet(t, e, path, key, map[string]string{"Range": "bytes=0-9", "If-Range": `"v0-b0"`})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, full) {
		t.Errorf("If-Range stale: %d, %d bytes", resp.StatusCode, len(body))
	}
	resp, body = archiveGet(t, e, path, key, map[string]string{"Range": "bytes=" + itoa(n+10) + "-"})
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("unsatisfiable range: %d %s", resp.StatusCode, body)
	}
	resp, _ = archiveGet(t, e, path, key, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", resp.StatusCode)
	}
}

// buildServeRebuild is the life of a layer's vector PMTiles archive: the
// first request queues the build (404 with its state and Retry-After), the build makes
// the file from the published version, the file serves by ranges, a new
// published version rebuilds it under a new ETag while the old file
// keeps serving.
func buildServeRebuild(t *testing.T, e *env) {
	owner := e.NewUser(t, "Owner")
	id := publishLayer(t, e, owner.User, "Archived points", "Point", randomPoints(11, 300))
	path := "/services/tiles/v1/layer=" + itoa(id) + "/tiles.pmtiles"

	resp, body := archiveGet(t, e, path, "", nil)
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("first request: %d %s, want 404 with Retry-After", resp.StatusCode, body)
	}
	var first archiveDoc
	if err := json.Unmarshal(body, &first); err != nil || (first.State != "queued" && first.State != "building") || first.Limits.MaxTiles == 0 {
		t.Fatalf("first request's description: %s (%v)", body, err)
	}
	d := waitArchive(t, e, path, "", func(d archiveDoc) bool { return d.Ready && d.State == "ready" })
	if d.File.MaxZoom != tilearchives.DefaultVectorMaxZoom || d.File.Tiles == 0 || d.File.Bytes == 0 {
		t.Errorf("built file: %+v", *d.File)
	}
	resp, full := archiveGet(t, e, path, "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Accept-Ranges") != "bytes" || int64(len(full)) != d.File.Bytes {
		t.Fatalf("whole file: %d, Accept-Ranges %q, %d bytes of %d", resp.StatusCode, resp.Header.Get("Accept-Ranges"), len(full), d.File.Bytes)
	}
	etag := resp.Header.Get("ETag")
	if etag != `"`+d.File.ETag+`"` {
		t.Errorf("ETag %s, description says %s", etag, d.File.ETag)
	}
	h := readPMTilesHeader(t, full)
	if h.TileType != 1 || h.MinZoom != 0 || h.MaxZoom != tilearchives.DefaultVectorMaxZoom || h.Addressed != uint64(d.File.Tiles) {
		t.Errorf("header: %+v, described %+v", h, *d.File)
	}
	if h.Bounds[0] < west-0.01 || h.Bounds[2] > west+span+0.01 || h.Bounds[1] < south-0.01 || h.Bounds[3] > south+span {
		t.Errorf("header bounds %v, want within the fixture box", h.Bounds)
	}
	checkRanges(t, e, path, "", full, etag)
	// The layer's usage figures: every answered request, two downloads
	// (the whole file asked for, and sent whole again for a stale
	// If-Range); ranges and 304s are not downloads.
	if _, err := e.Server.Resolver.Usage.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	period, _ := usage.ParsePeriod("", "", time.Now())
	figs, err := usage.DatasetFigures(t.Context(), e.Store, usage.Layer, id, period)
	if err != nil {
		t.Fatal(err)
	}
	if got := usage.Total(figs); len(figs) != 1 || figs[0].Service != usage.TileArchive.String() || got.Downloads != 2 || got.Requests < 5 || got.Bytes < int64(len(full)) {
		t.Errorf("usage figures %+v, want tile-archive requests with two downloads", figs)
	}

	// GraphQL lists the layer's archives with their state and size.
	g := e.GraphQL(t, owner.Key, `query($id: ID!) { layer(id: $id) { tileArchives {
		service state ready rebuilding progress bytes tilesDone builtMaxZoom versionId error path } } }`,
		map[string]any{"id": id})
	var gd struct {
		Layer struct {
			TileArchives []struct {
				Service, State, Path string
				Ready                bool
				Bytes                int64
				BuiltMaxZoom         int
			}
		}
	}
	if err := json.Unmarshal(g.Data, &gd); err != nil || len(g.Errors) > 0 {
		t.Fatalf("GraphQL: %s %v %v", g.Data, g.Errors, err)
	}
	states := map[string]string{}
	for _, a := range gd.Layer.TileArchives {
		states[a.Service] = a.State
		if a.Service == tilearchives.ServiceVectorPMTiles && (!a.Ready || a.Bytes != d.File.Bytes || a.BuiltMaxZoom != 14 || a.Path != path) {
			t.Errorf("GraphQL archive: %+v", a)
		}
	}
	if len(states) != 3 || states[tilearchives.ServiceVectorPMTiles] != "ready" || states[tilearchives.ServiceMBTiles] != "none" {
		t.Errorf("GraphQL archives: %s", g.Data)
	}

	// Progress and the outcome reached the owner's notifications (the
	// job stream subscriptions read).
	ctx := t.Context()
	for _, kind := range []string{"tile_archive.building", "tile_archive.progress", "tile_archive.ready"} {
		if n := e.Store.Client.Notification.Query().Where(notification.UserID(owner.User.ID), notification.Kind(kind)).CountX(ctx); n == 0 {
			t.Errorf("no %s notification for the owner", kind)
		}
	}

	// A new version publishes: the archive is rebuilt from it, and the
	// old file serves until then.
	vid := writeVersion(t, e, owner.User, id, "Archived points", "Point", randomPoints(12, 500), true)
	resp, _ = archiveGet(t, e, path, "", map[string]string{"Range": "bytes=0-126"})
	if resp.StatusCode != http.StatusPartialContent {
		t.Errorf("during the rebuild: %d, want the previous file", resp.StatusCode)
	}
	d2 := waitArchive(t, e, path, "", func(d archiveDoc) bool { return d.State == "ready" && d.File.VersionID == vid })
	if d2.File.ETag == d.File.ETag {
		t.Errorf("rebuilt file kept ETag %s", d2.File.ETag)
	}
	resp, full2 := archiveGet(t, e, path, "", nil)
	if resp.Header.Get("ETag") != `"`+d2.File.ETag+`"` || bytes.Equal(full, full2) {
		t.Errorf("after the rebuild: ETag %s, same bytes %v", resp.Header.Get("ETag"), bytes.Equal(full, full2))
	}
	checkRanges(t, e, path, "", full2, resp.Header.Get("ETag"))
	// The previous file was removed from blob storage.
	if ok, _ := e.Server.Resolver.Blobs.Exists(ctx, "tilearchives/layer-"+itoa(id)+"/vector-tile-pmtiles-"+strings.TrimPrefix(strings.Split(d.File.ETag, "-b")[1], "")+".pmtiles"); ok {
		t.Errorf("the previous file is still stored")
	}
}

// startS3 starts versitygw with a bucket and returns the blob URL of it.
func startS3(t *testing.T) string {
	t.Helper()
	s3 := s3test.Start(t)
	s3.CreateBucket(t, "archives")
	t.Setenv("AWS_ACCESS_KEY_ID", s3test.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3test.SecretKey)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "us-east-1")
	return "s3://archives?endpoint=" + url.QueryEscape(s3.Endpoint) + "&region=us-east-1&use_path_style=true"
}

// Issue 28, point 3: a layer's archive builds, serves by ranges and is
// rebuilt on publish, from local blob storage.
func TestTileArchiveBuildServeRebuild(t *testing.T) {
	each(t, buildServeRebuild)
}

// The same from S3 blob storage (versitygw), by the same URLs.
func TestTileArchiveFromS3(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s3 := startS3(t)
		buildServeRebuild(t, servertest.NewWith(t, st, func(c *server.Config) { c.BlobURL = s3 }))
	})
}

// Limits are stated before a build and a request beyond them is refused
// with a message naming the limit; the default range lowers its deepest
// zoom to fit; who may ask for a build.
func TestTileArchiveLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.NewWith(t, st, func(c *server.Config) { c.TileArchives = tilearchives.Limits{MaxTiles: 40} })
		owner := e.NewUser(t, "Owner")
		other := e.NewUser(t, "Other")
		id := publishLayer(t, e, owner.User, "Limited squares", "Polygon", randomSquares(5, 40))
		path := "/services/tiles/v1/layer=" + itoa(id) + "/tiles.mbtiles"

		resp, body := archiveGet(t, e, path+".json", owner.Key, nil)
		var d archiveDoc
		if err := json.Unmarshal(body, &d); resp.StatusCode != 200 || err != nil {
			t.Fatalf("description: %d %s", resp.StatusCode, body)
		}
		if d.State != "none" || d.Limits.MaxTiles != 40 || d.Limits.DefaultMaxZoom != 14 || d.Plan == nil || d.Plan.MaxZoom >= 14 || d.Plan.Tiles > 40 {
			t.Fatalf("description before any build: %s", body)
		}

		post := func(key, query string) (int, string) {
			r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: e.HTTP.URL + path + ".json?" + query, Key: key})
			return r.Status, string(r.Body)
		}
		if code, msg := post(owner.Key, "minzoom=0&maxzoom=14"); code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "max_tiles") {
			t.Errorf("a range over max_tiles: %d %s", code, msg)
		}
		if code, msg := post(owner.Key, "minzoom=3&maxzoom=2"); code != http.StatusBadRequest {
			t.Errorf("minzoom over maxzoom: %d %s", code, msg)
		}
		if code, msg := post(owner.Key, "maxzoom=x"); code != http.StatusBadRequest || !strings.Contains(msg, "maxzoom") {
			t.Errorf("maxzoom=x: %d %s", code, msg)
		}
		if code, msg := post(owner.Key, "maxzoom=99"); code != http.StatusBadRequest {
			t.Errorf("maxzoom=99: %d %s", code, msg)
		}
		if code, msg := post(other.Key, "maxzoom=3"); code != http.StatusForbidden {
			t.Errorf("a viewer asking for a build: %d %s", code, msg)
		}
		if code, msg := post("", "maxzoom=3"); code != http.StatusUnauthorized {
			t.Errorf("anonymous build request: %d %s", code, msg)
		}
		if code, msg := post(e.Token(t, owner.User, "tiles"), "maxzoom=3"); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("a build request without layers:write: %d %s", code, msg)
		}
		if code, msg := post(owner.Key, "minzoom=0&maxzoom=3"); code != http.StatusAccepted {
			t.Fatalf("a range within the limits: %d %s", code, msg)
		}
		got := waitArchive(t, e, path, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		if got.File.MaxZoom > 3 || got.File.Tiles == 0 {
			t.Errorf("requested z0-3: %+v", *got.File)
		}

		// The default range fits itself under the limit: the vector
		// PMTiles archive (z0-14 spans over 40 tiles) stops shallower.
		vp := "/services/tiles/v1/layer=" + itoa(id) + "/tiles.pmtiles"
		archiveGet(t, e, vp, owner.Key, nil)
		vd := waitArchive(t, e, vp, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		if vd.File.MaxZoom >= tilearchives.DefaultVectorMaxZoom || vd.File.Tiles > 40 || vd.File.Tiles == 0 {
			t.Errorf("default vector range under max_tiles 40: %+v", *vd.File)
		}
		rp := "/services/tiles/v1/layer=" + itoa(id) + "/raster.pmtiles"
		archiveGet(t, e, rp, owner.Key, nil)
		rd := waitArchive(t, e, rp, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		if rd.File.Tiles > 40 || rd.File.Tiles == 0 {
			t.Errorf("default raster range under max_tiles 40: %+v", *rd.File)
		}
		resp, full := archiveGet(t, e, rp, owner.Key, nil)
		if h := readPMTilesHeader(t, full); resp.StatusCode != 200 || h.TileType != 2 {
			t.Errorf("raster archive: %d, header %+v", resp.StatusCode, h)
		}
	})
}

// Bad paths and owners never answer 500.
func TestTileArchiveBadPaths(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publishLayer(t, e, owner.User, "Points", "Point", randomPoints(3, 10))
		set := publishSet(t, e, owner.User, "A set", id)
		for path, want := range map[string]int{
			"/services/tiles/v1/set=" + itoa(set) + "/tiles.pmtiles":      http.StatusNotFound,
			"/services/tiles/v1/set=" + itoa(set) + "/tiles.mbtiles.json": http.StatusNotFound,
			"/services/tiles/v1/layer=abc/tiles.pmtiles":                  http.StatusNotFound,
			"/services/tiles/v1/layer=0/tiles.pmtiles":                    http.StatusNotFound,
			"/services/tiles/v1/item=3/raster.pmtiles":                    http.StatusNotFound,
			"/services/tiles/v1/layer=999999/tiles.pmtiles":               http.StatusNotFound,
			"/services/tiles/v1/layer=999999/tiles.pmtiles.json":          http.StatusNotFound,
		} {
			resp, body := archiveGet(t, e, path, owner.Key, nil)
			if resp.StatusCode != want {
				t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, body, want)
			}
		}
		// Anonymous callers are told to authenticate, as the tile services do.
		resp, _ := archiveGet(t, e, "/services/tiles/v1/layer=999999/tiles.pmtiles", "", nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous, unknown layer: %d", resp.StatusCode)
		}
		resp, _ = archiveGet(t, e, "/services/tiles/v1/layer="+itoa(id)+"/tiles.pmtiles", e.Token(t, owner.User, "query"), nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a key without the tiles scope: %d", resp.StatusCode)
		}
		// A set's raster archive draws its members.
		sp := "/services/tiles/v1/set=" + itoa(set) + "/raster.pmtiles"
		archiveGet(t, e, sp, owner.Key, nil)
		waitArchive(t, e, sp, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		resp, full := archiveGet(t, e, sp, owner.Key, nil)
		if h := readPMTilesHeader(t, full); resp.StatusCode != 200 || h.TileType != 2 || h.Addressed == 0 {
			t.Errorf("set raster archive: %d, header %+v", resp.StatusCode, h)
		}
	})
}

// A member's publish rebuilds the raster archive of the set that holds
// it: the file's ETag changes, and the new file draws the member's new
// version.
func TestTileArchiveSetRebuildsOnMemberPublish(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		member := publishLayer(t, e, owner.User, "Member", "Point", randomPoints(31, 30))
		set := publishSet(t, e, owner.User, "Rebuilt set", member)
		path := "/services/tiles/v1/set=" + itoa(set) + "/raster.pmtiles"
		archiveGet(t, e, path, owner.Key, nil)
		d := waitArchive(t, e, path, owner.Key, func(d archiveDoc) bool { return d.State == "ready" })
		writeVersion(t, e, owner.User, member, "Member", "Point", randomPoints(32, 60), true)
		d2 := waitArchive(t, e, path, owner.Key, func(d2 archiveDoc) bool { return d2.State == "ready" && d2.File.ETag != d.File.ETag })
		resp, _ := archiveGet(t, e, path, owner.Key, map[string]string{"Range": "bytes=0-126"})
		if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("ETag") != `"`+d2.File.ETag+`"` {
			t.Errorf("after the member's publish: %d, ETag %s, want %s", resp.StatusCode, resp.Header.Get("ETag"), d2.File.ETag)
		}
	})
}
