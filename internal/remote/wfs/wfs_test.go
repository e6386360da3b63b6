package wfs_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/wfs"
)

// Discover and Fetch against MapServer, for both versions and both output
// formats: every type found with its count, fields and CRS; every feature
// copied, over several pages of at most pageCap features.
func TestWFSMapServer(t *testing.T) {
	srv := startMapServer(t, nil)
	gdal.Init()
	for _, tc := range []struct{ name, path, prefix string }{
		{"2.0.0 GeoJSON", "/json", "ms:"},
		{"2.0.0 GML", "/gml", "ms:"},
		{"1.1.0 GeoJSON", "/json?version=1.1.0", ""},
		{"1.1.0 GML", "/gml?SERVICE=WFS&VERSION=1.1.0&REQUEST=GetCapabilities", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := remote.Conn{URL: srv.URL + tc.path, SSLVerify: true, Fetch: loopback()}
			var notes []string
			ds, err := wfs.Kind{}.Discover(ctx, c, func(s string) { notes = append(notes, s) })
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			if len(ds) != 2 {
				t.Fatalf("Discover found %d types, want 2: %+v (notes %q)", len(ds), ds, notes)
			}
			byName := map[string]ingest.Datasource{}
			for _, d := range ds {
				byName[d.Path] = d
			}
			tw, ok := byName[tc.prefix+"towns"]
			if !ok {
				t.Fatalf("no %stowns among %+v", tc.prefix, ds)
			}
			want := []ingest.Field{{Name: "msGeometry", Type: "geometry"}, {Name: "id", Type: "integer"}, {Name: "name", Type: "string"}, {Name: "pop", Type: "double"}}
			if tw.FeatureCount != townCount || tw.CRS != "EPSG:4326" || tw.GeometryType != "point" || tw.DataType != ingest.TypeVector ||
				tw.Title != "Towns" || !reflect.DeepEqual(tw.Fields, want) {
				t.Errorf("towns = %+v", tw)
			}
			if tw.Extent == nil || math.Abs(tw.Extent[0]-170) > 1e-5 || math.Abs(tw.Extent[3]+40) > 1e-5 {
				t.Errorf("towns extent = %v", tw.Extent)
			}
			pa := byName[tc.prefix+"parcels"]
			wantP := []ingest.Field{{Name: "shape", Type: "geometry"}, {Name: "code", Type: "string"}, {Name: "id", Type: "integer"}}
			if pa.FeatureCount != parcelCount || pa.GeometryType != "polygon" || !reflect.DeepEqual(pa.Fields, wantP) {
				t.Errorf("parcels = %+v", pa)
			}
			grown := tw
			grown.FeatureCount++
			if wfs.Fingerprint(tw) == wfs.Fingerprint(pa) || wfs.Fingerprint(tw) == wfs.Fingerprint(grown) {
				t.Error("fingerprints do not tell the types apart")
			}

			dir := t.TempDir()
			var last float64
			file, layer, err := wfs.Kind{}.Fetch(ctx, c, tw.Path, dir, func(f float64) {
				if f < last {
					t.Errorf("progress went back from %v to %v", last, f)
				}
				last = f
			})
			if err != nil {
				t.Fatalf("Fetch towns: %v", err)
			}
			if last != 1 {
				t.Errorf("progress ended at %v", last)
			}
			got := readBack(t, filepath.Join(dir, file), layer, "4326")
			if len(got) != townCount {
				t.Fatalf("fetched %d towns, want %d", len(got), townCount)
			}
			for _, w := range towns() {
				g, ok := got[w.ID]
				if !ok {
					t.Errorf("town %d missing", w.ID)
					continue
				}
				if g.fields["name"] != w.Name || g.fields["pop"] != w.Pop {
					t.Errorf("town %d fields = %v, want %+v", w.ID, g.fields, w)
				}
				near(t, w.ID, g.coords, []float64{w.X, w.Y})
			}

			file, layer, err = wfs.Kind{}.Fetch(ctx, c, pa.Path, dir, func(float64) {})
			if err != nil {
				t.Fatalf("Fetch parcels: %v", err)
			}
			gotP := readBack(t, filepath.Join(dir, file), layer, "4326")
			if len(gotP) != parcelCount {
				t.Fatalf("fetched %d parcels, want %d", len(gotP), parcelCount)
			}
			for _, p := range parcels() {
				g := gotP[p.ID]
				if g.fields["code"] != p.Code || g.kind != "Polygon" && g.kind != "MultiPolygon" {
					t.Errorf("parcel %d = %+v", p.ID, g)
				}
				var flat []float64
				for _, pt := range p.Ring {
					flat = append(flat, pt[0], pt[1])
				}
				near(t, p.ID, g.coords, flat)
			}
		})
	}
}

type readFeature struct {
	fields map[string]any
	kind   string
	coords []float64
}

// readBack opens the fetched file with GDAL, as an import does, and
// returns its features by id.
func readBack(t *testing.T, path, layer, code string) map[int]readFeature {
	t.Helper()
	ds, err := godal.Open(path, godal.VectorOnly())
	if err != nil {
		t.Fatalf("GDAL cannot open the fetched file: %v", err)
	}
	defer ds.Close()
	l := ds.LayerByName(layer)
	if l == nil {
		t.Fatalf("no layer %q in the fetched file", layer)
	}
	if sr := l.SpatialRef(); sr != nil {
		if got := sr.AuthorityCode(""); got != code {
			t.Errorf("fetched layer CRS authority code %q, want %q", got, code)
		}
	}
	out := map[int]readFeature{}
	for f := l.NextFeature(); f != nil; f = l.NextFeature() {
		rf := readFeature{fields: map[string]any{}}
		for name, fl := range f.Fields() {
			switch fl.Type() {
			case godal.FTInt, godal.FTInt64:
				rf.fields[name] = int(fl.Int())
			case godal.FTReal:
				rf.fields[name] = fl.Float()
			default:
				rf.fields[name] = fl.String()
			}
		}
		if g := f.Geometry(); g != nil {
			js, err := g.GeoJSON(godal.SignificantDigits(15))
			if err != nil {
				t.Fatal(err)
			}
			var gj struct {
				Type        string
				Coordinates any
			}
			if err := json.Unmarshal([]byte(js), &gj); err != nil {
				t.Fatal(err)
			}
			rf.kind, rf.coords = gj.Type, flatten(gj.Coordinates, nil)
			g.Close()
		}
		id, _ := rf.fields["id"].(int)
		out[id] = rf
		f.Close()
	}
	return out
}

func flatten(v any, out []float64) []float64 {
	switch x := v.(type) {
	case float64:
		return append(out, x)
	case []any:
		for _, e := range x {
			out = append(out, flatten(e, nil)...)
		}
	}
	return out
}

func near(t *testing.T, id int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("feature %d: %d coordinates, want %d (%v)", id, len(got), len(want), got)
		return
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-7 {
			t.Errorf("feature %d: coordinates %v, want %v", id, got, want)
			return
		}
	}
}

// A wrong password is a clear error naming the refusal, and neither the
// password nor the user name appear in it.
func TestWFSCredentials(t *testing.T) {
	srv := startMapServer(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "reader" || p != "s3cret-pass" {
				w.Header().Set("WWW-Authenticate", `Basic realm="wfs"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	c := remote.Conn{URL: srv.URL + "/json", Username: "reader", Password: "s3cret-pass", SSLVerify: true, Fetch: loopback()}
	ds, err := wfs.Kind{}.Discover(ctx, c, func(string) {})
	if err != nil || len(ds) != 2 {
		t.Fatalf("Discover with credentials: %v, %d types", err, len(ds))
	}
	c.Password = "wrong-pass-xyz"
	_, err = wfs.Kind{}.Discover(ctx, c, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong password: %v", err)
	}
	if strings.Contains(err.Error(), "wrong-pass-xyz") || strings.Contains(err.Error(), "reader") {
		t.Errorf("the error shows a credential: %v", err)
	}
}
