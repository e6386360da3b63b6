package cswserver

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// The versions served, and the operations.
const (
	V2 = "2.0.2"
	V3 = "3.0.0"

	OpGetCapabilities = "GetCapabilities"
	OpDescribeRecord  = "DescribeRecord"
	OpGetRecords      = "GetRecords"
	OpGetRecordByID   = "GetRecordById"
	OpGetDomain       = "GetDomain"
)

// Operations lists the operations in the capabilities' order.
var Operations = []string{OpGetCapabilities, OpDescribeRecord, OpGetRecords, OpGetRecordByID, OpGetDomain}

// The output schemas.
const (
	SchemaCSW  = "http://www.opengis.net/cat/csw/2.0.2"
	SchemaCSW3 = "http://www.opengis.net/cat/csw/3.0"
	SchemaGMD  = catalogrecords.NamespaceGMD
	SchemaMDB  = catalogrecords.NamespaceMDB
)

// OutputSchemas are the schemas records are answered in.
var OutputSchemas = []string{SchemaCSW, SchemaCSW3, SchemaGMD, SchemaMDB}

// Paging limits.
const (
	DefaultMax = 10
	// MaxStart bounds startPosition: deeper pages would scan the whole
	// catalogue for nothing.
	MaxStart = 1_000_000
)

// Constraint languages.
const (
	LangFilter = "FILTER"
	LangCQL    = "CQL_TEXT"
)

// Request is one CSW request, from KVP or an XML document.
type Request struct {
	Operation string
	Version   string
	// GetRecords and GetRecordById.
	ElementSet   string // brief, summary or full
	OutputSchema string
	ResultType   string // results, hits or validate
	TypeNames    []string
	Start        int // 1-based
	Max          int
	// Constraint is the KVP constraint text; filter the POSTed Filter
	// element. Lang is LangFilter or LangCQL.
	Constraint string
	Lang       string
	filter     *node
	Sort       catalogrecords.Sort
	// Text and BBox are CSW 3.0's q and bbox parameters.
	Text string
	BBox []float64
	// IDs are GetRecordById's ids.
	IDs []string
	// GetDomain's names.
	PropertyName, ParameterName string
	// TypeName is DescribeRecord's.
	TypeName []string
}

// ParseKVP reads a query string (keys case-insensitive, the first of
// repeated ones).
func ParseKVP(raw string) (*Request, error) {
	p := map[string]string{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return &Request{Version: V2}, invalid("request", "the query string is not URL-encoded correctly")
		}
		if k = strings.ToUpper(k); k != "" {
			if _, seen := p[k]; !seen {
				p[k] = v
			}
		}
	}
	return fromParams(p)
}

// fromParams checks the parameters by upper-case name and fills a Request.
func fromParams(p map[string]string) (*Request, error) {
	r := &Request{Version: V2, Lang: LangFilter, Start: 1, Max: DefaultMax, ResultType: "results"}
	op, ok := operation(p["REQUEST"])
	if p["REQUEST"] == "" {
		return r, missing("request")
	}
	if !ok {
		return r, &Exception{Status: 400, Code: CodeOperationNotSupported, Locator: "request",
			Text: "the operation " + clip(p["REQUEST"]) + " is not supported"}
	}
	r.Operation = op
	if err := r.version(p); err != nil {
		return r, err
	}
	if s := p["SERVICE"]; s == "" && op != OpGetCapabilities {
		return r, missing("service")
	} else if s != "" && !strings.EqualFold(s, "CSW") {
		return r, invalid("service", "the service is CSW, not %s", clip(s))
	}
	switch op {
	case OpGetRecords:
		return r, r.getRecords(p)
	case OpGetRecordByID:
		if p["ID"] == "" {
			return r, missing("id")
		}
		r.IDs = splitList(p["ID"])
		return r, r.presentation(p)
	case OpGetDomain:
		r.PropertyName, r.ParameterName = p["PROPERTYNAME"], p["PARAMETERNAME"]
		if r.PropertyName == "" && r.ParameterName == "" {
			return r, missing("PropertyName")
		}
	case OpDescribeRecord:
		r.TypeName = splitList(firstOf(p["TYPENAME"], p["TYPENAMES"]))
	}
	return r, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func operation(s string) (string, bool) {
	for _, op := range Operations {
		if strings.EqualFold(s, op) {
			return op, true
		}
	}
	return "", false
}

// version picks the version: VERSION, else for GetCapabilities the first
// ACCEPTVERSIONS one served, else 3.0.0 (the newest).
func (r *Request) version(p map[string]string) error {
	v := p["VERSION"]
	if v == "" && r.Operation == OpGetCapabilities && p["ACCEPTVERSIONS"] != "" {
		for _, a := range splitList(p["ACCEPTVERSIONS"]) {
			if a == V2 || a == V3 || a == "3.0" {
				v = a
				break
			}
		}
		if v == "" {
			r.Version = V3
			return &Exception{Status: 400, Code: CodeVersionNegotiation, Locator: "acceptVersions",
				Text: "the versions served are 3.0.0 and 2.0.2"}
		}
	}
	switch v {
	case "", V3, "3.0":
		r.Version = V3
	case V2:
		r.Version = V2
	default:
		return invalid("version", "the versions served are 3.0.0 and 2.0.2, not %s", clip(v))
	}
	return nil
}

// presentation reads elementSetName and outputSchema.
func (r *Request) presentation(p map[string]string) error {
	r.ElementSet = "summary" // the default of both operations
	if e := p["ELEMENTSETNAME"]; e != "" {
		switch strings.ToLower(e) {
		case "brief", "summary", "full":
			r.ElementSet = strings.ToLower(e)
		default:
			return invalid("elementSetName", "elementSetName is brief, summary or full, not %s", clip(e))
		}
	}
	r.OutputSchema = SchemaCSW
	if r.Version == V3 {
		r.OutputSchema = SchemaCSW3
	}
	if s := p["OUTPUTSCHEMA"]; s != "" {
		switch s {
		case SchemaCSW, SchemaCSW3, SchemaGMD, SchemaMDB:
			r.OutputSchema = s
		case "csw:Record":
			r.OutputSchema = SchemaCSW
		case "gmd:MD_Metadata":
			r.OutputSchema = SchemaGMD
		case "mdb:MD_Metadata":
			r.OutputSchema = SchemaMDB
		default:
			return invalid("outputSchema", "outputSchema is one of %s, not %s", strings.Join(OutputSchemas, ", "), clip(s))
		}
	}
	if f := p["OUTPUTFORMAT"]; f != "" && f != "application/xml" && f != "text/xml" {
		return invalid("outputFormat", "the output format is application/xml, not %s", clip(f))
	}
	return nil
}

func (r *Request) getRecords(p map[string]string) error {
	if err := r.presentation(p); err != nil {
		return err
	}
	if p["ELEMENTNAME"] != "" && p["ELEMENTSETNAME"] == "" {
		r.ElementSet = "full" // named elements: the full record holds them all
	}
	r.TypeNames = splitList(firstOf(p["TYPENAMES"], p["TYPENAME"]))
	if len(r.TypeNames) == 0 && r.Version == V2 {
		return missing("typeNames")
	}
	for _, t := range r.TypeNames {
		if local(t) != "Record" && local(t) != "MD_Metadata" {
			return invalid("typeNames", "the type names are csw:Record and gmd:MD_Metadata, not %s", clip(t))
		}
	}
	switch rt := strings.ToLower(p["RESULTTYPE"]); rt {
	case "":
	case "results", "hits", "validate":
		r.ResultType = rt
	default:
		return invalid("resultType", "resultType is results, hits or validate, not %s", clip(p["RESULTTYPE"]))
	}
	var err error
	if s := p["STARTPOSITION"]; s != "" {
		if r.Start, err = strconv.Atoi(s); err != nil || r.Start < 1 || r.Start > MaxStart {
			return invalid("startPosition", "startPosition is a whole number from 1 to %d", MaxStart)
		}
	}
	if s := p["MAXRECORDS"]; s != "" {
		if r.Max, err = strconv.Atoi(s); err != nil || r.Max < 0 {
			return invalid("maxRecords", "maxRecords is a whole number, 0 or more")
		}
		r.Max = min(r.Max, catalogrecords.MaxLimit)
	}
	if c := p["CONSTRAINT"]; c != "" {
		r.Constraint = c
		switch l := strings.ToUpper(p["CONSTRAINTLANGUAGE"]); l {
		case LangFilter, LangCQL:
			r.Lang = l
		case "":
			return missing("constraintLanguage")
		default:
			return invalid("constraintLanguage", "constraintLanguage is FILTER or CQL_TEXT, not %s", clip(l))
		}
	}
	if s := p["SORTBY"]; s != "" {
		if r.Sort, err = parseSort(s); err != nil {
			return err
		}
	}
	r.Text = p["Q"]
	if b := p["BBOX"]; b != "" {
		if r.BBox, err = parseBBox(b); err != nil {
			return err
		}
	}
	return nil
}

// parseSort reads sortBy: "dc:title:A,dct:modified:D"; the first key
// orders (the catalogue sorts by one property, then identifier).
func parseSort(s string) (catalogrecords.Sort, error) {
	first := splitList(s)[0]
	name, dir := first, "A"
	if i := strings.LastIndexByte(first, ':'); i > 0 {
		switch d := strings.ToUpper(first[i+1:]); d {
		case "A", "D", "ASC", "DESC":
			name, dir = first[:i], d[:1]
		}
	}
	return sortOf(name, dir == "D")
}

func sortOf(name string, desc bool) (catalogrecords.Sort, error) {
	var s catalogrecords.Sort
	switch queryable(name) {
	case "title":
		s = catalogrecords.SortTitle
	case "updated":
		s = catalogrecords.SortModified
	default:
		return "", invalid("sortBy", "records sort by dc:title or dct:modified, not %s", clip(name))
	}
	if desc {
		s = "-" + s
	}
	return s, nil
}

// parseBBox reads CSW 3.0's bbox=w,s,e,n (longitude, latitude).
func parseBBox(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 && len(parts) != 5 {
		return nil, invalid("bbox", "bbox is west,south,east,north")
	}
	var b []float64
	for _, p := range parts[:4] {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f != f || f > 1e9 || f < -1e9 {
			return nil, invalid("bbox", "bbox is four numbers: west,south,east,north")
		}
		b = append(b, f)
	}
	if b[0] > b[2] || b[1] > b[3] {
		return nil, invalid("bbox", "bbox's west/south must not exceed its east/north")
	}
	return b, nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// local is a qualified name's local part.
func local(s string) string {
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[i+1:]
	}
	return s
}
