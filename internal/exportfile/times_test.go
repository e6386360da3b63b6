package exportfile

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A time field (a time of day, stored "12:34:56") is written as a time
// where the format has one, so GDAL reads it back as Time, and as its
// text where the format has none. A GeoPackage has no time type: GDAL
// writes one as TEXT and reads it back as String.
func TestTimeFields(t *testing.T) {
	rows := []sampleRow{
		{"POINT (174.7 -41.3)", map[string]any{"id": int64(1), "opens": "12:34:56"}},
		{"POINT (174.8 -41.2)", map[string]any{"id": int64(2), "opens": "01:02:03.25"}},
		{"POINT (174.9 -41.1)", map[string]any{"id": int64(3), "opens": nil}},
	}
	for _, tc := range []struct {
		mime, typ string
	}{
		{MIMECSV, "Time"}, {MIMEGeoJSON, "Time"}, {MIMEMapInfo, "Time"}, {MIMEGML, "Time"},
		{MIMEGeoPackage, "String"}, {MIMEShapefile, "String"}, {MIMEFlatGeobuf, "String"}, {MIMEFileGDB, "String"},
		{MIMEKML, "String"},
	} {
		t.Run(tc.mime, func(t *testing.T) {
			f, ok := FormatByMIME(KindVector, tc.mime)
			if !ok {
				t.Fatalf("no format %s", tc.mime)
			}
			dir := t.TempDir()
			item := sampleItem(t, "opening", "point", rows)
			item.Fields = []Field{{"id", "integer"}, {"opens", "time"}}
			if _, err := WriteVector(context.Background(), dir, item, f, Options{}); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("ogrinfo", "-ro", "-al", filepath.Join(dir, "opening"+f.Extension())).CombinedOutput()
			s := string(out)
			if err != nil || !strings.Contains(s, "opens: "+tc.typ) || !strings.Contains(s, "opens ("+tc.typ+") = 12:34:56") ||
				!strings.Contains(s, "opens ("+tc.typ+") = 01:02:03.25") {
				t.Errorf("%v\n%s", err, s)
			}
		})
	}
}
