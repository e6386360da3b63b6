package geoservices

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/ogcfeatures"
)

// ObjectIDField is the field every layer's feature ids are given as: the
// stored feature id (fid).
const ObjectIDField = "OBJECTID"

// Formats a query answers in.
const (
	FormatJSON    = "json"
	FormatGeoJSON = "geojson"
	FormatPBF     = "pbf"
)

// Bounds of what a query may ask for: ids listed in objectIds, vertices
// of the geometry filter, statistics, sort and group fields.
const (
	maxObjectIDs  = 10000
	maxVertices   = 100000
	maxStatistics = 32
	maxSortFields = 16
)

// Query is a parsed layer query.
type Query struct {
	Format string
	// Where is the where clause as CQL2, nil for every feature.
	Where cql2.Expr
	// ObjectIDs, when not nil, keeps these features only.
	ObjectIDs []int64
	// Geometry is the spatial filter in CRS84, nil for none; Envelope is
	// its box and SpatialRel how features must meet it.
	Geometry   geom.T
	Envelope   [4]float64
	SpatialRel string
	// OutFields are the attributes given, in the layer's order.
	OutFields      []schematype.Field
	ReturnGeometry bool
	OutSR          SR
	OrderBy        []SortKey
	Offset, Count  int
	// CountOnly, IDsOnly and ExtentOnly ask for one of those answers
	// instead of features (Count with Extent for both).
	CountOnly, IDsOnly, ExtentOnly bool
	Statistics                     []Statistic
	GroupBy                        []string
	// key names the filter (not the page nor the output) for the caches.
	key string
}

// SortKey is one field of orderByFields.
type SortKey struct {
	Name string
	Desc bool
}

// Statistic is one entry of outStatistics.
type Statistic struct {
	Type  string `json:"statisticType"`
	Field string `json:"onStatisticField"`
	Out   string `json:"outStatisticFieldName"`
}

var statisticTypes = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "avg": true, "stddev": true, "var": true}

// spatialRels maps the relations served to CQL2 (EnvelopeIntersects is
// tested on stored boxes alone).
var spatialRels = map[string]string{
	"esriSpatialRelIntersects":         "s_intersects",
	"esriSpatialRelContains":           "s_contains",
	"esriSpatialRelWithin":             "s_within",
	"esriSpatialRelEnvelopeIntersects": "envelope",
}

// ParseQuery reads a query's parameters for layer c; errors are *Error
// (400).
func ParseQuery(p url.Values, c *ogcfeatures.Collection) (*Query, error) {
	get := func(name string) string { return strings.TrimSpace(p.Get(name)) }
	q := &Query{Format: FormatJSON, ReturnGeometry: !c.Table, OutSR: WGS84, Count: MaxRecordCount}
	switch f := strings.ToLower(get("f")); f {
	case "", "json", "pjson":
	case "geojson":
		q.Format = FormatGeoJSON
	case "pbf":
		q.Format = FormatPBF
	default:
		return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("f must be json, pjson, geojson or pbf, not %q", clip(f)))
	}
	var err error
	if q.Where, err = parseWhere(get("where"), c); err != nil {
		return nil, err
	}
	if s := get("objectIds"); s != "" {
		if q.ObjectIDs, err = parseObjectIDs(s); err != nil {
			return nil, err
		}
	}
	if err := q.parseGeometry(p, c); err != nil {
		return nil, err
	}
	if q.OutFields, err = parseOutFields(get("outFields"), c); err != nil {
		return nil, err
	}
	if s := get("returnGeometry"); s != "" {
		b, err := parseBool("returnGeometry", s)
		if err != nil {
			return nil, err
		}
		q.ReturnGeometry = b && !c.Table
	}
	if s := get("outSR"); s != "" {
		if q.OutSR, err = ParseSR(s); err != nil {
			return nil, BadRequest("Invalid or missing input parameters.", "outSR: "+err.Error())
		}
	}
	if s := get("orderByFields"); s != "" {
		if q.OrderBy, err = parseOrderBy(s, c); err != nil {
			return nil, err
		}
	}
	if s := get("resultOffset"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("resultOffset must be a whole number of 0 or more, not %q", clip(s)))
		}
		q.Offset = n
	}
	if s := get("resultRecordCount"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("resultRecordCount must be a whole number, not %q", clip(s)))
		}
		if n > 0 {
			q.Count = min(n, MaxRecordCount)
		}
	}
	for name, dst := range map[string]*bool{"returnCountOnly": &q.CountOnly, "returnIdsOnly": &q.IDsOnly, "returnExtentOnly": &q.ExtentOnly} {
		if s := get(name); s != "" {
			if *dst, err = parseBool(name, s); err != nil {
				return nil, err
			}
		}
	}
	if s := get("outStatistics"); s != "" {
		if q.Statistics, err = parseStatistics(s, c); err != nil {
			return nil, err
		}
	}
	if s := get("groupByFieldsForStatistics"); s != "" {
		if q.Statistics == nil {
			return nil, BadRequest("Invalid or missing input parameters.", "groupByFieldsForStatistics needs outStatistics")
		}
		for _, name := range strings.Split(s, ",") {
			f, ok := field(c, strings.TrimSpace(name))
			if !ok {
				return nil, unknownField("groupByFieldsForStatistics", name)
			}
			q.GroupBy = append(q.GroupBy, f.Name)
		}
		if len(q.GroupBy) > maxSortFields {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("groupByFieldsForStatistics names at most %d fields", maxSortFields))
		}
	}
	q.key = strings.Join([]string{get("where"), get("objectIds"), get("geometry"), get("geometryType"), get("spatialRel"), get("inSR")}, "\x00")
	return q, nil
}

// parseWhere reads the where clause (1=1 or empty for all) and checks the
// fields it names.
func parseWhere(s string, c *ogcfeatures.Collection) (cql2.Expr, error) {
	if s == "" {
		return nil, nil
	}
	e, err := esriWhere(s, c.Fields)
	if err != nil {
		return nil, BadRequest("Unable to complete operation.", "where: "+clip(err.Error()))
	}
	if e == nil {
		return nil, nil
	}
	for _, name := range cql2.Properties(e) {
		if _, ok := field(c, name); !ok && !c.IsGeometry(name) {
			return nil, BadRequest("Unable to complete operation.", fmt.Sprintf("where: %q is not a field of this layer", clip(name)))
		}
	}
	return e, nil
}

func parseObjectIDs(s string) ([]int64, error) {
	parts := strings.Split(s, ",")
	if len(parts) > maxObjectIDs {
		return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("objectIds lists at most %d ids", maxObjectIDs))
	}
	out := make([]int64, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("objectIds: %q is not a whole number", clip(p)))
		}
		out = append(out, n)
	}
	return out, nil
}

func parseBool(name, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("%s must be true or false, not %q", name, clip(s)))
}

// field finds a layer field by name, ignoring case as ArcGIS does;
// OBJECTID is a field too.
func field(c *ogcfeatures.Collection, name string) (schematype.Field, bool) {
	if strings.EqualFold(name, ObjectIDField) {
		return schematype.Field{Name: ObjectIDField, Type: "oid"}, true
	}
	for _, f := range c.Fields {
		if f.Name == name {
			return f, true
		}
	}
	for _, f := range c.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return schematype.Field{}, false
}

func unknownField(param, name string) *Error {
	return BadRequest("Invalid or missing input parameters.", fmt.Sprintf("%s: %q is not a field of this layer", param, clip(strings.TrimSpace(name))))
}

// parseOutFields reads * or a list (OBJECTID alone when empty, as ArcGIS
// answers).
func parseOutFields(s string, c *ogcfeatures.Collection) ([]schematype.Field, error) {
	if s == "*" {
		return c.Fields, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if name == "*" {
			return c.Fields, nil
		}
		f, ok := field(c, name)
		if !ok {
			return nil, unknownField("outFields", name)
		}
		want[f.Name] = true
	}
	out := []schematype.Field{}
	for _, f := range c.Fields {
		if want[f.Name] {
			out = append(out, f)
		}
	}
	return out, nil
}

func parseOrderBy(s string, c *ogcfeatures.Collection) ([]SortKey, error) {
	var out []SortKey
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if len(f) > 2 {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("orderByFields takes field [ASC|DESC] pairs separated by commas, not %q", clip(part)))
		}
		fd, ok := field(c, f[0])
		if !ok {
			return nil, unknownField("orderByFields", f[0])
		}
		k := SortKey{Name: fd.Name}
		if len(f) == 2 {
			switch strings.ToUpper(f[1]) {
			case "ASC":
			case "DESC":
				k.Desc = true
			default:
				return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("orderByFields: the order of %s must be ASC or DESC, not %q", fd.Name, clip(f[1])))
			}
		}
		out = append(out, k)
	}
	if len(out) > maxSortFields {
		return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("orderByFields names at most %d fields", maxSortFields))
	}
	return out, nil
}

func parseStatistics(s string, c *ogcfeatures.Collection) ([]Statistic, error) {
	var out []Statistic
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, BadRequest("Invalid or missing input parameters.", "outStatistics must be a JSON array of {statisticType, onStatisticField, outStatisticFieldName}")
	}
	if len(out) == 0 || len(out) > maxStatistics {
		return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("outStatistics gives 1 to %d statistics", maxStatistics))
	}
	for i := range out {
		st := &out[i]
		st.Type = strings.ToLower(st.Type)
		if !statisticTypes[st.Type] {
			return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("outStatistics: statisticType %q is not count, sum, min, max, avg, stddev or var", clip(st.Type)))
		}
		f, ok := field(c, st.Field)
		if !ok && !(st.Type == "count" && (st.Field == "*" || st.Field == "1")) {
			return nil, unknownField("outStatistics", st.Field)
		}
		if ok {
			st.Field = f.Name
			if st.Type != "count" && st.Type != "min" && st.Type != "max" && f.Type != "integer" && f.Type != "double" && f.Type != "oid" {
				return nil, BadRequest("Invalid or missing input parameters.", fmt.Sprintf("outStatistics: %s needs a numeric field, and %s is %s", st.Type, f.Name, f.Type))
			}
		}
		if st.Out == "" {
			st.Out = st.Type + "_" + strings.Trim(st.Field, "*")
		}
		if len(st.Out) > 128 {
			return nil, BadRequest("Invalid or missing input parameters.", "outStatistics: outStatisticFieldName is at most 128 characters")
		}
	}
	return out, nil
}

// parseGeometry reads geometry, geometryType, spatialRel and inSR.
func (q *Query) parseGeometry(p url.Values, c *ogcfeatures.Collection) error {
	s := strings.TrimSpace(p.Get("geometry"))
	rel := strings.TrimSpace(p.Get("spatialRel"))
	if rel == "" {
		rel = "esriSpatialRelIntersects"
	}
	op, ok := spatialRels[rel]
	if !ok {
		return BadRequest("Invalid or missing input parameters.", fmt.Sprintf("spatialRel %q is not served: give esriSpatialRelIntersects, esriSpatialRelContains, esriSpatialRelWithin or esriSpatialRelEnvelopeIntersects", clip(rel)))
	}
	if s == "" {
		return nil
	}
	if c.Table {
		return BadRequest("Invalid or missing input parameters.", "a table has no geometry to filter on")
	}
	if (op == "s_contains" || op == "s_within") && !cql2.SpatialFunctionsServed() {
		return BadRequest("Invalid or missing input parameters.", rel+" needs GEOS, which this server's GDAL lacks")
	}
	typ := strings.TrimSpace(p.Get("geometryType"))
	g, sr, err := ParseGeometry(s, typ)
	if err != nil {
		return BadRequest("Invalid or missing input parameters.", "geometry: "+err.Error())
	}
	if in := strings.TrimSpace(p.Get("inSR")); in != "" {
		if sr, err = ParseSR(in); err != nil {
			return BadRequest("Invalid or missing input parameters.", "inSR: "+err.Error())
		}
	}
	if err := sr.toCRS84(g); err != nil {
		return BadRequest("Invalid or missing input parameters.", "geometry: "+err.Error())
	}
	b := g.Bounds()
	q.Envelope = [4]float64{b.Min(0), b.Min(1), b.Max(0), b.Max(1)}
	for _, v := range q.Envelope {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return BadRequest("Invalid or missing input parameters.", "geometry: its coordinates are not finite")
		}
	}
	q.Geometry, q.SpatialRel = g, op
	return nil
}

// Filter is the query's selection as ogcfeatures reads it.
func (q *Query) Filter(c *ogcfeatures.Collection) ogcfeatures.Filter {
	f := ogcfeatures.Filter{Collection: c, FIDs: q.ObjectIDs}
	var exprs []cql2.Expr
	if q.Where != nil {
		exprs = append(exprs, q.Where)
	}
	if q.Geometry != nil {
		env := q.Envelope
		switch _, isBox := q.Geometry.(*geom.Polygon); {
		case q.SpatialRel == "envelope":
			f.Within = []ogcfeatures.Box{env}
		case q.SpatialRel == "s_intersects" && isBox && isRectangle(q.Geometry.(*geom.Polygon)):
			f.Boxes = []ogcfeatures.Box{env}
		default:
			f.Within = []ogcfeatures.Box{env}
			gf := c.GeometryField
			if gf == "" {
				gf = "geometry"
			}
			exprs = append(exprs, cql2.Spatial{Op: q.SpatialRel, A: cql2.Property{Name: gf}, B: cql2.Literal{Value: q.Geometry}})
		}
	}
	switch len(exprs) {
	case 1:
		f.Expr = exprs[0]
	case 2:
		f.Expr = cql2.Logical{Op: "and", Args: exprs}
	}
	return f
}

// isRectangle reports whether p is an axis-aligned box (an envelope).
func isRectangle(p *geom.Polygon) bool {
	if p.NumLinearRings() != 1 {
		return false
	}
	b := p.Bounds()
	flat := p.FlatCoords()
	st := p.Stride()
	if len(flat)/st != 5 {
		return false
	}
	for i := 0; i < len(flat); i += st {
		x, y := flat[i], flat[i+1]
		if (x != b.Min(0) && x != b.Max(0)) || (y != b.Min(1) && y != b.Max(1)) {
			return false
		}
	}
	return true
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
