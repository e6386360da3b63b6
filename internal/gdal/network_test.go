package gdal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// After Init no GDAL open reaches the network, whatever the driver: a GML
// schemaLocation (WFS DescribeFeatureType), xsd:includes of URLs, a VRT
// reading through /vsicurl/ (plain, streaming, file://), URLs opened
// directly and the drivers of servers. The loopback server they all name
// sees no request.
func TestGDALReachesNoNetwork(t *testing.T) {
	gdal.Init()
	tt := ingesttest.NewTattler(t)
	dir := t.TempDir()
	files := ingesttest.SSRFFiles(tt.URL)
	files["vrt/streaming.vrt"] = strings.ReplaceAll(files["vrt/remote.vrt"], "/vsicurl/", "/vsicurl_streaming/")
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	quiet := godal.ErrLogger(func(godal.ErrorCategory, int, string) error { return nil })
	opens := []string{
		filepath.Join(dir, "wfs/towns.gml"), filepath.Join(dir, "xsd/towns.gml"),
		filepath.Join(dir, "vrt/remote.vrt"), filepath.Join(dir, "vrt/streaming.vrt"),
		"/vsicurl/" + tt.URL + "/a.tif", "/vsicurl_streaming/" + tt.URL + "/a.tif", "/vsis3_streaming/bucket/a.tif",
		tt.URL + "/a.geojson", "WFS:" + tt.URL + "/wfs", "PG:host=127.0.0.1 port=" + tt.URL[strings.LastIndex(tt.URL, ":")+1:],
	}
	for _, p := range opens {
		ds, err := godal.Open(p, quiet)
		if err != nil {
			continue
		}
		if strings.HasSuffix(p, ".gml") {
			for _, l := range ds.Layers() {
				if f := l.NextFeature(); f != nil {
					if _, ok := f.Fields()["leaked"]; ok {
						t.Errorf("%s: a field from the server's schema", p)
					}
					f.Close()
				}
			}
		} else if strings.HasSuffix(p, ".vrt") {
			buf := make([]byte, 1)
			if err := ds.Bands()[0].Read(0, 0, buf, 1, 1, quiet); err == nil && buf[0] != 0 {
				t.Errorf("%s: read a remote raster", p)
			}
		}
		ds.Close()
	}
	if got := tt.Requests(); len(got) != 0 {
		t.Errorf("GDAL sent %d request(s): %v", len(got), got)
	}
}
