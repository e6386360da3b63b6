package queryapi

import (
	"fmt"
	"mime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Vendor is the vendor segment of the point-query media types, as in
// application/vnd.geopub.vectorQuery+json.
const Vendor = "geopub"

// format is a response format.
type format int

const (
	formatJSON format = iota
	formatXML
	formatGmaps
)

// api describes one point-query API's formats and versions.
type api struct {
	name     string   // vectorQuery, rasterQuery, setQuery
	versions []string // known versions; the last is current
	xml      bool     // offers xml
	gmaps    bool     // offers json-gmaps
}

// vectorAPI is the vector query: 1.1 current (with_field_names).
var vectorAPI = api{name: "vectorQuery", versions: []string{"1.0", "1.1"}, xml: true, gmaps: true}

// current is the API's newest version.
func (a api) current() string { return a.versions[len(a.versions)-1] }

// version normalises a requested version ("1" is "1.0").
func (a api) version(v string) (string, bool) {
	if !strings.Contains(v, ".") {
		v += ".0"
	}
	return v, slices.Contains(a.versions, v)
}

// contentTypes caches media types by API, format and version, as header
// values: they are few, and every response needs one.
var contentTypes sync.Map // contentTypeKey → []string

type contentTypeKey struct {
	api     string
	f       format
	version string
}

// contentType is the Content-Type header value of a response, shared:
// callers must not change it.
func (a api) contentType(f format, version string) []string {
	k := contentTypeKey{a.name, f, version}
	if ct, ok := contentTypes.Load(k); ok {
		return ct.([]string)
	}
	ct := []string{a.mediaType(f, version)}
	contentTypes.Store(k, ct)
	return ct
}

// mediaType spells the media type of a response.
func (a api) mediaType(f format, version string) string {
	switch f {
	case formatXML:
		return fmt.Sprintf("application/vnd.%s.%s+xml; version=%s", Vendor, a.name, version)
	case formatGmaps:
		return fmt.Sprintf("application/vnd.%s.%s-gmaps+json; version=%s", Vendor, a.name, version)
	}
	return fmt.Sprintf("application/vnd.%s.%s+json; version=%s", Vendor, a.name, version)
}

// negotiate picks the format and version of a response from the URL
// suffix (".json", ".xml" or none), the Accept header and the v
// parameter. A suffix fixes the format family; without one, Accept
// chooses, JSON by default.
func (a api) negotiate(suffix, accept, v string) (format, string, error) {
	version := a.current()
	if v != "" {
		var ok bool
		if version, ok = a.version(v); !ok {
			return 0, "", badParam("v must be one of %s, not %q", strings.Join(a.versions, ", "), v)
		}
	}
	f, acceptVersion, ok := a.fromAccept(accept, suffix)
	if !ok {
		return 0, "", errNotAcceptable
	}
	if acceptVersion != "" && v == "" {
		version = acceptVersion
	}
	return f, version, nil
}

var errNotAcceptable = fmt.Errorf("not acceptable")

type mediaRange struct {
	typ string
	q   float64
}

// fromAccept reads the Accept header: the first acceptable media range by
// quality, within the suffix's family.
func (a api) fromAccept(accept, suffix string) (format, string, bool) {
	def := formatJSON
	if suffix == "xml" {
		def = formatXML
	}
	switch strings.TrimSpace(accept) {
	case "", "*/*", "application/json":
		// What most clients send: no parsing needed.
		return def, "", accept != "application/json" || suffix != "xml"
	}
	var ranges []mediaRange
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil {
				q = 0
			}
		}
		if q > 0 {
			ranges = append(ranges, mediaRange{typ: mt, q: q})
		}
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].q > ranges[j].q })
	for _, r := range ranges {
		f, version, ok := a.mediaFormat(r.typ)
		if !ok {
			continue
		}
		if f == formatAny {
			return def, "", true
		}
		// A suffix fixes the family: json (and json-gmaps) or xml.
		if (suffix == "json" && f == formatXML) || (suffix == "xml" && f != formatXML) {
			continue
		}
		return f, version, true
	}
	return 0, "", false
}

// formatAny stands for */* and application/*.
const formatAny format = -1

// mediaFormat maps a media type onto a format and pinned version.
func (a api) mediaFormat(mt string) (format, string, bool) {
	switch mt {
	case "*/*", "application/*":
		return formatAny, "", true
	case "application/json", "application/javascript", "text/javascript":
		return formatJSON, "", true
	case "application/xml", "text/xml":
		return formatXML, "", a.xml
	}
	prefix := "application/vnd." + strings.ToLower(Vendor) + "." + strings.ToLower(a.name)
	if !strings.HasPrefix(mt, prefix) {
		return 0, "", false
	}
	rest := mt[len(prefix):] // [.version][-gmaps]+json | +xml
	var f format
	switch {
	case strings.HasSuffix(rest, "-gmaps+json"):
		f, rest = formatGmaps, strings.TrimSuffix(rest, "-gmaps+json")
	case strings.HasSuffix(rest, "+json"):
		f, rest = formatJSON, strings.TrimSuffix(rest, "+json")
	case strings.HasSuffix(rest, "+xml"):
		f, rest = formatXML, strings.TrimSuffix(rest, "+xml")
	default:
		return 0, "", false
	}
	if (f == formatXML && !a.xml) || (f == formatGmaps && !a.gmaps) {
		return 0, "", false
	}
	if rest == "" {
		return f, "", true
	}
	if !strings.HasPrefix(rest, ".") {
		return 0, "", false
	}
	v, ok := a.version(rest[1:])
	return f, v, ok
}
