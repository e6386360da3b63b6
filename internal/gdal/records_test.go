package gdal_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// recordFields are the fields of the layers below, packed as ingest packs
// them.
var recordFields = []gdal.PackField{
	{Index: 0, As: gdal.PackInt}, {Index: 1, As: gdal.PackReal}, {Index: 2, As: gdal.PackText},
	{Index: 3, As: gdal.PackInt}, {Index: 4, As: gdal.PackDateTime}, {As: gdal.PackFID},
}

// A RecordReader returns what NextFeature and its accessors return, over
// several batches, and grows its buffer for a feature larger than it.
func TestRecordReaderMatchesFeatures(t *testing.T) {
	defer gdal.SetRecordBuffer(256)()
	var b strings.Builder
	for i := range 1500 {
		props := fmt.Sprintf(`{"n":%d,"r":%d.25,"s":"x%d\u00e9","b":%v,"d":"2024-05-06T07:08:09.5+01:00"}`, i, i, i, i%2 == 0)
		if i%7 == 0 {
			props = `{"n":null,"s":""}`
		}
		geom := fmt.Sprintf(`{"type":"Point","coordinates":[%d.5,-41.5]}`, i%180)
		switch {
		case i%11 == 0:
			geom = "null"
		case i == 600: // a line far larger than the 256-byte buffer
			var c []string
			for k := range 400 {
				c = append(c, fmt.Sprintf("[%d,%d]", k%180, k%90))
			}
			geom = `{"type":"LineString","coordinates":[` + strings.Join(c, ",") + `]}`
		}
		fmt.Fprintf(&b, "\x1e{\"type\":\"Feature\",\"id\":%d,\"properties\":%s,\"geometry\":%s}\n", i+10, props, geom)
	}
	ref := openVector(t, "a.geojsons", b.String()).Layers()[0]
	l := openVector(t, "b.geojsons", b.String()).Layers()[0]
	r := gdal.NewRecordReader(l, recordFields)
	defer r.Close()
	n := 0
	for ; ; n++ {
		f, err := gdal.NextFeature(ref)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		if (f == nil) != (rec == nil) {
			t.Fatalf("record %d: feature %v, record %v", n, f, rec)
		}
		if f == nil {
			break
		}
		wkb, _ := f.WKB()
		if rec.FID != f.FID() || !bytes.Equal(rec.WKB, wkb) {
			t.Fatalf("record %d: FID %d, WKB %x; want %d, %x", n, rec.FID, rec.WKB, f.FID(), wkb)
		}
		for i, pf := range recordFields {
			v := rec.Values[i]
			if pf.As == gdal.PackFID {
				if v.Kind != gdal.ValueInt || v.Int != f.FID() {
					t.Fatalf("record %d: FID value %+v", n, v)
				}
				continue
			}
			if !f.IsSet(pf.Index) {
				if v.Kind != gdal.ValueNull {
					t.Fatalf("record %d field %d: %+v, want null", n, i, v)
				}
				continue
			}
			ok := true
			switch pf.As {
			case gdal.PackInt:
				ok = v.Kind == gdal.ValueInt && v.Int == f.Int64(pf.Index)
			case gdal.PackReal:
				ok = v.Kind == gdal.ValueReal && v.Float == f.Float(pf.Index)
			case gdal.PackText:
				ok = v.Kind == gdal.ValueText && string(v.Text) == f.Text(pf.Index)
			case gdal.PackDateTime:
				y, mo, d, h, mi, s, tz, _ := f.DateTime(pf.Index)
				ok = v.Kind == gdal.ValueDateTime && v.Year == y && v.Month == mo && v.Day == d && v.Hour == h &&
					v.Minute == mi && v.Second == s && v.TZ == tz
			}
			if !ok {
				t.Fatalf("record %d field %d: %+v", n, i, v)
			}
		}
		f.Close()
	}
	if n != 1500 {
		t.Fatalf("read %d records, want 1500", n)
	}
	if rec, err := r.Next(); rec != nil || err != nil {
		t.Fatalf("after the end: %v, %v", rec, err)
	}
}

// A feature GDAL fails to read ends the records after the ones before it,
// with GDAL's message, as NextFeature does. The file is broken after GDAL
// opened it (opening reads it whole, and refuses a broken one).
func TestRecordReaderStopsAtAReadFailure(t *testing.T) {
	line := func(n int) string {
		return fmt.Sprintf("{\"type\":\"Feature\",\"properties\":{\"n\":%d},\"geometry\":null}\n", n)
	}
	// Past GDAL's read buffer, which would keep the good text.
	var good, broken strings.Builder
	for n := range 3000 {
		good.WriteString(line(n))
		if n == 2500 {
			broken.WriteString(strings.Replace(line(n), "null}", "nul}", 1))
		} else {
			broken.WriteString(line(n))
		}
	}
	open := func(name string) godal.Layer {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		ds := openVectorAt(t, p, good.String())
		if err := os.WriteFile(p, []byte(broken.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return ds.Layers()[0]
	}
	ref := open("a.geojsonl")
	wantN := 0
	var wantErr error
	for ; ; wantN++ {
		f, err := gdal.NextFeature(ref)
		if err != nil || f == nil {
			wantErr = err
			break
		}
		f.Close()
	}
	if wantErr == nil {
		t.Fatalf("GDAL read the broken line without an error (%d features): nothing to compare", wantN)
	}
	r := gdal.NewRecordReader(open("b.geojsonl"), []gdal.PackField{{Index: 0, As: gdal.PackInt}})
	defer r.Close()
	n := 0
	for ; ; n++ {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, gdal.ErrFeatureRead) || err.Error() != wantErr.Error() {
				t.Fatalf("error %v; want %v", err, wantErr)
			}
			break
		}
		if rec == nil {
			t.Fatalf("no error after %d records; NextFeature failed after %d: %v", n, wantN, wantErr)
		}
	}
	if n != wantN {
		t.Fatalf("failed after %d records; NextFeature after %d", n, wantN)
	}
	if rec, err := r.Next(); rec != nil || err != nil {
		t.Fatalf("after the failure: %v, %v", rec, err)
	}
}
