package geoservices

import (
	"strconv"
	"strings"
)

// Owner kinds a service name can stand for.
const (
	KindLayer = "layer"
	KindSet   = "set"
)

// ServiceName is a dataset as a GeoServices service: layer_{id} or
// set_{id}. Esri's service names hold letters, digits and underscores
// only, so clients that split service URLs by pattern (Esri Leaflet,
// ArcGIS Pro) read them.
type ServiceName struct {
	Kind string
	ID   int
}

// ParseServiceName reads "layer_12" or "set_3"; ok is false for anything
// else (leading zeros, signs and other kinds included).
func ParseServiceName(s string) (n ServiceName, ok bool) {
	kind, num, found := strings.Cut(s, "_")
	if !found || (kind != KindLayer && kind != KindSet) || num == "" || num[0] == '0' ||
		strings.TrimLeft(num, "0123456789") != "" {
		return ServiceName{}, false
	}
	id, err := strconv.Atoi(num)
	if err != nil || id <= 0 {
		return ServiceName{}, false
	}
	return ServiceName{Kind: kind, ID: id}, true
}

// String is the name as it appears in URLs.
func (n ServiceName) String() string { return n.Kind + "_" + strconv.Itoa(n.ID) }
