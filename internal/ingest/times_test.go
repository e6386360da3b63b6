package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// A time of day (OGR's Time, here a GDAL-written CSV whose .csvt says
// Time) is a field of type time, read as its text, "12:34:56".
func TestReadTimeField(t *testing.T) {
	dir := t.TempDir()
	ingesttest.TimesCSV(t, dir, "opening")
	if b, err := os.ReadFile(filepath.Join(dir, "opening.csvt")); err != nil || !strings.Contains(string(b), "Time") {
		t.Fatalf("GDAL wrote no Time column type: %q %v", b, err)
	}
	ds := scanOne(t, dir, "opening.csv", "")
	types := map[string]string{}
	for _, f := range ds.Fields {
		types[f.Name] = f.Type
	}
	if types["opens"] != "time" || types["name"] != "string" {
		t.Fatalf("fields %+v", ds.Fields)
	}
	var got []any
	must(t, ReadFeatures(context.Background(), dir, ds, func(f Feature) error {
		got = append(got, f.Attributes["opens"])
		return nil
	}))
	if len(got) != 3 || got[0] != "12:34:56" || got[1] != "01:02:03.25" || got[2] != nil {
		t.Fatalf("values %v", got)
	}
}
