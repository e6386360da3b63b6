package wfsserver

import (
	"context"
	"io"
	"strconv"
	"strings"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Output formats of GetFeature, by version.
var (
	formatsV2 = []string{FormatGML32, FormatGML311, FormatJSON}
	formatsV1 = []string{FormatGML311, FormatGML32, FormatJSON}
)

// otherCRS are the CRSs every type offers besides its own; any EPSG code
// PROJ knows is accepted.
var otherCRS = []int{4326, 3857, 2193}

// constraints are the WFS 2.0 conformance constraints.
var constraints = []struct {
	name string
	on   bool
}{
	{"ImplementsBasicWFS", true}, {"ImplementsTransactionalWFS", false}, {"ImplementsLockingWFS", false},
	{"KVPEncoding", true}, {"XMLEncoding", true}, {"SOAPEncoding", false}, {"ImplementsInheritance", false},
	{"ImplementsRemoteResolve", false}, {"ImplementsResultPaging", true}, {"ImplementsStandardJoins", false},
	{"ImplementsSpatialJoins", false}, {"ImplementsTemporalJoins", false}, {"ImplementsFeatureVersioning", false},
	{"ManageStoredQueries", false},
}

var filterConstraints = []struct {
	name string
	on   bool
}{
	{"ImplementsQuery", true}, {"ImplementsAdHocQuery", true}, {"ImplementsFunctions", false},
	{"ImplementsResourceId", true}, {"ImplementsMinStandardFilter", true}, {"ImplementsStandardFilter", true},
	{"ImplementsMinSpatialFilter", true}, {"ImplementsSpatialFilter", true}, {"ImplementsMinTemporalFilter", false},
	{"ImplementsTemporalFilter", false}, {"ImplementsVersionNav", false}, {"ImplementsSorting", true},
	{"ImplementsExtendedOperators", false}, {"ImplementsMinimumXPath", true}, {"ImplementsSchemaElementFunc", false},
}

var comparisonOps = []string{"PropertyIsEqualTo", "PropertyIsNotEqualTo", "PropertyIsLessThan", "PropertyIsGreaterThan",
	"PropertyIsLessThanOrEqualTo", "PropertyIsGreaterThanOrEqualTo", "PropertyIsLike", "PropertyIsNull", "PropertyIsBetween"}

func (s *Service) capabilities(ctx context.Context, c Call) (*Result, error) {
	cs, err := s.f.Collections(ctx, c.Viewer)
	if err != nil {
		return nil, err
	}
	if err := s.f.AddExtents(ctx, cs...); err != nil {
		return nil, err
	}
	types := make([]*featureType, len(cs))
	for i, col := range cs {
		types[i] = newFeatureType(col)
	}
	changesets, err := s.changesetTypes(ctx, c.Viewer)
	if err != nil {
		return nil, err
	}
	if err := s.f.AddExtents(ctx, collectionsOf(changesets)...); err != nil {
		return nil, err
	}
	types = append(types, changesets...)
	v2 := c.Request.V2()
	return &Result{ContentType: "text/xml; charset=UTF-8", Write: func(w io.Writer) error {
		if v2 {
			return writeCapabilities2(w, c.Endpoint, types)
		}
		return writeCapabilities11(w, c.Endpoint, types)
	}}, nil
}

func writeCapabilities2(w io.Writer, endpoint string, types []*featureType) error {
	x := newXW(w)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("wfs:WFS_Capabilities", "version", "2.0.0", "xmlns:wfs", "http://www.opengis.net/wfs/2.0",
		"xmlns:ows", "http://www.opengis.net/ows/1.1", "xmlns:xlink", "http://www.w3.org/1999/xlink",
		"xmlns:fes", "http://www.opengis.net/fes/2.0", "xmlns:gml", "http://www.opengis.net/gml/3.2",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance", "xmlns:"+Prefix, Namespace,
		"xsi:schemaLocation", "http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd")
	serviceIdentification(x, "2.0.0")
	x.open("ows:OperationsMetadata")
	for _, op := range []string{OpGetCapabilities, OpDescribeFeatureType, OpListStoredQueries, OpDescribeStoredQueries,
		OpGetFeature, OpGetPropertyValue} {
		x.open("ows:Operation", "name", op)
		dcp(x, endpoint)
		switch op {
		case OpGetCapabilities:
			allowed(x, "AcceptVersions", Versions...)
		case OpDescribeFeatureType:
			allowed(x, "outputFormat", "application/gml+xml; version=3.2", "text/xml; subtype=gml/3.1.1")
		case OpGetFeature:
			allowed(x, "outputFormat", formatsV2...)
			allowed(x, "resultType", "results", "hits")
		case OpGetPropertyValue:
			allowed(x, "outputFormat", FormatGML32, FormatGML311)
			allowed(x, "resultType", "results", "hits")
		}
		x.close("ows:Operation")
	}
	allowed(x, "version", Versions...)
	for _, k := range constraints {
		constraint(x, k.name, k.on)
	}
	x.open("ows:Constraint", "name", "CountDefault")
	x.raw("<ows:NoValues/>")
	x.elem("ows:DefaultValue", strconv.Itoa(MaxCount))
	x.close("ows:Constraint")
	x.close("ows:OperationsMetadata")
	x.open("wfs:FeatureTypeList")
	writeFeatureTypes(x, types, "CRS", formatsV2)
	x.close("wfs:FeatureTypeList")
	x.open("fes:Filter_Capabilities")
	x.open("fes:Conformance")
	for _, k := range filterConstraints {
		constraint(x, k.name, k.on)
	}
	x.close("fes:Conformance")
	x.raw(`<fes:Id_Capabilities><fes:ResourceIdentifier name="fes:ResourceId"/></fes:Id_Capabilities>`)
	x.raw(`<fes:Scalar_Capabilities><fes:LogicalOperators/><fes:ComparisonOperators>`)
	for _, op := range comparisonOps {
		x.empty("fes:ComparisonOperator", "name", op)
	}
	x.raw(`</fes:ComparisonOperators></fes:Scalar_Capabilities>`)
	x.raw(`<fes:Spatial_Capabilities><fes:GeometryOperands>`)
	for _, g := range []string{"gml:Envelope", "gml:Point", "gml:LineString", "gml:Polygon"} {
		x.empty("fes:GeometryOperand", "name", g)
	}
	x.raw(`</fes:GeometryOperands><fes:SpatialOperators>`)
	for _, op := range servedSpatialOps() {
		x.empty("fes:SpatialOperator", "name", op)
	}
	x.raw(`</fes:SpatialOperators></fes:Spatial_Capabilities>`)
	x.close("fes:Filter_Capabilities")
	x.close("wfs:WFS_Capabilities")
	return x.flush()
}

func writeCapabilities11(w io.Writer, endpoint string, types []*featureType) error {
	x := newXW(w)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("wfs:WFS_Capabilities", "version", "1.1.0", "xmlns:wfs", "http://www.opengis.net/wfs",
		"xmlns:ows", "http://www.opengis.net/ows", "xmlns:xlink", "http://www.w3.org/1999/xlink",
		"xmlns:ogc", "http://www.opengis.net/ogc", "xmlns:gml", "http://www.opengis.net/gml",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance", "xmlns:"+Prefix, Namespace,
		"xsi:schemaLocation", "http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd")
	serviceIdentification(x, "1.1.0")
	x.open("ows:OperationsMetadata")
	for _, op := range []string{OpGetCapabilities, OpDescribeFeatureType, OpGetFeature} {
		x.open("ows:Operation", "name", op)
		dcp(x, endpoint)
		switch op {
		case OpGetCapabilities:
			allowed10(x, "AcceptVersions", Versions...)
		case OpDescribeFeatureType:
			allowed10(x, "outputFormat", "text/xml; subtype=gml/3.1.1")
		case OpGetFeature:
			allowed10(x, "outputFormat", formatsV1...)
			allowed10(x, "resultType", "results", "hits")
		}
		x.close("ows:Operation")
	}
	x.close("ows:OperationsMetadata")
	x.open("wfs:FeatureTypeList")
	x.raw(`<wfs:Operations><wfs:Operation>Query</wfs:Operation></wfs:Operations>`)
	writeFeatureTypes(x, types, "SRS", formatsV1)
	x.close("wfs:FeatureTypeList")
	x.open("ogc:Filter_Capabilities")
	x.raw(`<ogc:Spatial_Capabilities><ogc:GeometryOperands>`)
	for _, g := range []string{"gml:Envelope", "gml:Point", "gml:LineString", "gml:Polygon"} {
		x.elem("ogc:GeometryOperand", g)
	}
	x.raw(`</ogc:GeometryOperands><ogc:SpatialOperators>`)
	for _, op := range servedSpatialOps() {
		x.empty("ogc:SpatialOperator", "name", op)
	}
	x.raw(`</ogc:SpatialOperators></ogc:Spatial_Capabilities>`)
	x.raw(`<ogc:Scalar_Capabilities><ogc:LogicalOperators/><ogc:ComparisonOperators>`)
	for _, op := range []string{"EqualTo", "NotEqualTo", "LessThan", "GreaterThan", "LessThanEqualTo", "GreaterThanEqualTo", "Like", "Between", "NullCheck"} {
		x.elem("ogc:ComparisonOperator", op)
	}
	x.raw(`</ogc:ComparisonOperators></ogc:Scalar_Capabilities>`)
	x.raw(`<ogc:Id_Capabilities><ogc:EID/><ogc:FID/></ogc:Id_Capabilities>`)
	x.close("ogc:Filter_Capabilities")
	x.close("wfs:WFS_Capabilities")
	return x.flush()
}

func serviceIdentification(x *xw, version string) {
	x.open("ows:ServiceIdentification")
	x.elem("ows:Title", "Geopub WFS")
	x.elem("ows:Abstract", "The published layers and tables of this Geopub site, as WFS feature types.")
	x.elem("ows:ServiceType", "WFS")
	for _, v := range Versions {
		if version == "2.0.0" || v == version {
			x.elem("ows:ServiceTypeVersion", v)
		}
	}
	x.elem("ows:Fees", "NONE")
	x.elem("ows:AccessConstraints", "NONE")
	x.close("ows:ServiceIdentification")
	x.open("ows:ServiceProvider")
	x.elem("ows:ProviderName", "Geopub")
	x.raw("<ows:ServiceContact/>")
	x.close("ows:ServiceProvider")
}

// dcp writes an operation's endpoints. The GET one ends in ? or & (OWS
// Common 1.1, 7.2.3: clients append the request's parameters to it, as
// OWSLib's GetPropertyValue and stored queries do).
func dcp(x *xw, endpoint string) {
	get := endpoint
	switch {
	case !strings.Contains(get, "?"):
		get += "?"
	case !strings.HasSuffix(get, "?") && !strings.HasSuffix(get, "&"):
		get += "&"
	}
	x.raw("<ows:DCP><ows:HTTP>")
	x.empty("ows:Get", "xlink:href", get)
	// Every operation also takes its XML document by POST (ParsePost).
	x.empty("ows:Post", "xlink:href", endpoint)
	x.raw("</ows:HTTP></ows:DCP>")
}

// allowed writes a parameter's values (OWS 1.1: under AllowedValues).
func allowed(x *xw, name string, values ...string) { parameter(x, true, name, values...) }

// allowed10 is allowed in OWS 1.0 (WFS 1.1.0): values directly.
func allowed10(x *xw, name string, values ...string) { parameter(x, false, name, values...) }

func parameter(x *xw, ows11 bool, name string, values ...string) {
	x.open("ows:Parameter", "name", name)
	if ows11 {
		x.open("ows:AllowedValues")
	}
	for _, v := range values {
		x.elem("ows:Value", v)
	}
	if ows11 {
		x.close("ows:AllowedValues")
	}
	x.close("ows:Parameter")
}

func constraint(x *xw, name string, on bool) {
	x.open("ows:Constraint", "name", name)
	x.raw("<ows:NoValues/>")
	x.elem("ows:DefaultValue", strings.ToUpper(strconv.FormatBool(on)))
	x.close("ows:Constraint")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func collectionsOf(ts []*featureType) []*of.Collection {
	out := make([]*of.Collection, len(ts))
	for i, t := range ts {
		out[i] = t.c
	}
	return out
}

// writeFeatureTypes writes the FeatureType entries of a FeatureTypeList;
// WFS 2.0 names their systems DefaultCRS/OtherCRS, 1.1 DefaultSRS/OtherSRS
// (srs is "CRS" or "SRS").
func writeFeatureTypes(x *xw, types []*featureType, srs string, formats []string) {
	for _, t := range types {
		x.open("wfs:FeatureType")
		x.elem("wfs:Name", Prefix+":"+t.name)
		x.elem("wfs:Title", t.c.Title)
		if t.c.Description != "" {
			x.elem("wfs:Abstract", t.c.Description)
		}
		x.elem("wfs:Default"+srs, URN(t.srs.Code()))
		for _, code := range otherCRS {
			if code != t.srs.Code() {
				x.elem("wfs:Other"+srs, URN(code))
			}
		}
		x.open("wfs:OutputFormats")
		for _, f := range formats {
			x.elem("wfs:Format", f)
		}
		x.close("wfs:OutputFormats")
		if e := t.c.Extent; len(e) == 4 {
			x.open("ows:WGS84BoundingBox")
			x.elem("ows:LowerCorner", num(e[0])+" "+num(e[1]))
			x.elem("ows:UpperCorner", num(e[2])+" "+num(e[3]))
			x.close("ows:WGS84BoundingBox")
		}
		x.close("wfs:FeatureType")
	}
}
