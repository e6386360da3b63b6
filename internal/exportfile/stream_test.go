package exportfile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/featurerows"
)

// endlessPoints streams generated points (ISO WKB) until n rows or ctx
// ends, like featurerows.ReadRaw does.
func endlessPoints(n int64) VectorItem {
	return VectorItem{
		Name: "many", Fields: sampleFields[:3], GeometryType: "point", Count: n,
		Rows: func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
			var r featurerows.RawRow
			wkb := make([]byte, 21)
			wkb[0] = 1
			binary.LittleEndian.PutUint32(wkb[1:], 1)
			for i := int64(0); i < n; i++ {
				if i%1024 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				x, y := 172+float64(i%1000)/400, -41+float64(i/1000%1000)/500
				binary.LittleEndian.PutUint64(wkb[5:], math.Float64bits(x))
				binary.LittleEndian.PutUint64(wkb[13:], math.Float64bits(y))
				r = featurerows.RawRow{FID: i, Geom: wkb, Box: [4]float64{x, y, x, y}, HasBox: true,
					Attrs: fmt.Appendf(nil, `{"amount":%d.5,"id":%d,"label":"row %d"}`, i, i, i)}
				if err := fn(&r); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// The issue asks that a cancelled export "stops within seconds": here
// within 3, the worst case being the uninterruptible close of one
// FlatGeobuf part (about 0.3 s on a quiet machine, 2.6 s once seen on a
// machine running nine times more work than it has cores).
func TestCancelStopsWithinSeconds(t *testing.T) {
	for _, mime := range []string{MIMEGeoPackage, MIMEFlatGeobuf, MIMEShapefile} {
		t.Run(mime, func(t *testing.T) {
			f, _ := FormatByMIME(KindVector, mime)
			ctx, cancel := context.WithCancel(context.Background())
			var once sync.Once
			var cancelledAt time.Time
			// Cancel once a good many rows are written (FlatGeobuf's index
			// and GeoPackage's rollback grow with them), inside the first
			// FlatGeobuf part: a part that is already closing (GDAL sorts
			// and rewrites it, uninterruptibly) finishes before the cancel
			// returns, so the worst case is one part's close.
			o := Options{CRS: "EPSG:2193", Progress: func(share float64) {
				if share*(1<<40) > float64(FlatGeobufPartFeatures)*3/4 {
					once.Do(func() { cancelledAt = time.Now(); cancel() })
				}
			}}
			_, err := WriteVector(ctx, t.TempDir(), endlessPoints(1<<40), f, o)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("WriteVector after cancel: %v, want context.Canceled", err)
			}
			if cancelledAt.IsZero() {
				t.Fatal("no progress was reported before the cancel")
			}
			if d := time.Since(cancelledAt); d > 3*time.Second {
				t.Errorf("stopped %v after the cancel, want within 3 seconds", d)
			}
		})
	}
}

func TestProgressRisesToOne(t *testing.T) {
	old := progressEvery
	progressEvery = 0
	defer func() { progressEvery = old }()
	f, _ := FormatByMIME(KindVector, MIMEFlatGeobuf)
	var shares []float64
	res, err := WriteVector(context.Background(), t.TempDir(), endlessPoints(50_000), f,
		Options{Progress: func(s float64) { shares = append(shares, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Features != 50_000 {
		t.Errorf("wrote %d features, want 50000", res.Features)
	}
	if len(shares) < 3 || shares[len(shares)-1] != 1 || !slices.IsSorted(shares) || shares[0] <= 0 {
		t.Errorf("progress %v: want a rising series ending at 1", shares)
	}
}

func TestShapefileSplitsIntoParts(t *testing.T) {
	old := ShapefileSplitBytes
	ShapefileSplitBytes = 4000
	defer func() { ShapefileSplitBytes = old }()
	f, _ := FormatByMIME(KindVector, MIMEShapefile)
	dir := t.TempDir()
	rows := samplePolygons()
	item := sampleItem(t, "parts", "polygon", rows)
	res, err := WriteVector(context.Background(), dir, item, f, Options{CRS: "EPSG:2193"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Features != int64(len(rows)) {
		t.Fatalf("wrote %d features, want %d", res.Features, len(rows))
	}
	total, parts := 0, 0
	for part := 1; ; part++ {
		base := "parts"
		if part > 1 {
			base = fmt.Sprintf("parts_%d", part)
		}
		if _, err := os.Stat(filepath.Join(dir, base+".shp")); err != nil {
			break
		}
		parts++
		for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
			st, err := os.Stat(filepath.Join(dir, base+ext))
			if err != nil {
				t.Fatalf("part %d lacks %s", part, ext)
			}
			if st.Size() > ShapefileSplitBytes {
				t.Errorf("%s%s is %d bytes, over the %d limit", base, ext, st.Size(), ShapefileSplitBytes)
			}
			if !slices.Contains(res.Files, base+ext) {
				t.Errorf("Result.Files lacks %s%s", base, ext)
			}
		}
		cpg, _ := os.ReadFile(filepath.Join(dir, base+".cpg"))
		if string(cpg) != "UTF-8" {
			t.Errorf("%s.cpg says %q", base, cpg)
		}
		rb := openBack(t, filepath.Join(dir, base+".shp"), "", checkOpts{dataEPSG: 2193})
		checkSRS(t, rb, 2193, false)
		checkAttrs(t, rb, rows, checkOpts{})
		total += rb.count
	}
	if parts < 3 {
		t.Errorf("%d parts, want several at a 4000-byte limit", parts)
	}
	if total != len(rows) {
		t.Errorf("the parts hold %d features, want %d", total, len(rows))
	}
}

func TestFlatGeobufSplitsIntoParts(t *testing.T) {
	old := FlatGeobufPartFeatures
	FlatGeobufPartFeatures = 40
	defer func() { FlatGeobufPartFeatures = old }()
	f, _ := FormatByMIME(KindVector, MIMEFlatGeobuf)
	dir := t.TempDir()
	rows := samplePoints()
	res, err := WriteVector(context.Background(), dir, sampleItem(t, "pts", "point", rows), f, Options{CRS: "EPSG:2193"})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for part := 1; ; part++ {
		name := "pts.fgb"
		if part > 1 {
			name = fmt.Sprintf("pts_%d.fgb", part)
		}
		if !slices.Contains(res.Files, name) {
			if want := (len(rows) + 39) / 40; part-1 != want {
				t.Errorf("%d parts, want %d", part-1, want)
			}
			break
		}
		rb := openBack(t, filepath.Join(dir, name), "", checkOpts{dataEPSG: 2193})
		checkSRS(t, rb, 2193, false)
		if rb.count > 40 {
			t.Errorf("%s holds %d features, over the 40 limit", name, rb.count)
		}
		total += rb.count
	}
	if total != len(rows) || res.Features != int64(len(rows)) {
		t.Errorf("parts hold %d features, Result says %d, want %d", total, res.Features, len(rows))
	}
}
