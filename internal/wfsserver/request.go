package wfsserver

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Operations the service answers.
const (
	OpGetCapabilities     = "GetCapabilities"
	OpDescribeFeatureType = "DescribeFeatureType"
	OpGetFeature          = "GetFeature"
	// OpGetPropertyValue, OpListStoredQueries and OpDescribeStoredQueries
	// are WFS 2.0 only.
	OpGetPropertyValue      = "GetPropertyValue"
	OpListStoredQueries     = "ListStoredQueries"
	OpDescribeStoredQueries = "DescribeStoredQueries"
)

// Versions the service speaks, newest first.
var Versions = []string{"2.0.0", "1.1.0"}

// Paging limits: a response holds at most MaxCount features (the
// CountDefault the capabilities advertise); clients page with STARTINDEX.
const MaxCount = 10000

// Request is a KVP request, its parameter names read case-insensitively.
type Request struct {
	Operation string
	// Version is 2.0.0 or 1.1.0.
	Version string
	// TypeNames are the requested type names without a namespace prefix.
	TypeNames []string
	Count     int // 0: MaxCount
	Start     int
	SRSName   string
	BBox      string
	Filter    string
	// ResourceIDs are RESOURCEID (2.0) or FEATUREID (1.1) values.
	ResourceIDs []string
	Hits        bool
	// OutputFormat is the format asked for, "" for the version's default.
	OutputFormat string
	// ViewParams is the viewparams parameter (changeset types).
	ViewParams string
	// PropertyNames are the properties asked for (PROPERTYNAME), without
	// prefixes; none for all.
	PropertyNames []string
	// SortBy are the SORTBY properties, in order; none for feature id
	// order.
	SortBy []SortKey
	// ValueReference is GetPropertyValue's property, without a prefix.
	ValueReference string
	// ByID is set for the GetFeatureById stored query (its ID is the one
	// ResourceIDs value): the answer is the feature itself.
	ByID bool
	// StoredQueryIDs are the queries DescribeStoredQueries asks about,
	// none for all.
	StoredQueryIDs []string
	// Params are every parameter by upper-case name (for next links).
	Params map[string]string
}

// isV2 reports whether a version string is a WFS 2 one.
func isV2(v string) bool { return !strings.HasPrefix(v, "1.") }

// V2 reports whether the request speaks WFS 2.0.
func (r *Request) V2() bool { return isV2(r.Version) }

// ParseQuery reads a raw query string into parameters by upper-case
// name (the first of repeated ones). Unlike url.ParseQuery it keeps
// values holding a literal semicolon, which WFS clients send unencoded
// (viewparams=from:…;to:…, outputFormat=…; version=3.2).
func ParseQuery(raw string) map[string]string {
	p := map[string]string{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			continue
		}
		k = strings.ToUpper(k)
		if _, seen := p[k]; !seen {
			p[k] = v
		}
	}
	return p
}

// ParseRequest reads a GET request's raw query string. Errors are
// *Exception.
func ParseRequest(rawQuery string) (*Request, error) {
	return parseParams(ParseQuery(rawQuery))
}

// parseParams reads a request's parameters by upper-case name.
func parseParams(p map[string]string) (*Request, error) {
	r := &Request{Params: p, Version: Versions[0]}
	op, ok := p["REQUEST"]
	if !ok || op == "" {
		return r, missing("request")
	}
	if s, ok := p["SERVICE"]; !ok || s == "" {
		return r, missing("service")
	} else if !strings.EqualFold(s, "WFS") {
		return r, invalid("service", "service must be WFS, not %q", clip(s))
	}
	switch strings.ToLower(op) {
	case "getcapabilities":
		r.Operation = OpGetCapabilities
		r.Version = negotiate(p["ACCEPTVERSIONS"], p["VERSION"])
		return r, nil
	case "describefeaturetype":
		r.Operation = OpDescribeFeatureType
	case "getfeature":
		r.Operation = OpGetFeature
	case "liststoredqueries":
		r.Operation = OpListStoredQueries
	case "describestoredqueries":
		r.Operation = OpDescribeStoredQueries
	case "getpropertyvalue":
		r.Operation = OpGetPropertyValue
	case "getfeaturewithlock", "lockfeature", "transaction", "createstoredquery", "dropstoredquery":
		return r, &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: op,
			Text: op + " is not supported: this is a basic, read-only WFS"}
	default:
		return r, &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: clip(op),
			Text: "unknown request " + strconv.Quote(clip(op))}
	}
	if v, ok := p["VERSION"]; ok {
		switch v {
		case "2.0.0", "2.0.2":
			r.Version = "2.0.0"
		case "1.1.0":
			r.Version = v
		default:
			return r, invalid("version", "version must be 2.0.0 or 1.1.0, not %q", clip(v))
		}
	}
	names := p["TYPENAMES"]
	if names == "" {
		names = p["TYPENAME"]
	}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(strings.Trim(n, "()"))
		if _, local, ok := strings.Cut(n, ":"); ok {
			n = local
		}
		if n != "" {
			r.TypeNames = append(r.TypeNames, n)
		}
	}
	switch r.Operation {
	case OpDescribeFeatureType:
		r.OutputFormat = p["OUTPUTFORMAT"]
		return r, nil
	case OpListStoredQueries, OpDescribeStoredQueries:
		return r, r.parseStoredQueries(p)
	case OpGetPropertyValue:
		return r, r.parseGetPropertyValue(p)
	}
	return r, r.parseGetFeature(p)
}

// negotiate picks the version of a GetCapabilities request: the first
// of AcceptVersions the service speaks, else VERSION, else the newest.
func negotiate(accept, version string) string {
	for _, v := range strings.Split(accept, ",") {
		switch strings.TrimSpace(v) {
		case "2.0.0", "2.0.2":
			return "2.0.0"
		case "1.1.0":
			return "1.1.0"
		}
	}
	if strings.HasPrefix(version, "1.") {
		return "1.1.0"
	}
	return Versions[0]
}

func (r *Request) parseGetFeature(p map[string]string) error {
	rid := p["RESOURCEID"]
	if rid == "" {
		rid = p["FEATUREID"]
	}
	if q, ok := p["STOREDQUERY_ID"]; ok {
		id, err := r.storedQuery(q, p)
		if err != nil {
			return err
		}
		rid, r.ByID = id, true
	}
	if len(r.TypeNames) == 0 && rid == "" {
		return missing(r.typeNamesParam())
	}
	if len(r.TypeNames) > 1 {
		return &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: r.typeNamesParam(),
			Text: "one feature type per GetFeature request: joins and several queries are not supported"}
	}
	countName := "COUNT"
	if _, ok := p[countName]; !ok {
		countName = "MAXFEATURES"
	}
	if s, ok := p[countName]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return invalid(strings.ToLower(countName), "%s must be a whole number, not %q", strings.ToLower(countName), clip(s))
		}
		r.Count = n
		if n == 0 {
			r.Count = -1 // zero features asked for
		}
	}
	if s, ok := p["STARTINDEX"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return invalid("startIndex", "startIndex must be a whole number, not %q", clip(s))
		}
		r.Start = n
	}
	switch rt := strings.ToLower(p["RESULTTYPE"]); rt {
	case "", "results":
	case "hits":
		r.Hits = true
	default:
		return invalid("resultType", "resultType must be results or hits, not %q", clip(rt))
	}
	if l, ok := p["FILTER_LANGUAGE"]; ok && !strings.Contains(strings.ToLower(l), "fes") && !strings.Contains(strings.ToLower(l), "filter") {
		return invalid("filter_language", "filter_language must be urn:ogc:def:query Language:OGC-FES:Filter")
	}
	r.SRSName, r.BBox, r.Filter = p["SRSNAME"], p["BBOX"], p["FILTER"]
	n := 0
	for _, s := range []string{r.BBox, r.Filter, rid} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		return invalid("filter", "bbox, filter and resourceId exclude each other: give one")
	}
	if rid != "" {
		for _, s := range strings.Split(rid, ",") {
			if s = strings.TrimSpace(s); s != "" {
				r.ResourceIDs = append(r.ResourceIDs, s)
			}
		}
		if len(r.TypeNames) == 0 {
			t, _, _ := strings.Cut(r.ResourceIDs[0], ".")
			r.TypeNames = []string{t}
		}
	}
	if s, ok := p["SORTBY"]; ok {
		var err error
		if r.SortBy, err = parseSortBy(s); err != nil {
			return err
		}
	}
	r.OutputFormat, r.ViewParams = p["OUTPUTFORMAT"], p["VIEWPARAMS"]
	for _, n := range strings.Split(strings.Trim(p["PROPERTYNAME"], "()"), ",") {
		if _, local, ok := strings.Cut(n, ":"); ok {
			n = local
		}
		if n = strings.TrimSpace(n); n != "" && n != "*" {
			r.PropertyNames = append(r.PropertyNames, n)
		}
	}
	return nil
}

// parseGetPropertyValue reads a GetPropertyValue request: a GetFeature's
// query and the one property whose values it asks for.
func (r *Request) parseGetPropertyValue(p map[string]string) error {
	if !r.V2() {
		return &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: r.Operation,
			Text: "GetPropertyValue is WFS 2.0: send VERSION=2.0.0"}
	}
	ref := strings.TrimPrefix(strings.TrimSpace(p["VALUEREFERENCE"]), "/")
	if ref == "" {
		return missing("valueReference")
	}
	if _, local, ok := strings.Cut(ref, ":"); ok {
		ref = local
	}
	if strings.ContainsAny(ref, "/[@()") {
		return invalid("valueReference", "valueReference must name one property of the type (such as name), not the path %q", clip(ref))
	}
	if err := r.parseGetFeature(p); err != nil {
		return err
	}
	r.ValueReference, r.PropertyNames = ref, []string{ref}
	return nil
}

func (r *Request) typeNamesParam() string {
	if r.V2() {
		return "typeNames"
	}
	return "typeName"
}
