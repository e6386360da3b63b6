package wfsserver

import (
	"strings"
	"testing"
)

// WFS 2.0 11.2.2 (GetFeature XML encoding): the attributes of GetFeature
// and its wfs:Query read as their KVP twins.
func TestParsePost(t *testing.T) {
	r, err := ParsePost([]byte(`<wfs:GetFeature service="WFS" version="2.0.0" count="5" startIndex="2" outputformat="application/json"
		xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2">
		<wfs:Query typenames="geopub:layer-1" srsName="EPSG:2193">
			<wfs:PropertyName>name</wfs:PropertyName>
			<fes:Filter><fes:PropertyIsLike matchCase="false" wildCard="*" singleChar="." escapeChar="!"><fes:ValueReference>name</fes:ValueReference><fes:Literal>a&lt;*</fes:Literal></fes:PropertyIsLike></fes:Filter>
			<fes:SortBy><fes:SortProperty><fes:ValueReference>name</fes:ValueReference><fes:SortOrder>DESC</fes:SortOrder></fes:SortProperty>
				<fes:SortProperty><fes:ValueReference>rank</fes:ValueReference></fes:SortProperty></fes:SortBy>
		</wfs:Query></wfs:GetFeature>`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Operation != OpGetFeature || !r.V2() || r.Count != 5 || r.Start != 2 || r.TypeNames[0] != "layer-1" || r.SRSName != "EPSG:2193" ||
		!isJSON(r.OutputFormat) || r.PropertyNames[0] != "name" || len(r.SortBy) != 2 || !r.SortBy[0].Desc || r.SortBy[1].Desc {
		t.Errorf("%+v", r)
	}
	want := `<Filter><PropertyIsLike matchCase="false" wildCard="*" singleChar="." escapeChar="!"><ValueReference>name</ValueReference><Literal>a&lt;*</Literal></PropertyIsLike></Filter>`
	if r.Filter != want {
		t.Errorf("filter %s", r.Filter)
	}
	r, err = ParsePost([]byte(`<wfs:GetFeature service="WFS" version="1.1.0" maxFeatures="3" resultType="hits" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc">
		<wfs:Query typeName="geopub:layer-2"><ogc:SortBy><ogc:SortProperty><ogc:PropertyName>rank</ogc:PropertyName><ogc:SortOrder>DESC</ogc:SortOrder></ogc:SortProperty></ogc:SortBy></wfs:Query></wfs:GetFeature>`))
	if err != nil || r.V2() || r.Count != 3 || !r.Hits || r.TypeNames[0] != "layer-2" || !r.SortBy[0].Desc {
		t.Errorf("1.1.0: %+v %v", r, err)
	}
	r, err = ParsePost([]byte(`<GetCapabilities service="WFS"><AcceptVersions><Version>1.1.0</Version></AcceptVersions></GetCapabilities>`))
	if err != nil || r.Operation != OpGetCapabilities || r.Version != "1.1.0" {
		t.Errorf("GetCapabilities: %+v %v", r, err)
	}
	r, err = ParsePost([]byte(`<DescribeFeatureType service="WFS" version="2.0.0"><TypeName>geopub:layer-1</TypeName></DescribeFeatureType>`))
	if err != nil || r.Operation != OpDescribeFeatureType || r.TypeNames[0] != "layer-1" {
		t.Errorf("DescribeFeatureType: %+v %v", r, err)
	}
	r, err = ParsePost([]byte(`<wfs:GetFeature service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0">
		<wfs:StoredQuery id="urn:ogc:def:query:OGC-WFS::GetFeatureById"><wfs:Parameter name="ID">layer-1.7</wfs:Parameter></wfs:StoredQuery>
		</wfs:GetFeature>`))
	if err != nil || r.Operation != OpGetFeature || !r.ByID || len(r.ResourceIDs) != 1 || r.ResourceIDs[0] != "layer-1.7" || r.TypeNames[0] != "layer-1" {
		t.Errorf("GetFeatureById: %+v %v", r, err)
	}
	r, err = ParsePost([]byte(`<DescribeStoredQueries service="WFS" version="2.0.0"><StoredQueryId>urn:ogc:def:query:OGC-WFS::GetFeatureById</StoredQueryId></DescribeStoredQueries>`))
	if err != nil || r.Operation != OpDescribeStoredQueries || len(r.StoredQueryIDs) != 1 {
		t.Errorf("DescribeStoredQueries: %+v %v", r, err)
	}
	if r, err = ParsePost([]byte(`<ListStoredQueries service="WFS" version="2.0.0"/>`)); err != nil || r.Operation != OpListStoredQueries {
		t.Errorf("ListStoredQueries: %+v %v", r, err)
	}
	for _, tc := range []struct {
		body   string
		code   string
		status int
	}{
		{`<GetFeature service="WFS"><Query typeNames="a">`, CodeOperationParsingFailed, 400},
		{`not xml`, CodeOperationParsingFailed, 400},
		{strings.Repeat(" ", MaxPostBytes+1), CodeOperationParsingFailed, 413},
		{`<GetFeature service="WFS"><StoredQuery id="urn:ogc:def:query:OGC-WFS::GetFeatureById"/></GetFeature>`, CodeMissingParameter, 400},
		{`<GetFeature service="WFS"><StoredQuery id="urn:x:MyQuery"><Parameter name="ID">layer-1.2</Parameter></StoredQuery></GetFeature>`, CodeInvalidParameter, 400},
		{`<GetFeature service="WFS" version="2.0.0"><Query typeNames="layer-1"/><StoredQuery id="urn:ogc:def:query:OGC-WFS::GetFeatureById"><Parameter name="ID">layer-1.2</Parameter></StoredQuery></GetFeature>`, CodeInvalidParameter, 400},
		{`<DescribeStoredQueries service="WFS" version="2.0.0"><StoredQueryId>urn:x:MyQuery</StoredQueryId></DescribeStoredQueries>`, CodeInvalidParameter, 400},
		{`<ListStoredQueries service="WFS" version="1.1.0"/>`, CodeOperationNotSupported, 400},
		{`<Transaction service="WFS" version="2.0.0"/>`, CodeOperationNotSupported, 400},
		{`<GetFeature service="WMS"><Query typeNames="a"/></GetFeature>`, CodeInvalidParameter, 400},
		{`<GetFeature service="WFS"/>`, CodeMissingParameter, 400},
	} {
		_, err := ParsePost([]byte(tc.body))
		if e, ok := err.(*Exception); !ok || e.Code != tc.code || e.Status != tc.status {
			t.Errorf("%.40s: %v", tc.body, err)
		}
	}
}
