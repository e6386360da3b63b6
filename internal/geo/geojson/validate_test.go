package geojson

import (
	"encoding/json"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestValidate(t *testing.T) {
	for _, ok := range []string{
		`{"type": "Point", "coordinates": [174.77, -41.28]}`,
		`{"type": "Point", "coordinates": [174.77, -41.28, 12.5]}`,
		`{"type": "MultiPoint", "coordinates": [[174.77, -41.28], [172.6, -43.5]]}`,
		`{"type": "LineString", "coordinates": [[174.77, -41.28], [174.78, -41.29]]}`,
		`{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3]]]}`,
		`{"type": "Polygon", "coordinates": [[[174.6, -41.4], [174.9, -41.4], [174.9, -41.1], [174.6, -41.4]]]}`,
		`{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]]]}`,
	} {
		if err := Validate(decode(t, ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		`{"type": "Circle", "coordinates": [0, 0]}`:                              "unsupported geometry type",
		`{"type": "GeometryCollection", "geometries": []}`:                       "unsupported geometry type",
		`{"type": "Point"}`:                                                      "no coordinates",
		`{"type": "Point", "coordinates": [200, 0]}`:                             "outside longitude",
		`{"type": "Point", "coordinates": [0, 91]}`:                              "outside longitude",
		`{"type": "Point", "coordinates": ["a", "b"]}`:                           "2 or 3 numbers",
		`{"type": "Point", "coordinates": [1]}`:                                  "2 or 3 numbers",
		`{"type": "LineString", "coordinates": [[0, 0]]}`:                        "at least 2",
		`{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}`: "end where it starts",
		`{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}`:         "at least 4",
		`{"type": "Polygon", "coordinates": []}`:                                 "at least 1",
		`{"type": "MultiPoint", "coordinates": "here"}`:                          "must be an array",
	} {
		err := Validate(decode(t, bad))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
	if err := Validate(nil); err == nil {
		t.Error("nil geometry accepted")
	}
}
