package wfs_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/wfs"
)

// A type whose default CRS orders its axes northing first (EPSG:2193):
// GML coordinates come in that order in both versions and are read back
// easting first, in the type's CRS.
func TestWFSMapServerNorthingFirst(t *testing.T) {
	srv := startMapServer(t, nil)
	gdal.Init()
	tr, err := ingest.NewTransformer("EPSG:4326", "EPSG:2193")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, tc := range []struct{ name, query, typ string }{{"2.0.0", "", "ms:towns"}, {"1.1.0", "?version=1.1.0", "towns"}} {
		t.Run(tc.name, func(t *testing.T) {
			c := remote.Conn{URL: srv.URL + "/gml2193" + tc.query, SSLVerify: true, Fetch: loopback()}
			ds, err := wfs.Kind{}.Discover(context.Background(), c, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			var d ingest.Datasource
			for _, x := range ds {
				if x.Path == tc.typ {
					d = x
				}
			}
			if d.CRS != "EPSG:2193" || d.FeatureCount != townCount {
				t.Fatalf("towns = %+v", d)
			}
			dir := t.TempDir()
			file, layer, err := wfs.Kind{}.Fetch(context.Background(), c, d.Path, dir, func(float64) {})
			if err != nil {
				t.Fatal(err)
			}
			got := readBack(t, filepath.Join(dir, file), layer, "2193")
			for _, w := range towns() {
				b, err := tr.Bounds([4]float64{w.X, w.Y, w.X, w.Y})
				if err != nil {
					t.Fatal(err)
				}
				g := got[w.ID]
				if len(g.coords) != 2 || abs(g.coords[0]-b[0]) > 1e-5 || abs(g.coords[1]-b[1]) > 1e-5 {
					t.Errorf("town %d at %v, want %v (metres, six decimals in GML)", w.ID, g.coords, b[:2])
				}
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
