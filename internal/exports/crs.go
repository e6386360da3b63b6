package exports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/airbusgeo/godal"
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
	sr, err := godal.NewSpatialRefFromEPSG(n)
	if err != nil {
		return "", fmt.Sprintf("EPSG:%d is not a coordinate system PROJ knows", n)
	}
	sr.Close()
	return fmt.Sprintf("EPSG:%d", n), ""
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
