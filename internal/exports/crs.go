package exports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/crsinfo"
	"github.com/geopub/geopub/internal/ingest"
)

// normaliseCRS checks that s names an EPSG code PROJ knows ("EPSG:2193",
// "epsg:2193" or "2193") and returns it as EPSG:<code>; "" stays "" (no
// reprojection). problem is the detail of a crs-invalid reason.
func normaliseCRS(s string) (crs, problem string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ""
	}
	code := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if !strings.EqualFold(s[:i], "EPSG") {
			return "", fmt.Sprintf("%q is not an EPSG code; give one such as EPSG:2193", clip(s))
		}
		code = s[i+1:]
	}
	n, err := strconv.Atoi(code)
	if err != nil || n <= 0 {
		return "", fmt.Sprintf("%q is not an EPSG code; give one such as EPSG:2193", clip(s))
	}
	switch crsinfo.KindOf(n) {
	case crsinfo.Unknown:
		return "", fmt.Sprintf("EPSG:%d is not a coordinate system PROJ knows", n)
	case crsinfo.Other:
		return "", fmt.Sprintf("EPSG:%d is not a coordinate system for maps (vertical, geocentric or local); give a geographic or projected one such as EPSG:2193", n)
	}
	return fmt.Sprintf("EPSG:%d", n), ""
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// farthest is how far from a CRS's origin a coordinate may lie and still
// be a place on a map: 100,000 km (in metres or feet, two and a half times
// round the Earth; degrees never come near it).
const farthest = 1e8

// crsProblem is why the data in region, a lon/lat box, cannot be written
// in crs (EPSG:<code>, already normalised): a reason with its code, or "".
// Validation says it before the job, which would otherwise fail (a grid
// of -2147483648 × -2147483648 cells) or finish with meaningless
// coordinates (issue 24).
func crsProblem(crs string, region [4]float64) (string, error) {
	code, err := strconv.Atoi(strings.TrimPrefix(crs, "EPSG:"))
	if err != nil {
		return "", err
	}
	area, known := crsinfo.AreaOf(code)
	if known && !area.Meets(region) {
		return fmt.Sprintf("crs-outside-area: %s is for %s; the data to export lies at %s, outside it",
			crs, describe(area.West, area.South, area.East, area.North), describe(region[0], region[1], region[2], region[3])), nil
	}
	t, err := ingest.NewTransformer("EPSG:4326", crs)
	if err != nil {
		return fmt.Sprintf("crs-invalid: there is no transformation from WGS 84 to %s", crs), nil
	}
	defer t.Close()
	if !t.Within(region, farthest) {
		msg := fmt.Sprintf("crs-unprojectable: part of the data to export (%s) cannot be drawn in %s", describe(region[0], region[1], region[2], region[3]), crs)
		if known {
			msg += fmt.Sprintf("; crop it to the area %s is for, %s", crs, describe(area.West, area.South, area.East, area.North))
		}
		return msg, nil
	}
	return "", nil
}

// describe writes a lon/lat box as "41.3°S–34.1°S, 166.4°E–178.6°E".
func describe(w, s, e, n float64) string {
	lat := func(v float64) string {
		if v < 0 {
			return strconv.FormatFloat(-v, 'f', -1, 64) + "°S"
		}
		return strconv.FormatFloat(v, 'f', -1, 64) + "°N"
	}
	lon := func(v float64) string {
		if v < 0 {
			return strconv.FormatFloat(-v, 'f', -1, 64) + "°W"
		}
		return strconv.FormatFloat(v, 'f', -1, 64) + "°E"
	}
	round := func(v float64) float64 { return math.Round(v*10) / 10 }
	return lat(round(s)) + "–" + lat(round(n)) + ", " + lon(round(w)) + "–" + lon(round(e))
}

// regionOf is the part of a dataset's lon/lat extent an export writes:
// within the crop box when there is one.
func regionOf(extent []float64, crop *[4]float64) [4]float64 {
	r := [4]float64{extent[0], extent[1], extent[2], extent[3]}
	if crop != nil {
		r = [4]float64{max(r[0], crop[0]), max(r[1], crop[1]), min(r[2], crop[2]), min(r[3], crop[3])}
	}
	return r
}
