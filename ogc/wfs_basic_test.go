package ogc_test

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// WFS 2.0 (09-025r2) 7.9.3.6 and 14: every WFS offers the stored query
// GetFeatureById, "the response shall be the feature itself" (not a
// collection), listed by ListStoredQueries and described by
// DescribeStoredQueries; an id no feature has is 404 NotFound (OWS
// Common 2.0 / WFS 2.0.2 Table D.2).
func testWFSStoredQueries(t *testing.T, f *fixture) {
	const byID = "urn:ogc:def:query:OGC-WFS::GetFeatureById"
	pts, private := wfsName("layer", f.points), wfsName("layer", f.private)
	local := pts[len("geopub:"):]

	r := f.wfs(t, f.reader.Key, "REQUEST", "GetCapabilities", "ACCEPTVERSIONS", "2.0.0")
	for _, op := range []string{`name="ListStoredQueries"`, `name="DescribeStoredQueries"`} {
		if !strings.Contains(string(r.body), op) {
			t.Errorf("capabilities lack the operation %s", op)
		}
	}

	r = f.wfs(t, f.reader.Key, "REQUEST", "ListStoredQueries", "VERSION", "2.0.0")
	var list struct {
		XMLName xml.Name `xml:"ListStoredQueriesResponse"`
		Queries []struct {
			ID      string   `xml:"id,attr"`
			Returns []string `xml:"ReturnFeatureType"`
		} `xml:"StoredQuery"`
	}
	if err := xml.Unmarshal(r.body, &list); err != nil || r.status != 200 || len(list.Queries) != 1 || list.Queries[0].ID != byID {
		t.Fatalf("ListStoredQueries: %d %v %s", r.status, err, r.body)
	}
	if rs := list.Queries[0].Returns; !containsAll(rs, pts) || containsAll(rs, private) {
		t.Errorf("ListStoredQueries returns %v: want %s and not the private %s", rs, pts, private)
	}

	r = f.wfs(t, f.reader.Key, "REQUEST", "DescribeStoredQueries", "VERSION", "2.0.0", "STOREDQUERY_ID", byID)
	var desc struct {
		Queries []struct {
			ID     string `xml:"id,attr"`
			Params []struct {
				Name string `xml:"name,attr"`
				Type string `xml:"type,attr"`
			} `xml:"Parameter"`
		} `xml:"StoredQueryDescription"`
	}
	if err := xml.Unmarshal(r.body, &desc); err != nil || r.status != 200 || len(desc.Queries) != 1 ||
		len(desc.Queries[0].Params) != 1 || desc.Queries[0].Params[0].Name != "ID" || desc.Queries[0].Params[0].Type != "xs:string" {
		t.Fatalf("DescribeStoredQueries: %d %v %s", r.status, err, r.body)
	}

	// GML: the feature element is the document's root.
	r = f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "STOREDQUERY_ID", byID, "ID", local+".103")
	var feat struct {
		XMLName xml.Name
		ID      string `xml:"http://www.opengis.net/gml/3.2 id,attr"`
		Name    string `xml:"name"`
		Pos     string `xml:"GEOMETRY>Point>pos"`
	}
	if err := xml.Unmarshal(r.body, &feat); err != nil || r.status != 200 {
		t.Fatalf("GetFeatureById: %d %v %s", r.status, err, r.body)
	}
	if feat.XMLName.Local != local || feat.ID != local+".103" || feat.Name != f.pointFeatures[1].attrs["name"] || feat.Pos == "" {
		t.Errorf("GetFeatureById: %+v from %s", feat, r.body)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/gml+xml") {
		t.Errorf("GetFeatureById Content-Type %q", r.header.Get("Content-Type"))
	}
	// GeoJSON: a Feature.
	var gj struct {
		Type       string         `json:"type"`
		ID         string         `json:"id"`
		Properties map[string]any `json:"properties"`
	}
	f.wfs(t, f.reader.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "STOREDQUERY_ID", byID, "ID", local+".103",
		"OUTPUTFORMAT", "application/json").json(t, 200, "application/json", &gj)
	if gj.Type != "Feature" || gj.ID != local+".103" || gj.Properties["name"] != f.pointFeatures[1].attrs["name"] {
		t.Errorf("GetFeatureById as GeoJSON: %+v", gj)
	}
	// The same by XML POST.
	post := `<wfs:GetFeature service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" outputFormat="application/json">` +
		`<wfs:StoredQuery id="` + byID + `"><wfs:Parameter name="ID">` + local + `.103</wfs:Parameter></wfs:StoredQuery></wfs:GetFeature>`
	f.post(t, f.reader.Key, "application/xml", post).json(t, 200, "application/json", &gj)
	if gj.ID != local+".103" {
		t.Errorf("GetFeatureById by POST: %+v", gj)
	}

	for _, tc := range []struct {
		name   string
		params []string
		status int
		code   string
	}{
		{"no such feature", []string{"STOREDQUERY_ID", byID, "ID", local + ".104"}, 404, "NotFound"},
		{"no such type", []string{"STOREDQUERY_ID", byID, "ID", "layer-999999.1"}, 404, "NotFound"},
		{"a private layer's feature", []string{"STOREDQUERY_ID", byID, "ID", private[len("geopub:"):] + ".1"}, 404, "NotFound"},
		{"not an id", []string{"STOREDQUERY_ID", byID, "ID", "nonsense"}, 404, "NotFound"},
		{"no ID", []string{"STOREDQUERY_ID", byID}, 400, "MissingParameterValue"},
		{"another stored query", []string{"STOREDQUERY_ID", "urn:x:Mine", "ID", local + ".103"}, 400, "InvalidParameterValue"},
		{"with ad hoc parameters", []string{"STOREDQUERY_ID", byID, "ID", local + ".103", "TYPENAMES", pts}, 400, "InvalidParameterValue"},
	} {
		params := append([]string{"REQUEST", "GetFeature", "VERSION", "2.0.0"}, tc.params...)
		f.wfs(t, f.reader.Key, params...).exception(t, tc.status, tc.code)
	}
	f.wfs(t, f.reader.Key, "REQUEST", "ListStoredQueries", "VERSION", "1.1.0").exception(t, http.StatusBadRequest, "OperationNotSupported")
	f.wfs(t, f.reader.Key, "REQUEST", "DescribeStoredQueries", "VERSION", "2.0.0", "STOREDQUERY_ID", "urn:x:Mine").
		exception(t, http.StatusBadRequest, "InvalidParameterValue")
	// The owner reads the private layer's feature by id.
	if r := f.wfs(t, f.owner.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "STOREDQUERY_ID", byID,
		"ID", private[len("geopub:"):]+".1"); r.status != 200 {
		t.Errorf("owner's GetFeatureById: %d %s", r.status, r.body)
	}
}

func containsAll(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// WFS 2.0 (09-025r2) 10: GetPropertyValue answers a query's values of one
// property (valueReference) in a wfs:ValueCollection, one wfs:member per
// feature, with the paging and counts of GetFeature.
func testWFSGetPropertyValue(t *testing.T, f *fixture) {
	pts := wfsName("layer", f.points)
	type values struct {
		XMLName  xml.Name
		Matched  string `xml:"numberMatched,attr"`
		Returned int    `xml:"numberReturned,attr"`
		Next     string `xml:"next,attr"`
		Members  []struct {
			Name string `xml:"name"`
			Geom struct {
				Pos string `xml:"Point>pos"`
				Nil string `xml:"http://www.w3.org/2001/XMLSchema-instance nil,attr"`
			} `xml:"GEOMETRY"`
		} `xml:"member"`
	}
	read := func(params ...string) values {
		t.Helper()
		r := f.wfs(t, f.reader.Key, append([]string{"REQUEST", "GetPropertyValue", "VERSION", "2.0.0", "TYPENAMES", pts}, params...)...)
		var v values
		if err := xml.Unmarshal(r.body, &v); err != nil || r.status != 200 || v.XMLName.Local != "ValueCollection" {
			t.Fatalf("%v: %d %v %s", params, r.status, err, r.body)
		}
		return v
	}
	v := read("VALUEREFERENCE", "geopub:name")
	if len(v.Members) != len(f.pointFeatures) || v.Returned != len(f.pointFeatures) {
		t.Fatalf("%d members, numberReturned %d, want %d", len(v.Members), v.Returned, len(f.pointFeatures))
	}
	for i, m := range v.Members {
		if m.Name != f.pointFeatures[i].attrs["name"] {
			t.Errorf("member %d: %q, want %q", i, m.Name, f.pointFeatures[i].attrs["name"])
		}
	}
	// The geometry, by resource id; paging with a next link.
	v = read("VALUEREFERENCE", "GEOMETRY", "RESOURCEID", pts[len("geopub:"):]+".103")
	if len(v.Members) != 1 || v.Members[0].Geom.Pos != "-41.3 174.72" {
		t.Errorf("geometry of 103: %+v", v)
	}
	v = read("VALUEREFERENCE", "name", "COUNT", "2", "STARTINDEX", "1")
	if len(v.Members) != 2 || v.Members[0].Name != f.pointFeatures[1].attrs["name"] || v.Next == "" {
		t.Errorf("page 2 of 2: %+v", v)
	}
	// The feature without a geometry has a nil member, so members and
	// features stay in step.
	v = read("VALUEREFERENCE", "GEOMETRY", "RESOURCEID", pts[len("geopub:"):]+".500")
	if len(v.Members) != 1 || v.Members[0].Geom.Nil != "true" {
		t.Errorf("geometry of 500: %+v", v)
	}
	if v = read("VALUEREFERENCE", "name", "RESULTTYPE", "hits"); len(v.Members) != 0 || v.Matched != strconv.Itoa(len(f.pointFeatures)) {
		t.Errorf("hits: %+v", v)
	}
	for _, tc := range []struct {
		params []string
		status int
		code   string
	}{
		{[]string{"TYPENAMES", pts}, 400, "MissingParameterValue"},
		{[]string{"TYPENAMES", pts, "VALUEREFERENCE", "nope"}, 400, "InvalidParameterValue"},
		{[]string{"TYPENAMES", pts, "VALUEREFERENCE", "geopub:address/geopub:street"}, 400, "InvalidParameterValue"},
		{[]string{"TYPENAMES", pts, "VALUEREFERENCE", "name", "OUTPUTFORMAT", "application/json"}, 400, "InvalidParameterValue"},
		{[]string{"TYPENAMES", wfsName("layer", f.private), "VALUEREFERENCE", "name"}, 404, "NotFound"},
	} {
		f.wfs(t, f.reader.Key, append([]string{"REQUEST", "GetPropertyValue", "VERSION", "2.0.0"}, tc.params...)...).exception(t, tc.status, tc.code)
	}
	f.wfs(t, f.reader.Key, "REQUEST", "GetPropertyValue", "VERSION", "1.1.0", "TYPENAME", pts, "VALUEREFERENCE", "name").
		exception(t, 400, "OperationNotSupported")
}
