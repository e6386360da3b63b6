package wfsserver

import (
	"errors"
	"math"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

func TestParseSRS(t *testing.T) {
	for _, tc := range []struct {
		in   string
		code int
		swap bool
		name string
	}{
		{"EPSG:4326", 4326, true, "EPSG:4326"},
		{"epsg:2193", 2193, true, "EPSG:2193"},
		{"urn:ogc:def:crs:EPSG::4326", 4326, false, "urn:ogc:def:crs:EPSG::4326"},
		{"urn:x-ogc:def:crs:EPSG:3857", 3857, false, "urn:ogc:def:crs:EPSG::3857"},
		{"http://www.opengis.net/def/crs/EPSG/0/2193", 2193, false, "http://www.opengis.net/def/crs/EPSG/0/2193"},
		{"http://www.opengis.net/gml/srs/epsg.xml#4326", 4326, true, "http://www.opengis.net/gml/srs/epsg.xml#4326"},
		// Easting first in every form: no swap needed.
		{"EPSG:3857", 3857, false, "EPSG:3857"},
		{"urn:ogc:def:crs:OGC:1.3:CRS84", 4326, false, "urn:ogc:def:crs:OGC:1.3:CRS84"},
	} {
		s, ok := ParseSRS(tc.in)
		if !ok || s.Code() != tc.code || s.Swap != tc.swap || s.Name != tc.name {
			t.Errorf("%s: %+v %v", tc.in, s, ok)
		}
	}
	for _, bad := range []string{"", "EPSG:0", "EPSG:999999", "urn:ogc:def:crs:EPSG::x", "WGS84"} {
		if _, ok := ParseSRS(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestBBoxParam(t *testing.T) {
	urn, _ := ParseSRS(URN(4326))
	for _, tc := range []struct {
		in   string
		want of.Box
	}{
		{"-41.3,174.7,-41.2,174.8", of.Box{174.7, -41.3, 174.8, -41.2}},
		{"174.7,-41.3,174.8,-41.2,EPSG:4326", of.Box{174.7, -41.3, 174.8, -41.2}},
		{"174.7,-41.3,174.8,-41.2,urn:ogc:def:crs:OGC:1.3:CRS84", of.Box{174.7, -41.3, 174.8, -41.2}},
	} {
		got, outlines, err := bboxParam(tc.in, urn)
		if err != nil || got != tc.want || outlines != nil {
			t.Errorf("%s: %v %v", tc.in, got, err)
		}
	}
	// NZTM northing, easting (urn) and easting, northing (short form)
	// name the same place.
	a, oa, err1 := bboxParam("5420000,1740000,5430000,1750000,urn:ogc:def:crs:EPSG::2193", urn)
	b, ob, err2 := bboxParam("1740000,5420000,1750000,5430000,EPSG:2193", urn)
	if err1 != nil || err2 != nil || a != b || a[0] < 174 || a[0] > 176 || a[1] > -41 || a[1] < -43 {
		t.Errorf("NZTM boxes %v %v (%v %v)", a, b, err1, err2)
	}
	// With its outline, one polygon inside the envelope.
	if len(oa) != 1 || len(ob) != 1 || !of.Box(a).Intersects(oa[0]) || oa[0].Bounds().Min(0) < a[0]-1e-9 || oa[0].Bounds().Max(1) > a[3]+1e-9 {
		t.Errorf("NZTM outlines %v %v", oa, ob)
	}
	for _, bad := range []string{"1,2,3", "1,2,3,x", "3,2,1,4", "1,2,3,4,EPSG:nope"} {
		if _, _, err := bboxParam(bad, urn); !isCode(err, CodeInvalidParameter) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func isCode(err error, code string) bool {
	var e *Exception
	return errors.As(err, &e) && e.Code == code
}

func TestLikePattern(t *testing.T) {
	for _, tc := range []struct{ in, wild, single, esc, want string }{
		{"Point 1*", "*", ".", "!", "Point 1%"},
		{"a.c!*d%", "*", ".", "!", `a_c*d\%`},
		{"x_%", "%", "_", "\\", "x_%"},
		{`50\%`, "%", "_", "\\", `50\%`},
	} {
		if got := likePattern(tc.in, tc.wild, tc.single, tc.esc); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func testType() *featureType {
	return newFeatureType(&of.Collection{ID: "layer-1", GeometryField: "the geom", SourceCRS: "EPSG:4326",
		Fields: []schematype.Field{{Name: "name", Type: "string"}, {Name: "rank", Type: "integer"}, {Name: "2nd field", Type: "double"}}})
}

func TestFeatureTypeNames(t *testing.T) {
	ty := testType()
	if ty.geomElement != "the_geom" || ty.fields[2].Element != "_2nd_field" {
		t.Errorf("element names %q %+v", ty.geomElement, ty.fields)
	}
}

func TestParseFilter(t *testing.T) {
	ty := testType()
	def, _ := ParseSRS(URN(4326))
	f, err := parseFilter(`<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:And>
		<fes:PropertyIsGreaterThan><fes:Literal>3</fes:Literal><fes:ValueReference>geopub:rank</fes:ValueReference></fes:PropertyIsGreaterThan>
		<fes:PropertyIsEqualTo><fes:ValueReference>_2nd_field</fes:ValueReference><fes:Literal>1.5</fes:Literal></fes:PropertyIsEqualTo>
		<fes:BBOX><gml:Envelope><gml:lowerCorner>-41 174</gml:lowerCorner><gml:upperCorner>-40 175</gml:upperCorner></gml:Envelope></fes:BBOX>
	</fes:And></fes:Filter>`, ty, def)
	if err != nil {
		t.Fatal(err)
	}
	and := f.expr.(cql2.Logical)
	if c := and.Args[0].(cql2.Compare); c.Op != "<" || c.Left != (cql2.Property{Name: "rank"}) || c.Right != (cql2.Literal{Value: 3.0}) {
		t.Errorf("a literal first flips the comparison: %+v", c)
	}
	if c := and.Args[1].(cql2.Compare); c.Left != (cql2.Property{Name: "2nd field"}) || c.Right != (cql2.Literal{Value: 1.5}) {
		t.Errorf("element names map back to fields: %+v", c)
	}
	// The envelope in the default CRS (latitude first) comes out in CRS84.
	g := and.Args[2].(cql2.Spatial).B.(cql2.Literal).Value.(*geom.Polygon)
	b := g.Bounds()
	if math.Abs(b.Min(0)-174) > 1e-9 || math.Abs(b.Min(1)+41) > 1e-9 || math.Abs(b.Max(0)-175) > 1e-9 {
		t.Errorf("envelope %v", b)
	}
	for _, bad := range []string{
		`<Filter/>`, `not xml`, `<Other/>`,
		`<Filter><PropertyIsEqualTo><ValueReference>nope</ValueReference><Literal>1</Literal></PropertyIsEqualTo></Filter>`,
		`<Filter><PropertyIsEqualTo><ValueReference>rank</ValueReference><Literal>one</Literal></PropertyIsEqualTo></Filter>`,
		`<Filter><And><PropertyIsNull><ValueReference>rank</ValueReference></PropertyIsNull></And></Filter>`,
		`<Filter><ResourceId rid="layer-1.1"/><PropertyIsNull><ValueReference>rank</ValueReference></PropertyIsNull></Filter>`,
	} {
		if _, err := parseFilter(bad, ty, def); !isCode(err, CodeInvalidParameter) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	w, err := parseFilter(`<Filter><Within><ValueReference>the_geom</ValueReference><Point><pos>1 2</pos></Point></Within></Filter>`, ty, def)
	if s, ok := w.expr.(cql2.Spatial); err != nil || !ok || s.Op != "s_within" {
		t.Errorf("Within: %+v %v", w.expr, err)
	}
	d, err := parseFilter(`<Filter><DWithin><ValueReference>the_geom</ValueReference><Point><pos>1 2</pos></Point><Distance uom="km">1.5</Distance></DWithin></Filter>`, ty, def)
	if e, ok := d.expr.(cql2.Distance); err != nil || !ok || e.Op != "s_dwithin" || e.Metres != 1500 {
		t.Errorf("DWithin: %+v %v", d.expr, err)
	}
	for _, bad := range []string{
		`<Filter><DWithin><ValueReference>the_geom</ValueReference><Point><pos>1 2</pos></Point><Distance uom="deg">10</Distance></DWithin></Filter>`,
		`<Filter><Within><ValueReference>rank</ValueReference><Point><pos>1 2</pos></Point></Within></Filter>`,
	} {
		if _, err := parseFilter(bad, ty, def); !isCode(err, CodeInvalidParameter) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// FES 2.0 7.7.3.2: "The matchCase attribute … indicates whether string
// comparisons shall be case sensitive (true) or case insensitive (false)."
func TestParseFilterMatchCase(t *testing.T) {
	ty := testType()
	def, _ := ParseSRS(URN(4326))
	f, err := parseFilter(`<Filter><Or><PropertyIsEqualTo matchCase="false"><ValueReference>name</ValueReference><Literal>AbC</Literal></PropertyIsEqualTo>`+
		`<PropertyIsLike matchCase="false" wildCard="*" singleChar="." escapeChar="!"><ValueReference>name</ValueReference><Literal>a*</Literal></PropertyIsLike>`+
		`<PropertyIsNotEqualTo matchCase="true"><ValueReference>name</ValueReference><Literal>x</Literal></PropertyIsNotEqualTo>`+
		`<PropertyIsLessThan matchCase="false"><ValueReference>name</ValueReference><Literal>b</Literal></PropertyIsLessThan></Or></Filter>`, ty, def)
	if err != nil {
		t.Fatal(err)
	}
	or := f.expr.(cql2.Logical)
	if c := or.Args[0].(cql2.Compare); c.Left != (cql2.CaseI{Arg: cql2.Property{Name: "name"}}) || c.Right != (cql2.CaseI{Arg: cql2.Literal{Value: "AbC"}}) {
		t.Errorf("equal, matchCase false: %+v", c)
	}
	if l := or.Args[1].(cql2.Like); l.Arg != (cql2.CaseI{Arg: cql2.Property{Name: "name"}}) || l.Pattern != (cql2.CaseI{Arg: cql2.Literal{Value: "a%"}}) {
		t.Errorf("like, matchCase false: %+v", l)
	}
	if c := or.Args[2].(cql2.Compare); c.Left != (cql2.Property{Name: "name"}) {
		t.Errorf("matchCase true: %+v", c)
	}
	if c := or.Args[3].(cql2.Compare); c.Op != "<" || c.Left != (cql2.CaseI{Arg: cql2.Property{Name: "name"}}) {
		t.Errorf("less than, matchCase false: %+v", c)
	}
}

func TestParseRequest(t *testing.T) {
	r, err := ParseRequest(url.Values{"service": {"WFS"}, "request": {"GetFeature"}, "version": {"1.1.0"},
		"typeName": {"geopub:layer-1"}, "maxFeatures": {"5"}, "resultType": {"hits"}}.Encode())
	if err != nil || r.V2() || r.TypeNames[0] != "layer-1" || r.Count != 5 || !r.Hits {
		t.Errorf("%+v %v", r, err)
	}
	r, err = ParseRequest(url.Values{"SERVICE": {"WFS"}, "REQUEST": {"GetCapabilities"}, "ACCEPTVERSIONS": {"1.1.0,1.0.0"}}.Encode())
	if err != nil || r.Version != "1.1.0" {
		t.Errorf("%+v %v", r, err)
	}
	// Semicolons and + as clients send them, unencoded.
	r, err = ParseRequest("service=WFS&request=GetFeature&typeNames=layer-1-changeset&viewparams=from:2024-01-01T00:00:00+12:00;to:2024-02-01&outputFormat=application/gml+xml; version=3.2")
	if err != nil || r.ViewParams != "from:2024-01-01T00:00:00 12:00;to:2024-02-01" || !isJSON("application/json") {
		t.Errorf("%+v %v", r, err)
	} else if from, _, err := parseViewParams(r.ViewParams, timeZero); err != nil || from.UTC().Day() != 31 {
		t.Errorf("viewparams %v %v", from, err)
	}
	if gml32, ok := gmlVersion32(r.OutputFormat, false); !gml32 || !ok {
		t.Errorf("outputFormat %q", r.OutputFormat)
	}
	for _, tc := range []struct {
		q    url.Values
		code string
	}{
		{url.Values{"REQUEST": {"GetCapabilities"}}, CodeMissingParameter},
		{url.Values{"SERVICE": {"WMS"}, "REQUEST": {"GetCapabilities"}}, CodeInvalidParameter},
		{url.Values{"SERVICE": {"WFS"}, "REQUEST": {"LockFeature"}}, CodeOperationNotSupported},
		{url.Values{"SERVICE": {"WFS"}, "REQUEST": {"GetFeature"}, "VERSION": {"3.0"}, "TYPENAMES": {"a"}}, CodeInvalidParameter},
		{url.Values{"SERVICE": {"WFS"}, "REQUEST": {"GetFeature"}, "TYPENAMES": {"a,b"}}, CodeOperationNotSupported},
		{url.Values{"SERVICE": {"WFS"}, "REQUEST": {"GetFeature"}, "TYPENAMES": {"a"}, "STARTINDEX": {"-1"}}, CodeInvalidParameter},
		{url.Values{"SERVICE": {"WFS"}, "REQUEST": {"GetFeature"}, "TYPENAMES": {"a"}, "BBOX": {"1,2,3,4"}, "FILTER": {"<Filter/>"}}, CodeInvalidParameter},
	} {
		if _, err := ParseRequest(tc.q.Encode()); !isCode(err, tc.code) {
			t.Errorf("%v: %v, want %s", tc.q, err, tc.code)
		}
	}
}

func TestViewParams(t *testing.T) {
	from, to, err := parseViewParams("from:2024-01-01T00:00:00+12:00;to:2024-02-01T00:00:00Z", timeZero)
	if err != nil || from.UTC().Day() != 31 || to.Month() != 2 {
		t.Errorf("%v %v %v", from, to, err)
	}
	for _, bad := range []string{"", "to:2024-01-01", "from:yesterday", "from:2024-02-01;to:2024-01-01", "since:2024-01-01"} {
		if _, _, err := parseViewParams(bad, timeZero); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

var timeZero = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// WFS 2.0 7.9.2.4.5: SORTBY=PropertyName [ASC|DESC][,PropertyName
// [ASC|DESC]]…; WFS 1.1 spells the orders A and D.
func TestParseSortBy(t *testing.T) {
	keys, err := parseSortBy("geopub:name ASC, rank DESC,when D,other")
	want := []SortKey{{"name", false}, {"rank", true}, {"when", true}, {"other", false}}
	if err != nil || !slices.Equal(keys, want) {
		t.Errorf("%+v %v", keys, err)
	}
	for _, bad := range []string{"", "name UP", "name ASC DESC", " , "} {
		if _, err := parseSortBy(bad); !isCode(err, CodeInvalidParameter) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	ty := testType()
	if _, err := ty.sortFields([]SortKey{{Name: "nope"}}); !isCode(err, CodeInvalidParameter) {
		t.Errorf("unknown property: %v", err)
	}
	if _, err := ty.sortFields([]SortKey{{Name: "the_geom"}}); !isCode(err, CodeInvalidParameter) {
		t.Errorf("geometry: %v", err)
	}
	if _, err := newChangesetType(ty.c).sortFields([]SortKey{{Name: "name"}}); !isCode(err, CodeInvalidParameter) {
		t.Errorf("changeset: %v", err)
	}
	if f, err := ty.sortFields([]SortKey{{Name: "_2nd_field", Desc: true}}); err != nil || f[0] != (sortField{"2nd field", true}) {
		t.Errorf("element name: %+v %v", f, err)
	}
}

func TestCompareValues(t *testing.T) {
	vals := []any{nil, "b", 2.0, "a", true, -1.0, false}
	slices.SortFunc(vals, compareValues)
	if want := []any{false, true, -1.0, 2.0, "a", "b", nil}; !slices.Equal(vals, want) {
		t.Errorf("%v, want %v", vals, want)
	}
}
