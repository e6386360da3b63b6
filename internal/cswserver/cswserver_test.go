package cswserver

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cql2"
)

func rec() *catalogrecords.Record {
	return &catalogrecords.Record{Identifier: "layer-12", Type: catalogrecords.Layer, Title: "Rivers of Wellington",
		Abstract: "Streams", Keywords: []string{"Water"}, Themes: []catalogrecords.Theme{{Key: "env", Name: "Environment"}},
		BBox: []float64{174.7, -41.4, 174.9, -41.2}, Modified: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}
}

func match(t *testing.T, e cql2.Expr) bool {
	t.Helper()
	return cql2.Match(e, feature(rec()))
}

func TestFilters(t *testing.T) {
	for _, c := range []struct {
		filter string
		want   bool
	}{
		{`<Filter><PropertyIsLike wildCard="*" singleChar="?" escapeChar="\"><PropertyName>dc:title</PropertyName><Literal>*WELLING?ON*</Literal></PropertyIsLike></Filter>`, true},
		{`<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\"><ogc:PropertyName>csw:AnyText</ogc:PropertyName><ogc:Literal>%environment%</ogc:Literal></ogc:PropertyIsLike></ogc:Filter>`, true},
		{`<Filter><PropertyIsEqualTo><PropertyName>dc:subject</PropertyName><Literal>Water</Literal></PropertyIsEqualTo></Filter>`, false}, // subject joins them
		{`<Filter><PropertyIsLike wildCard="*" singleChar="." escapeChar="!"><PropertyName>dc:subject</PropertyName><Literal>*water*</Literal></PropertyIsLike></Filter>`, true},
		{`<Filter><BBOX><PropertyName>ows:BoundingBox</PropertyName><Envelope><lowerCorner>174 -42</lowerCorner><upperCorner>174.75 -41</upperCorner></Envelope></BBOX></Filter>`, true},
		{`<Filter><BBOX><PropertyName>ows:BoundingBox</PropertyName><Envelope srsName="urn:ogc:def:crs:EPSG::4326"><lowerCorner>-42 174</lowerCorner><upperCorner>-41 174.75</upperCorner></Envelope></BBOX></Filter>`, true},
		{`<Filter><BBOX><PropertyName>ows:BoundingBox</PropertyName><Envelope><lowerCorner>170 -42</lowerCorner><upperCorner>171 -41</upperCorner></Envelope></BBOX></Filter>`, false},
		{`<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:And><fes:PropertyIsGreaterThan><fes:ValueReference>dct:modified</fes:ValueReference><fes:Literal>2024-01-01</fes:Literal></fes:PropertyIsGreaterThan><fes:PropertyIsEqualTo><fes:ValueReference>dc:type</fes:ValueReference><fes:Literal>layer</fes:Literal></fes:PropertyIsEqualTo></fes:And></fes:Filter>`, true},
		{`<Filter><Not><PropertyIsEqualTo matchCase="false"><PropertyName>dc:identifier</PropertyName><Literal>LAYER-12</Literal></PropertyIsEqualTo></Not></Filter>`, false},
		{`<Filter><FeatureId fid="layer-12"/><FeatureId fid="layer-13"/></Filter>`, true},
	} {
		e, err := parseFilterText(c.filter)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if got := match(t, e); got != c.want {
			t.Errorf("%s: %v, want %v", c.filter, got, c.want)
		}
	}
}

func TestCQL(t *testing.T) {
	for _, c := range []struct {
		cql  string
		want bool
	}{
		{`dc:title LIKE '%wellington%'`, true},
		{`csw:AnyText like '%STREAM%' AND dc:type = 'layer'`, true},
		{`BBOX(ows:BoundingBox, 174, -42, 174.75, -41)`, true},
		{`BBOX(ows:BoundingBox, -42, 174, -41, 174.75, 'urn:ogc:def:crs:EPSG::4326')`, true},
		{`dct:modified < '2024-01-01'`, false},
		{`title = 'BBOX(x, 1)' OR abstract = 'Streams'`, true},
	} {
		e, err := parseCQL(c.cql)
		if err != nil {
			t.Errorf("%s: %v", c.cql, err)
			continue
		}
		if got := match(t, e); got != c.want {
			t.Errorf("%s: %v, want %v", c.cql, got, c.want)
		}
	}
}

// Hostile constraints and documents are 4xx exceptions, quickly.
func TestHostileInput(t *testing.T) {
	deep := strings.Repeat("<Not>", 200) + "<PropertyIsNull><PropertyName>title</PropertyName></PropertyIsNull>" + strings.Repeat("</Not>", 200)
	for _, f := range []string{
		`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Filter><PropertyIsEqualTo><PropertyName>title</PropertyName><Literal>&e;</Literal></PropertyIsEqualTo></Filter>`,
		`<Filter><PropertyIsEqualTo><PropertyName>title</PropertyName><Literal>&e;</Literal></PropertyIsEqualTo></Filter>`,
		"<Filter>" + deep + "</Filter>",
		`<Filter><PropertyIsEqualTo><PropertyName>secret</PropertyName><Literal>x</Literal></PropertyIsEqualTo></Filter>`,
		`<Filter><Beyond/></Filter>`, `<Filter/>`, `not xml`, `<Filter><BBOX><Envelope><lowerCorner>x y</lowerCorner></Envelope></BBOX></Filter>`,
		`<Filter><BBOX><Envelope srsName="EPSG:2193"><lowerCorner>1 2</lowerCorner><upperCorner>3 4</upperCorner></Envelope></BBOX></Filter>`,
		strings.Repeat("<Filter>", 10) + strings.Repeat("a", maxConstraintBytes),
	} {
		_, err := parseFilterText(f)
		var e *Exception
		if !errors.As(err, &e) || e.Status != 400 {
			t.Errorf("%.80s: %v", f, err)
		}
	}
	for _, c := range []string{`title LIKE`, `BBOX(geometry, 1, 2`, `nope = 1`, `title = 'x' AND ((((`, `BBOX(ows:BoundingBox, 1, 2, 3, 4, 'EPSG:2193')`} {
		_, err := parseCQL(c)
		var e *Exception
		if !errors.As(err, &e) || e.Status != 400 {
			t.Errorf("%s: %v", c, err)
		}
	}
	for _, q := range []string{
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&startPosition=0",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&startPosition=abc",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&startPosition=99999999999999999999",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&maxRecords=-1",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&constraint=x",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&elementSetName=huge",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&outputSchema=urn:nope",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=foo:Bar",
		"service=CSW&version=2.0.2&request=GetRecords",
		"service=CSW&version=9.9&request=GetCapabilities",
		"service=WMS&version=2.0.2&request=GetRecords&typeNames=csw:Record",
		"service=CSW&request=Harvest",
		"service=CSW&version=2.0.2&request=GetRecordById",
		"service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&sortBy=dc:format:A",
		"%zz=1",
	} {
		_, err := ParseKVP(q)
		var e *Exception
		if !errors.As(err, &e) || e.Status != 400 {
			t.Errorf("%s: %v", q, err)
		}
	}
	for _, body := range []string{
		`<!DOCTYPE GetRecords [<!ENTITY x "y">]><GetRecords/>`,
		`<GetRecords service="CSW" version="2.0.2"><Query typeNames="csw:Record">` + strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100) + `</Query></GetRecords>`,
		`<GetRecords service="CSW" version="2.0.2"`,
		strings.Repeat(" ", MaxPostBytes+1),
		`<GetRecords service="CSW" version="2.0.2" maxRecords="x"><Query typeNames="csw:Record"/></GetRecords>`,
		`<GetRecords service="CSW" version="2.0.2"><Query typeNames="csw:Record"><Constraint version="1.1.0"><Oops/></Constraint></Query></GetRecords>`,
	} {
		_, err := ParsePost([]byte(body))
		var e *Exception
		if !errors.As(err, &e) || e.Status/100 != 4 {
			t.Errorf("%.80s: %v", body, err)
		}
	}
}

func TestPushDown(t *testing.T) {
	e, err := parseCQL(`dc:type = 'layer' AND dc:identifier = 'layer-12' AND BBOX(ows:BoundingBox, 1, 2, 3, 4) AND title LIKE '%a%'`)
	if err != nil {
		t.Fatal(err)
	}
	q := query(Call{Request: &Request{Start: 1, Max: 10}}, e)
	if len(q.Types) != 1 || q.Types[0] != "layer" || len(q.IDs) != 1 || q.IDs[0] != "layer-12" || len(q.BBox) != 4 || q.BBox[2] != 3 || q.Filter == nil {
		t.Errorf("pushed down %+v", q)
	}
	q = query(Call{Request: &Request{Start: 1, Max: 10}}, cql2.Logical{Op: "or", Args: []cql2.Expr{e, e}})
	if q.Types != nil || q.IDs != nil || q.BBox != nil || q.Filter == nil {
		t.Errorf("an OR pushed down: %+v", q)
	}
}

func TestPostGetRecords(t *testing.T) {
	r, err := ParsePost([]byte(`<?xml version="1.0"?>
<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:ogc="http://www.opengis.net/ogc" service="CSW" version="2.0.2" resultType="results" startPosition="11" maxRecords="5" outputSchema="http://www.isotc211.org/2005/gmd">
 <csw:Query typeNames="csw:Record"><csw:ElementSetName>brief</csw:ElementSetName>
  <csw:Constraint version="1.1.0"><ogc:Filter><ogc:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\"><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>%river%</ogc:Literal></ogc:PropertyIsLike></ogc:Filter></csw:Constraint>
  <ogc:SortBy><ogc:SortProperty><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder></ogc:SortProperty></ogc:SortBy>
 </csw:Query></csw:GetRecords>`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Operation != OpGetRecords || r.Start != 11 || r.Max != 5 || r.ElementSet != "brief" || r.OutputSchema != SchemaGMD || r.Sort != catalogrecords.SortTitleDesc || r.filter == nil {
		t.Errorf("%+v", r)
	}
	e, err := r.constraint()
	if err != nil || !match(t, e) {
		t.Errorf("constraint %v %v", e, err)
	}
}
