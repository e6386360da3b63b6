package croplayers

import (
	"regexp"
	"strconv"
)

// featureURL matches a crop feature's REST URL, absolute or a path:
// …/services/api/v1[.x]/exports/croplayers/{id}/cropfeatures/{fid}/.
var featureURL = regexp.MustCompile(`^(?:https?://[^/]+)?/services/api/v1(?:\.x)?/exports/croplayers/([0-9]{1,9})/cropfeatures/([0-9]{1,18})/?$`)

// ParseFeatureURL reads the crop layer and feature ids of a crop-feature
// URL; ok is false when url is not one.
func ParseFeatureURL(url string) (cropLayerID, fid int, ok bool) {
	m := featureURL.FindStringSubmatch(url)
	if m == nil {
		return 0, 0, false
	}
	id, err1 := strconv.Atoi(m[1])
	f, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return id, f, true
}
