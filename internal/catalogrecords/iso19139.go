package catalogrecords

// The ISO 19139 namespaces and code lists.
const (
	NamespaceGMD = "http://www.isotc211.org/2005/gmd"
	NamespaceGCO = "http://www.isotc211.org/2005/gco"
	gmxCodelists = "http://standards.iso.org/iso/19139/resources/gmxCodelists.xml#"
)

// ISO19139 is r's full ISO 19139 document (gmd:MD_Metadata): the
// uploaded document itself when it is ISO 19139, so every door answers
// the publisher's own words; else one generated from the record, with a
// gmd:CI_OnlineResource per link (r.Links should be filled).
func ISO19139(r *Record) ([]byte, error) {
	if r.ISOFormat == "19139" && len(r.ISO) > 0 {
		return r.ISO, nil
	}
	x := &isoXML{}
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("gmd:MD_Metadata", "xmlns:gmd", NamespaceGMD, "xmlns:gco", NamespaceGCO,
		"xmlns:gml", "http://www.opengis.net/gml", "xmlns:xlink", "http://www.w3.org/1999/xlink",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xsi:schemaLocation", NamespaceGMD+" http://schemas.opengis.net/csw/2.0.2/profiles/apiso/1.0.0/apiso.xsd")
	x.wrap("gmd:fileIdentifier", "gco:CharacterString", r.Identifier)
	x.code("gmd:language", "gmd:LanguageCode", "http://www.loc.gov/standards/iso639-2/", "eng")
	x.code("gmd:characterSet", "gmd:MD_CharacterSetCode", gmxCodelists+"MD_CharacterSetCode", "utf8")
	x.code("gmd:hierarchyLevel", "gmd:MD_ScopeCode", gmxCodelists+"MD_ScopeCode", r.scopeCode())
	gmdParty(x, "gmd:contact", r.Contact, "pointOfContact")
	x.wrap("gmd:dateStamp", "gco:DateTime", isoDate(r.stampTime()))
	x.wrap("gmd:metadataStandardName", "gco:CharacterString", "ISO 19115:2003/19139")
	x.wrap("gmd:metadataStandardVersion", "gco:CharacterString", "1.0")
	if r.CRS != "" {
		x.open("gmd:referenceSystemInfo")
		x.open("gmd:MD_ReferenceSystem")
		x.open("gmd:referenceSystemIdentifier")
		x.open("gmd:RS_Identifier")
		x.wrap("gmd:code", "gco:CharacterString", r.CRS)
		x.close("gmd:RS_Identifier")
		x.close("gmd:referenceSystemIdentifier")
		x.close("gmd:MD_ReferenceSystem")
		x.close("gmd:referenceSystemInfo")
	}
	gmdIdentification(x, r)
	gmdDistribution(x, r)
	x.close("gmd:MD_Metadata")
	return x.bytes(), nil
}

func gmdIdentification(x *isoXML, r *Record) {
	x.open("gmd:identificationInfo")
	x.open("gmd:MD_DataIdentification")
	x.open("gmd:citation")
	x.open("gmd:CI_Citation")
	x.wrap("gmd:title", "gco:CharacterString", r.Title)
	for _, d := range r.isoDates() {
		x.open("gmd:date")
		x.open("gmd:CI_Date")
		x.wrap("gmd:date", "gco:DateTime", d[0])
		x.code("gmd:dateType", "gmd:CI_DateTypeCode", gmxCodelists+"CI_DateTypeCode", d[1])
		x.close("gmd:CI_Date")
		x.close("gmd:date")
	}
	x.open("gmd:identifier")
	x.open("gmd:MD_Identifier")
	x.wrap("gmd:code", "gco:CharacterString", r.Identifier)
	x.close("gmd:MD_Identifier")
	x.close("gmd:identifier")
	x.close("gmd:CI_Citation")
	x.close("gmd:citation")
	x.wrap("gmd:abstract", "gco:CharacterString", r.Abstract)
	if r.Publisher.Name != "" {
		gmdParty(x, "gmd:pointOfContact", r.Publisher, "publisher")
	}
	gmdKeywords(x, r.Keywords, "")
	gmdKeywords(x, r.themeNames(), "Geopub categories")
	if r.License != nil {
		x.open("gmd:resourceConstraints")
		x.open("gmd:MD_LegalConstraints")
		x.wrap("gmd:useLimitation", "gco:CharacterString", r.License.text())
		x.code("gmd:useConstraints", "gmd:MD_RestrictionCode", gmxCodelists+"MD_RestrictionCode", "license")
		x.wrap("gmd:otherConstraints", "gco:CharacterString", r.License.text())
		x.close("gmd:MD_LegalConstraints")
		x.close("gmd:resourceConstraints")
	}
	x.code("gmd:language", "gmd:LanguageCode", "http://www.loc.gov/standards/iso639-2/", "eng")
	for _, t := range r.topics() {
		x.wrap("gmd:topicCategory", "gmd:MD_TopicCategoryCode", t)
	}
	if len(r.BBox) == 4 || r.TimeStart != nil || r.TimeEnd != nil {
		x.open("gmd:extent")
		x.open("gmd:EX_Extent")
	}
	if len(r.BBox) == 4 {
		x.open("gmd:geographicElement")
		x.open("gmd:EX_GeographicBoundingBox")
		x.wrap("gmd:westBoundLongitude", "gco:Decimal", decimal(r.BBox[0]))
		x.wrap("gmd:eastBoundLongitude", "gco:Decimal", decimal(r.BBox[2]))
		x.wrap("gmd:southBoundLatitude", "gco:Decimal", decimal(r.BBox[1]))
		x.wrap("gmd:northBoundLatitude", "gco:Decimal", decimal(r.BBox[3]))
		x.close("gmd:EX_GeographicBoundingBox")
		x.close("gmd:geographicElement")
	}
	if r.TimeStart != nil || r.TimeEnd != nil {
		temporalElement(x, "gmd", r)
	}
	if len(r.BBox) == 4 || r.TimeStart != nil || r.TimeEnd != nil {
		x.close("gmd:EX_Extent")
		x.close("gmd:extent")
	}
	x.close("gmd:MD_DataIdentification")
	x.close("gmd:identificationInfo")
}

// gmdKeywords writes one gmd:descriptiveKeywords block (none for no
// keywords), with a thesaurus name when given.
func gmdKeywords(x *isoXML, words []string, thesaurus string) {
	if len(words) == 0 {
		return
	}
	x.open("gmd:descriptiveKeywords")
	x.open("gmd:MD_Keywords")
	for _, k := range words {
		x.wrap("gmd:keyword", "gco:CharacterString", k)
	}
	x.code("gmd:type", "gmd:MD_KeywordTypeCode", gmxCodelists+"MD_KeywordTypeCode", "theme")
	if thesaurus != "" {
		x.open("gmd:thesaurusName")
		x.open("gmd:CI_Citation")
		x.wrap("gmd:title", "gco:CharacterString", thesaurus)
		x.open("gmd:date")
		x.b.WriteString(`<gmd:CI_Date gco:nilReason="unknown"/>`)
		x.close("gmd:date")
		x.close("gmd:CI_Citation")
		x.close("gmd:thesaurusName")
	}
	x.close("gmd:MD_Keywords")
	x.close("gmd:descriptiveKeywords")
}

// gmdParty writes a gmd:CI_ResponsibleParty under outer.
func gmdParty(x *isoXML, outer string, p Party, role string) {
	x.open(outer)
	x.open("gmd:CI_ResponsibleParty")
	if p.Kind == "person" {
		x.wrap("gmd:individualName", "gco:CharacterString", p.Name)
	} else {
		x.wrap("gmd:organisationName", "gco:CharacterString", p.Name)
	}
	if p.Email != "" || p.URL != "" {
		x.open("gmd:contactInfo")
		x.open("gmd:CI_Contact")
		if p.Email != "" {
			x.open("gmd:address")
			x.open("gmd:CI_Address")
			x.wrap("gmd:electronicMailAddress", "gco:CharacterString", p.Email)
			x.close("gmd:CI_Address")
			x.close("gmd:address")
		}
		if p.URL != "" {
			x.open("gmd:onlineResource")
			x.open("gmd:CI_OnlineResource")
			x.wrap("gmd:linkage", "gmd:URL", p.URL)
			x.close("gmd:CI_OnlineResource")
			x.close("gmd:onlineResource")
		}
		x.close("gmd:CI_Contact")
		x.close("gmd:contactInfo")
	}
	x.code("gmd:role", "gmd:CI_RoleCode", gmxCodelists+"CI_RoleCode", role)
	x.close("gmd:CI_ResponsibleParty")
	x.close(outer)
}

func gmdDistribution(x *isoXML, r *Record) {
	if len(r.Formats) == 0 && len(r.Links) == 0 {
		return
	}
	x.open("gmd:distributionInfo")
	x.open("gmd:MD_Distribution")
	for _, f := range r.Formats {
		x.open("gmd:distributionFormat")
		x.open("gmd:MD_Format")
		x.wrap("gmd:name", "gco:CharacterString", f.Name)
		x.b.WriteString(`<gmd:version gco:nilReason="unknown"/>`)
		x.close("gmd:MD_Format")
		x.close("gmd:distributionFormat")
	}
	if len(r.Links) > 0 {
		x.open("gmd:transferOptions")
		x.open("gmd:MD_DigitalTransferOptions")
		for _, l := range r.Links {
			x.open("gmd:onLine")
			x.open("gmd:CI_OnlineResource")
			x.wrap("gmd:linkage", "gmd:URL", l.Href)
			x.wrap("gmd:protocol", "gco:CharacterString", l.Protocol())
			x.wrap("gmd:name", "gco:CharacterString", l.Title)
			x.wrap("gmd:description", "gco:CharacterString", l.Type)
			x.code("gmd:function", "gmd:CI_OnLineFunctionCode", gmxCodelists+"CI_OnLineFunctionCode", onlineFunction(l))
			x.close("gmd:CI_OnlineResource")
			x.close("gmd:onLine")
		}
		x.close("gmd:MD_DigitalTransferOptions")
		x.close("gmd:transferOptions")
	}
	x.close("gmd:MD_Distribution")
	x.close("gmd:distributionInfo")
}
