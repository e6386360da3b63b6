package rest_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// Issue acceptance, bad input: "a zip with ../ entries, a zip bomb, a
// truncated Shapefile, mixed schemas in one layer request, credentials in
// url_remote, a private-address URL: each a clear 4xx or a scan error, and
// nothing else changed". The ../ zip is TestUnsafeArchiveFailsTheScan,
// mixed schemas TestLayerPipeline, credentials and private addresses at
// create TestSourcesCRUD; these are the rest.

// unchanged records how many datasources and layers exist, to show that a
// refused input added none.
type unchanged struct{ datasources, layers int }

func countsOf(t *testing.T, e *env) unchanged {
	t.Helper()
	return unchanged{e.Store.Client.Datasource.Query().CountX(t.Context()), e.Store.Client.Layer.Query().CountX(t.Context())}
}

func (u unchanged) check(t *testing.T, e *env) {
	t.Helper()
	if now := countsOf(t, e); now != u {
		t.Fatalf("datasources and layers changed from %+v to %+v", u, now)
	}
}

// zipBomb is a zip of one entry of mb MiB of zeros at deflate's best
// ratio, about 1,024:1: above the unpacker's default limit of 1,000:1.
func zipBomb(t *testing.T, mb int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	w, err := zw.Create("zeros.csv")
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range mb {
		w.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A zip bomb fails the scan with a message naming the limit, under the
// default limits, and adds no datasource.
func TestZipBombFailsTheScan(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		before := countsOf(t, e)
		src := upload(t, e, pub.Key, map[string][]byte{"bomb.zip": zipBomb(t, 32)})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "compression ratio above 1000") {
			t.Fatalf("scan %+v", sc)
		}
		before.check(t, e)
	})
}

// A Shapefile cut short is a scan problem with a clear message in the
// scan's log; the scan completes with the good files' datasources only.
func TestTruncatedShapefileIsAScanProblem(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		dir := t.TempDir()
		ingesttest.Shapefile(t, dir, "cut")
		ingesttest.Shapefile(t, dir, "ok")
		shp := filepath.Join(dir, "cut.shp")
		b, err := os.ReadFile(shp)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shp, b[:len(b)-30], 0o644); err != nil { // the last point cut
			t.Fatal(err)
		}
		before := countsOf(t, e)
		src := upload(t, e, pub.Key, map[string][]byte{"towns.zip": zipDir(t, dir)})
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		r := e.Do(t, req{Path: sc.Log, Key: pub.Key})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Skipped cut.shp: feature #2: feature read failed") {
			t.Fatalf("log %d %q", r.Status, r.Body)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		if len(ds) != 1 || ds["ok.shp"].NumFeatures != 3 {
			t.Fatalf("datasources %+v", ds)
		}
		if now := countsOf(t, e); now.datasources != before.datasources+1 || now.layers != before.layers {
			t.Fatalf("before %+v, after %+v", before, now)
		}
	})
}

// A URL whose server redirects to a private address (here the cloud
// metadata address) fails the scan, saying so, and adds no datasource.
// Private addresses given directly are refused at create
// (TestSourcesCRUD).
func TestRedirectToPrivateAddressFailsTheScan(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/latest/data.zip", http.StatusFound)
		}))
		defer redirector.Close()
		before := countsOf(t, e)
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Sneaky", "url_remote": redirector.URL + "/data.zip"}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "private or internal address") {
			t.Fatalf("scan %+v", sc)
		}
		before.check(t, e)
	})
}

// Credentials refused in a PUT leave the source as it was.
func TestCredentialsInURLRemoteChangeNothing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "url", "title": "Parcels", "url_remote": "https://93.184.216.34/parcels.zip"}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		before := e.Store.Client.Source.GetX(t.Context(), src.ID)
		r = e.Do(t, req{Method: "PUT", Path: src.URL, Key: pub.Key, Body: map[string]any{
			"title": "Changed", "url_remote": "https://u:p@93.184.216.34/other.zip"}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), `"url_remote"`) {
			t.Fatalf("body %s does not name url_remote", r.Body)
		}
		after := e.Store.Client.Source.GetX(t.Context(), src.ID)
		if after.Title != before.Title || after.URLRemote != before.URLRemote {
			t.Fatalf("a refused PUT changed the source: %+v", after)
		}
	})
}
