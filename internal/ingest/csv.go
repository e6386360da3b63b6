package ingest

import (
	"encoding/csv"
	"io"
	"os"
	"strings"
)

// CSV geometry detection. The GDAL CSV driver only builds geometries when
// told which columns hold them, so the header is read here first.
var (
	csvWKTNames = []string{"wkt", "geometry", "the_geom", "geom", "wkb_geometry"}
	csvXYNames  = [][2]string{{"lon", "lat"}, {"longitude", "latitude"}, {"long", "lat"}, {"lng", "lat"}, {"x", "y"}, {"easting", "northing"}}
)

// csvOpenOptions reads the header of a CSV file and returns GDAL CSV open
// options that turn a WKT column or a lon/lat pair into the geometry.
// Without either, the file opens as a table.
func csvOpenOptions(abs string) ([]string, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(io.LimitReader(f, 1<<20))
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, err
	}
	cols := map[string]string{}
	for _, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		cols[strings.ToLower(strings.TrimSpace(h))] = strings.TrimSpace(h)
	}
	opts := []string{"AUTODETECT_TYPE=YES", "KEEP_GEOM_COLUMNS=NO", "EMPTY_STRING_AS_NULL=YES"}
	for _, n := range csvWKTNames {
		if c, ok := cols[n]; ok {
			return append(opts, "GEOM_POSSIBLE_NAMES="+c), nil
		}
	}
	for _, xy := range csvXYNames {
		x, okx := cols[xy[0]]
		y, oky := cols[xy[1]]
		if okx && oky {
			return append(opts, "X_POSSIBLE_NAMES="+x, "Y_POSSIBLE_NAMES="+y), nil
		}
	}
	return opts, nil
}
