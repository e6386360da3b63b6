package rest_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/remote/s3source/s3test"
	"github.com/geopub/geopub/internal/remote/smbsource/smbtest"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// fileServer is a remote file server (an object store, a file share) as
// the shared scenario uses it. Each backend's run gets a fresh place on it
// (a bucket, a folder).
type fileServer struct {
	// newPlace makes an empty place and names it.
	newPlace func(t *testing.T) string
	// source is the body creating a source of the place with password.
	source func(place, password string) map[string]any
	// unreachable is a source body whose server does not answer.
	unreachable map[string]any
	put         func(t *testing.T, place, rel string, body []byte)
	remove      func(t *testing.T, place, rel string)
	password    string
}

// syncBuffer is a log destination tests read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const roadsV2 = `{"type": "FeatureCollection", "features": [
	{"type": "Feature", "properties": {"name": "State Highway 1", "lanes": 2}, "geometry": {"type": "LineString", "coordinates": [[174.77, -41.28], [174.78, -41.29]]}},
	{"type": "Feature", "properties": {"name": "Lambton Quay", "lanes": 4}, "geometry": {"type": "LineString", "coordinates": [[174.775, -41.283], [174.776, -41.284]]}},
	{"type": "Feature", "properties": {"name": "The Terrace", "lanes": 2}, "geometry": {"type": "LineString", "coordinates": [[174.772, -41.285], [174.773, -41.286]]}}]}`

// remoteFilesScenario runs on both backends: create, scan (a GeoJSON, a
// zipped Shapefile in a subfolder, a CSV), layer, import, publish, change
// the server's files, re-scan; wrong credentials and an unreachable server
// fail the scan clearly without the secret anywhere.
func remoteFilesScenario(t *testing.T, fs fileServer) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		logs := &syncBuffer{}
		e := servertest.NewWith(t, st, func(c *server.Config) {
			c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		pub := e.NewUser(t, "Publisher")
		place := fs.newPlace(t)
		shp := t.TempDir()
		ingesttest.Shapefile(t, shp, "towns")
		fs.put(t, place, "roads.geojson", []byte(fixtureFiles["roads.geojson"]))
		fs.put(t, place, "sites.csv", []byte(fixtureFiles["sites.csv"]))
		fs.put(t, place, "parcels/towns.zip", zipDir(t, shp))

		body := fs.source(place, fs.password)
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: body})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		if strings.Contains(string(r.Body), fs.password) || strings.Contains(string(r.Body), `"password"`) || strings.Contains(string(r.Body), `"username"`) {
			t.Fatalf("credentials rendered: %s", r.Body)
		}
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 3 {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		roads, sites, towns := ds["roads.geojson"], ds["sites.csv"], ds["parcels/towns/towns.shp"]
		if roads.NumFeatures != 2 || sites.NumFeatures != 3 || towns.GeometryType != "point" || towns.NumFeatures != 3 {
			t.Fatalf("datasources %+v", ds)
		}

		// Import (which reads the server again) and publish.
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": []int{roads.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" || l.Data.FeatureCount != 2 {
			t.Fatalf("import %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}

		// One file added, one changed, one removed.
		fs.put(t, place, "extra/dunedin.geojson", []byte(`{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Point", "coordinates": [170.5, -45.9]}}]}`))
		fs.put(t, place, "roads.geojson", []byte(roadsV2))
		fs.remove(t, place, "sites.csv")
		expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key}), http.StatusCreated)
		again := waitScan(t, e, pub.Key, src.ID)
		if again.Status != "completed" || again.ChangeCounts["added"] != 1 || again.ChangeCounts["updated"] != 1 || again.ChangeCounts["deleted"] != 1 {
			t.Fatalf("rescan %+v", again)
		}
		if ds := datasources(t, e, pub.Key, src.ID); ds["roads.geojson"].NumFeatures != 3 || ds["extra/dunedin.geojson"].GeometryType != "point" {
			t.Fatalf("datasources after the change %+v", ds)
		}

		// Wrong credentials: a failed scan, a clear message, no secret.
		wrong := "Wr0ng-" + fs.password
		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: fs.source(place, wrong)})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &src)
		sc = waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "refused the credentials") {
			t.Fatalf("scan with wrong credentials %+v", sc)
		}
		seen := []string{logs.String()}
		for _, path := range []string{sc.URL, sc.Log, fmt.Sprintf("/sources/%d/", src.ID), fmt.Sprintf("/sources/%d/scans/", src.ID)} {
			seen = append(seen, string(e.Do(t, req{Path: path, Key: pub.Key}).Body))
		}
		for _, s := range seen {
			if strings.Contains(s, wrong) || strings.Contains(s, fs.password) {
				t.Fatalf("the secret leaked: %s", s)
			}
		}

		// An unreachable server: a failed scan saying so.
		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: fs.unreachable})
		expectStatus(t, r, http.StatusCreated)
		r.JSON(t, &src)
		sc = waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "Could not reach") {
			t.Fatalf("scan of an unreachable server %+v", sc)
		}
	})
}

func TestObjectStoreSource(t *testing.T) {
	srv := s3test.Start(t)
	n := 0
	remoteFilesScenario(t, fileServer{
		newPlace: func(t *testing.T) string {
			n++
			bucket := fmt.Sprintf("geodata-%d", n)
			srv.CreateBucket(t, bucket)
			return bucket
		},
		source: func(bucket, password string) map[string]any {
			return map[string]any{"type": "s3", "title": "Bucket", "url_remote": "s3://" + bucket + "/wellington",
				"options": map[string]any{"endpoint": srv.Endpoint, "region": "us-east-1", "username": s3test.AccessKey, "password": password}}
		},
		unreachable: map[string]any{"type": "s3", "title": "Nowhere", "url_remote": "s3://geodata/",
			"options": map[string]any{"endpoint": "http://127.0.0.1:1", "username": s3test.AccessKey, "password": s3test.SecretKey}},
		put: func(t *testing.T, bucket, rel string, body []byte) {
			srv.Put(t, bucket, "wellington/"+rel, body)
		},
		remove: func(t *testing.T, bucket, rel string) {
			srv.Delete(t, bucket, "wellington/"+rel)
		},
		password: s3test.SecretKey,
	})
}

func TestFileShareSource(t *testing.T) {
	srv := smbtest.Start(t)
	n := 0
	remoteFilesScenario(t, fileServer{
		newPlace: func(t *testing.T) string {
			n++
			return fmt.Sprintf("run%d/wellington", n)
		},
		source: func(folder, password string) map[string]any {
			return map[string]any{"type": "cifs", "title": "Share", "url_remote": srv.URL(folder),
				"options": map[string]any{"username": srv.User, "password": password}}
		},
		unreachable: map[string]any{"type": "cifs", "title": "Nowhere", "url_remote": "cifs://127.0.0.1:1/data",
			"options": map[string]any{"username": srv.User, "password": smbtest.Password}},
		put: func(t *testing.T, folder, rel string, body []byte) {
			srv.Write(t, filepath.ToSlash(filepath.Join(folder, rel)), body)
		},
		remove: func(t *testing.T, folder, rel string) {
			srv.Remove(t, folder+"/"+rel)
		},
		password: smbtest.Password,
	})
}
