package cswserver

// operationParams are the parameters each operation lists, with their
// values.
var operationParams = map[string][][2]any{
	OpGetCapabilities: {{"sections", []string{"ServiceIdentification", "ServiceProvider", "OperationsMetadata", "Filter_Capabilities"}}},
	OpDescribeRecord: {{"typeName", []string{"csw:Record"}}, {"outputFormat", []string{"application/xml"}},
		{"schemaLanguage", []string{"http://www.w3.org/XML/Schema"}}},
	OpGetRecords: {{"typeNames", []string{"csw:Record", "gmd:MD_Metadata"}}, {"outputFormat", []string{"application/xml"}},
		{"outputSchema", OutputSchemas}, {"resultType", []string{"hits", "results", "validate"}},
		{"ElementSetName", []string{"brief", "summary", "full"}}, {"CONSTRAINTLANGUAGE", []string{LangFilter, LangCQL}}},
	OpGetRecordByID: {{"outputSchema", OutputSchemas}, {"outputFormat", []string{"application/xml"}},
		{"ElementSetName", []string{"brief", "summary", "full"}}},
}

// comparisonOperators are Filter 1.1's names; FES 2.0 prefixes them
// with PropertyIs.
var comparisonOperators = []string{"EqualTo", "NotEqualTo", "LessThan", "GreaterThan", "LessThanOrEqualTo",
	"GreaterThanOrEqualTo", "Like", "Between", "Null"}

// capabilities is the Capabilities document of the request's version.
func capabilities(c Call) []byte {
	v := c.Request.Version
	x := &xw{}
	x.decl()
	if v == V3 {
		x.open("csw30:Capabilities", "xmlns:csw30", nsCSW3, "xmlns:ows", nsOWS2, "xmlns:fes", nsFES,
			"xmlns:gml", "http://www.opengis.net/gml/3.2", "xmlns:xlink", nsXLK, "version", V3)
	} else {
		x.open("csw:Capabilities", "xmlns:csw", nsCSW, "xmlns:ows", nsOWS, "xmlns:ogc", nsOGC,
			"xmlns:gml", "http://www.opengis.net/gml", "xmlns:xlink", nsXLK, "version", V2)
	}
	x.open("ows:ServiceIdentification")
	x.elem("ows:Title", c.Title)
	x.elem("ows:Abstract", "The published datasets of this catalogue as the caller may see them, in Dublin Core, ISO 19139 and ISO 19115-3.")
	x.open("ows:Keywords")
	for _, k := range []string{"catalogue", "metadata", "CSW"} {
		x.elem("ows:Keyword", k)
	}
	x.close("ows:Keywords")
	x.elem("ows:ServiceType", "CSW")
	x.elem("ows:ServiceTypeVersion", V2)
	x.elem("ows:ServiceTypeVersion", V3)
	x.elem("ows:Fees", "none")
	x.elem("ows:AccessConstraints", "Records of private datasets are listed only to callers who may view them.")
	x.close("ows:ServiceIdentification")
	x.open("ows:ServiceProvider")
	x.elem("ows:ProviderName", "Geopub")
	x.close("ows:ServiceProvider")
	x.open("ows:OperationsMetadata")
	for _, op := range Operations {
		x.open("ows:Operation", "name", op)
		x.open("ows:DCP")
		x.open("ows:HTTP")
		x.empty("ows:Get", "xlink:type", "simple", "xlink:href", c.Endpoint)
		x.empty("ows:Post", "xlink:type", "simple", "xlink:href", c.Endpoint)
		x.close("ows:HTTP")
		x.close("ows:DCP")
		for _, p := range operationParams[op] {
			values(x, v, "ows:Parameter", p[0].(string), p[1].([]string))
		}
		if op == OpGetDomain {
			values(x, v, "ows:Parameter", "ParameterName", domainParameterNames())
			values(x, v, "ows:Parameter", "PropertyName", domainPropertyNames)
		}
		if op == OpGetRecords {
			values(x, v, "ows:Constraint", "SupportedDublinCoreQueryables", dcQueryables)
			values(x, v, "ows:Constraint", "SupportedISOQueryables", isoQueryables)
		}
		x.close("ows:Operation")
	}
	values(x, v, "ows:Parameter", "service", []string{"CSW"})
	values(x, v, "ows:Parameter", "version", []string{V2, V3})
	if v == V3 {
		values(x, v, "ows:Constraint", "OpenSearch", []string{"FALSE"})
		values(x, v, "ows:Constraint", "FederatedCatalogues", []string{"FALSE"})
	}
	x.close("ows:OperationsMetadata")
	if v == V3 {
		fesCapabilities(x)
		x.close("csw30:Capabilities")
	} else {
		ogcCapabilities(x)
		x.close("csw:Capabilities")
	}
	return x.b.Bytes()
}

// values writes a Parameter or Constraint with its values: OWS 1.0 lists
// ows:Value, OWS 2.0 wraps them in ows:AllowedValues.
func values(x *xw, v, el, name string, vs []string) {
	x.open(el, "name", name)
	if v == V3 {
		x.open("ows:AllowedValues")
	}
	for _, s := range vs {
		x.elem("ows:Value", s)
	}
	if v == V3 {
		x.close("ows:AllowedValues")
	}
	x.close(el)
}

func ogcCapabilities(x *xw) {
	x.open("ogc:Filter_Capabilities")
	x.open("ogc:Spatial_Capabilities")
	x.open("ogc:GeometryOperands")
	x.elem("ogc:GeometryOperand", "gml:Envelope")
	x.close("ogc:GeometryOperands")
	x.open("ogc:SpatialOperators")
	for _, op := range SpatialOperators() {
		x.empty("ogc:SpatialOperator", "name", op)
	}
	x.close("ogc:SpatialOperators")
	x.close("ogc:Spatial_Capabilities")
	x.open("ogc:Scalar_Capabilities")
	x.empty("ogc:LogicalOperators")
	x.open("ogc:ComparisonOperators")
	for _, op := range comparisonOperators {
		if op == "Null" {
			op = "NullCheck"
		}
		x.elem("ogc:ComparisonOperator", op)
	}
	x.close("ogc:ComparisonOperators")
	x.close("ogc:Scalar_Capabilities")
	x.open("ogc:Id_Capabilities")
	x.empty("ogc:EID")
	x.empty("ogc:FID")
	x.close("ogc:Id_Capabilities")
	x.close("ogc:Filter_Capabilities")
}

func fesCapabilities(x *xw) {
	x.open("fes:Filter_Capabilities")
	x.open("fes:Conformance")
	for _, c := range [][2]string{{"ImplementsQuery", "TRUE"}, {"ImplementsAdHocQuery", "TRUE"}, {"ImplementsFunctions", "FALSE"},
		{"ImplementsResourceId", "TRUE"}, {"ImplementsMinStandardFilter", "TRUE"}, {"ImplementsStandardFilter", "TRUE"},
		{"ImplementsMinSpatialFilter", "TRUE"}, {"ImplementsSpatialFilter", "FALSE"}, {"ImplementsMinTemporalFilter", "FALSE"},
		{"ImplementsTemporalFilter", "FALSE"}, {"ImplementsVersionNav", "FALSE"}, {"ImplementsSorting", "TRUE"},
		{"ImplementsExtendedOperators", "FALSE"}} {
		x.open("fes:Constraint", "name", c[0])
		x.empty("ows:NoValues")
		x.elem("ows:DefaultValue", c[1])
		x.close("fes:Constraint")
	}
	x.close("fes:Conformance")
	x.open("fes:Id_Capabilities")
	x.empty("fes:ResourceIdentifier", "name", "csw30:Record")
	x.close("fes:Id_Capabilities")
	x.open("fes:Scalar_Capabilities")
	x.empty("fes:LogicalOperators")
	x.open("fes:ComparisonOperators")
	for _, op := range comparisonOperators {
		x.empty("fes:ComparisonOperator", "name", "PropertyIs"+op)
	}
	x.close("fes:ComparisonOperators")
	x.close("fes:Scalar_Capabilities")
	x.open("fes:Spatial_Capabilities")
	x.open("fes:GeometryOperands")
	x.empty("fes:GeometryOperand", "name", "gml:Envelope")
	x.close("fes:GeometryOperands")
	x.open("fes:SpatialOperators")
	for _, op := range SpatialOperators() {
		x.empty("fes:SpatialOperator", "name", op)
	}
	x.close("fes:SpatialOperators")
	x.close("fes:Spatial_Capabilities")
	x.close("fes:Filter_Capabilities")
}
