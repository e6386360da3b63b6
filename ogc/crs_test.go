package ogc_test

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/airbusgeo/godal"
	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"
)

// gdalReproject transforms lon, lat pairs to EPSG code with GDAL (godal,
// traditional GIS order: easting first).
func gdalReproject(t *testing.T, code int, lonlat []float64) []float64 {
	t.Helper()
	return gdalTransform(t, 4326, code, lonlat)
}

// gdalTransform transforms x, y pairs from EPSG code from to EPSG code to
// with GDAL, in traditional GIS order.
func gdalTransform(t *testing.T, from, to int, xy []float64) []float64 {
	t.Helper()
	src, err := godal.NewSpatialRefFromEPSG(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := godal.NewSpatialRefFromEPSG(to)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	tr, err := godal.NewTransform(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	n := len(xy) / 2
	xs, ys := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		xs[i], ys[i] = xy[2*i], xy[2*i+1]
	}
	if err := tr.TransformEx(xs, ys, make([]float64, n), nil); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 0, 2*n)
	for i := 0; i < n; i++ {
		out = append(out, xs[i], ys[i])
	}
	return out
}

func coords(t *testing.T, raw []byte) []float64 {
	t.Helper()
	var g geom.T
	if err := geojson.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g.FlatCoords()
}

// Part 2: crs and bbox-crs with EPSG codes, axis order as the CRS
// defines it, Content-Crs.
func testCRS(t *testing.T, f *fixture) {
	key := f.reader.Key
	items := "/collections/" + layerID(f.polygons) + "/items?limit=100"
	byID := map[int64][]float64{}
	for _, p := range f.polygonFeatures {
		byID[p.fid] = p.g.FlatCoords()
	}
	for _, tc := range []struct {
		code int
		// swap: the CRS's first axis is northing or latitude.
		swap bool
	}{{4326, true}, {2193, true}, {3857, false}, {32760, false}} {
		t.Run("/conf/crs/crs-parameter/EPSG:"+itoa(tc.code), func(t *testing.T) {
			uri := "http://www.opengis.net/def/crs/EPSG/0/" + itoa(tc.code)
			r := f.get(t, key, items+"&crs="+url.QueryEscape(uri))
			var fc collectionJSON
			r.json(t, http.StatusOK, "application/geo+json", &fc)
			if r.header.Get("Content-Crs") != "<"+uri+">" {
				t.Errorf("Content-Crs %q", r.header.Get("Content-Crs"))
			}
			if len(fc.Features) != len(f.polygonFeatures) {
				t.Fatalf("%d features", len(fc.Features))
			}
			for _, ft := range fc.Features {
				got := coords(t, ft.Geometry)
				want := gdalReproject(t, tc.code, byID[ft.ID])
				if tc.code == 4326 {
					want = slices.Clone(byID[ft.ID])
				}
				if tc.swap {
					for i := 0; i+1 < len(want); i += 2 {
						want[i], want[i+1] = want[i+1], want[i]
					}
				}
				if len(got) != len(want) {
					t.Fatalf("feature %d: %d coordinates, want %d", ft.ID, len(got), len(want))
				}
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-6 {
						t.Fatalf("feature %d coordinate %d: %v, GDAL gives %v", ft.ID, i, got[i], want[i])
					}
				}
			}
		})
	}
	t.Run("/conf/crs/bbox-crs-parameter", func(t *testing.T) {
		want := []int64{1, 3, 6}
		ids := func(path string) []int64 {
			var fc collectionJSON
			f.get(t, key, path).json(t, http.StatusOK, "application/geo+json", &fc)
			var out []int64
			for _, ft := range fc.Features {
				out = append(out, ft.ID)
			}
			return out
		}
		// EPSG:4326 takes latitude first.
		got := ids(items + "&bbox=-41.30,174.80,-41.20,174.90&bbox-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/4326"))
		if !slices.Equal(got, want) {
			t.Errorf("EPSG:4326 bbox: %v, want %v", got, want)
		}
		got = ids(items + "&bbox=174.80,-41.30,174.90,-41.20&bbox-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/OGC/1.3/CRS84"))
		if !slices.Equal(got, want) {
			t.Errorf("CRS84 bbox: %v, want %v", got, want)
		}
		// Web Mercator box of the first polygon only (with a few metres
		// of margin).
		c := gdalReproject(t, 3857, []float64{174.82, -41.28, 174.84, -41.26})
		got = ids(items + "&bbox=" + url.QueryEscape(ftoa(c[0]-5)+","+ftoa(c[1]-5)+","+ftoa(c[2]+5)+","+ftoa(c[3]+5)) +
			"&bbox-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/3857"))
		if !slices.Equal(got, []int64{1, 3}) {
			t.Errorf("EPSG:3857 bbox: %v, want [1 3]", got)
		}
	})
	t.Run("invalid crs", func(t *testing.T) {
		for _, q := range []string{
			"&crs=EPSG:999999", "&crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/0"), "&crs=nonsense",
			"&bbox-crs=" + url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/4326"), // without bbox
			"&bbox=0,0,1,1&bbox-crs=foo",
		} {
			var ex exception
			f.get(t, key, items+q).json(t, http.StatusBadRequest, "application/json", &ex)
			if ex.Code != "InvalidParameterValue" {
				t.Errorf("%s: %+v", q, ex)
			}
		}
	})
	t.Run("single feature", func(t *testing.T) {
		r := f.get(t, key, "/collections/"+layerID(f.polygons)+"/items/1?crs="+url.QueryEscape("http://www.opengis.net/def/crs/EPSG/0/4326"))
		var ft featureJSON
		r.json(t, http.StatusOK, "application/geo+json", &ft)
		if got := coords(t, ft.Geometry); got[0] != -41.28 || got[1] != 174.82 {
			t.Errorf("EPSG:4326 feature starts at %v, want latitude first", got[:2])
		}
	})
}
