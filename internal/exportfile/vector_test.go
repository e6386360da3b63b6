package exportfile

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// layerCase is one sample layer written in a test.
type layerCase struct {
	name, geomType string
	rows           []sampleRow
}

func sampleLayers() []layerCase {
	return []layerCase{
		{"nz-points", "point", samplePoints()},
		{"nz-lines", "linestring", sampleLines()},
		{"nz-polygons", "polygon", samplePolygons()},
	}
}

// writeAndCheck writes each sample layer in f, cropped and reprojected to
// epsg, and checks what GDAL reads back.
func writeAndCheck(t *testing.T, mime string, epsg int, o checkOpts, layers []layerCase) {
	t.Helper()
	f, ok := FormatByMIME(KindVector, mime)
	if !ok {
		t.Fatalf("no vector format %s", mime)
	}
	dir := t.TempDir()
	for _, lc := range layers {
		t.Run(lc.name, func(t *testing.T) {
			item := sampleItem(t, lc.name, lc.geomType, lc.rows)
			opts := Options{CRS: "EPSG:" + itoa(epsg)}
			if o.clipped {
				opts.Clip = clipWKB(t)
			}
			res, err := WriteVector(context.Background(), dir, item, f, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedIDs(t, lc.rows, o.clipped)
			if res.Features != int64(len(want)) {
				t.Errorf("Result.Features = %d, want %d", res.Features, len(want))
			}
			for _, side := range []string{lc.name + ".xml", lc.name + ".license.txt"} {
				if !slices.Contains(res.Files, side) {
					t.Errorf("Files %v lack %s", res.Files, side)
				}
			}
			path := filepath.Join(dir, lc.name+f.Extension())
			rb := openBack(t, path, o)
			if !o.noAttrs {
				rb.nullIDs = nullsOf(t, path)
			}
			if rb.count != len(want) {
				t.Errorf("GDAL reads %d features, want %d", rb.count, len(want))
			}
			if o.epsg != 0 {
				checkSRS(t, rb, o.epsg)
			}
			if !o.noAttrs {
				for id := range want {
					if _, ok := rb.features[id]; !ok {
						t.Errorf("feature id %d is missing", id)
					}
				}
				checkAttrs(t, rb, lc.rows, o)
			}
		})
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func TestGeoPackageCroppedReprojected(t *testing.T) {
	writeAndCheck(t, MIMEGeoPackage, 2193, checkOpts{epsg: 2193, typed: true, nulls: true, clipped: true}, sampleLayers())
}

func TestGeoPackageWholeInWGS84(t *testing.T) {
	writeAndCheck(t, MIMEGeoPackage, 4326, checkOpts{epsg: 4326, typed: true, nulls: true}, sampleLayers())
}
