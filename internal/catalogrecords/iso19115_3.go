package catalogrecords

// The ISO 19115-3 namespaces this package writes.
const (
	NamespaceMDB = "http://standards.iso.org/iso/19115/-3/mdb/2.0"
	ns3          = "http://standards.iso.org/iso/19115/-3/"
	codelists3   = "http://standards.iso.org/iso/19115/resources/Codelists/cat/codelists.xml#"
)

// ISO19115_3 is r's full ISO 19115-3 document (mdb:MD_Metadata): the
// uploaded document itself when it is ISO 19115-3, else one generated
// from the record with the same content as ISO19139 (a
// cit:CI_OnlineResource per link; r.Links should be filled).
func ISO19115_3(r *Record) ([]byte, error) {
	if r.ISOFormat == "19115-3" && len(r.ISO) > 0 {
		return r.ISO, nil
	}
	x := &isoXML{}
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("mdb:MD_Metadata", "xmlns:mdb", NamespaceMDB,
		"xmlns:cit", ns3+"cit/2.0", "xmlns:gco", ns3+"gco/1.0", "xmlns:mri", ns3+"mri/1.0",
		"xmlns:gex", ns3+"gex/1.0", "xmlns:mrd", ns3+"mrd/1.0", "xmlns:mco", ns3+"mco/1.0",
		"xmlns:mcc", ns3+"mcc/1.0", "xmlns:lan", ns3+"lan/1.0", "xmlns:mrs", ns3+"mrs/1.0",
		"xmlns:gml", "http://www.opengis.net/gml/3.2", "xmlns:xlink", "http://www.w3.org/1999/xlink")
	mccIdentifier(x, "mdb:metadataIdentifier", r.Identifier)
	lanLocale(x, "mdb:defaultLocale")
	x.open("mdb:metadataScope")
	x.open("mdb:MD_MetadataScope")
	x.code("mdb:resourceScope", "mcc:MD_ScopeCode", codelists3+"MD_ScopeCode", r.scopeCode())
	x.close("mdb:MD_MetadataScope")
	x.close("mdb:metadataScope")
	citParty(x, "mdb:contact", r.Contact, "pointOfContact")
	citDate(x, "mdb:dateInfo", isoDate(r.stampTime()), "revision")
	x.open("mdb:metadataStandard")
	x.open("cit:CI_Citation")
	x.wrap("cit:title", "gco:CharacterString", "ISO 19115-3")
	x.close("cit:CI_Citation")
	x.close("mdb:metadataStandard")
	if r.CRS != "" {
		x.open("mdb:referenceSystemInfo")
		x.open("mrs:MD_ReferenceSystem")
		mccIdentifier(x, "mrs:referenceSystemIdentifier", r.CRS)
		x.close("mrs:MD_ReferenceSystem")
		x.close("mdb:referenceSystemInfo")
	}
	mriIdentification(x, r)
	mrdDistribution(x, r)
	x.close("mdb:MD_Metadata")
	return x.bytes(), nil
}

func mccIdentifier(x *isoXML, outer, code string) {
	x.open(outer)
	x.open("mcc:MD_Identifier")
	x.wrap("mcc:code", "gco:CharacterString", code)
	x.close("mcc:MD_Identifier")
	x.close(outer)
}

func lanLocale(x *isoXML, outer string) {
	x.open(outer)
	x.open("lan:PT_Locale")
	x.code("lan:language", "lan:LanguageCode", "http://www.loc.gov/standards/iso639-2/", "eng")
	x.code("lan:characterEncoding", "lan:MD_CharacterSetCode", codelists3+"MD_CharacterSetCode", "utf8")
	x.close("lan:PT_Locale")
	x.close(outer)
}

func citDate(x *isoXML, outer, when, kind string) {
	x.open(outer)
	x.open("cit:CI_Date")
	x.wrap("cit:date", "gco:DateTime", when)
	x.code("cit:dateType", "cit:CI_DateTypeCode", codelists3+"CI_DateTypeCode", kind)
	x.close("cit:CI_Date")
	x.close(outer)
}

// citParty writes a cit:CI_Responsibility under outer.
func citParty(x *isoXML, outer string, p Party, role string) {
	x.open(outer)
	x.open("cit:CI_Responsibility")
	x.code("cit:role", "cit:CI_RoleCode", codelists3+"CI_RoleCode", role)
	x.open("cit:party")
	el := "cit:CI_Organisation"
	if p.Kind == "person" {
		el = "cit:CI_Individual"
	}
	x.open(el)
	x.wrap("cit:name", "gco:CharacterString", p.Name)
	if p.Email != "" || p.URL != "" {
		x.open("cit:contactInfo")
		x.open("cit:CI_Contact")
		if p.Email != "" {
			x.open("cit:address")
			x.open("cit:CI_Address")
			x.wrap("cit:electronicMailAddress", "gco:CharacterString", p.Email)
			x.close("cit:CI_Address")
			x.close("cit:address")
		}
		if p.URL != "" {
			x.open("cit:onlineResource")
			x.open("cit:CI_OnlineResource")
			x.wrap("cit:linkage", "gco:CharacterString", p.URL)
			x.close("cit:CI_OnlineResource")
			x.close("cit:onlineResource")
		}
		x.close("cit:CI_Contact")
		x.close("cit:contactInfo")
	}
	x.close(el)
	x.close("cit:party")
	x.close("cit:CI_Responsibility")
	x.close(outer)
}

func mriIdentification(x *isoXML, r *Record) {
	x.open("mdb:identificationInfo")
	x.open("mri:MD_DataIdentification")
	x.open("mri:citation")
	x.open("cit:CI_Citation")
	x.wrap("cit:title", "gco:CharacterString", r.Title)
	for _, d := range r.isoDates() {
		citDate(x, "cit:date", d[0], d[1])
	}
	mccIdentifier(x, "cit:identifier", r.Identifier)
	x.close("cit:CI_Citation")
	x.close("mri:citation")
	x.wrap("mri:abstract", "gco:CharacterString", r.Abstract)
	if r.Publisher.Name != "" {
		citParty(x, "mri:pointOfContact", r.Publisher, "publisher")
	}
	for _, t := range r.topics() {
		x.wrap("mri:topicCategory", "mri:MD_TopicCategoryCode", t)
	}
	if len(r.BBox) == 4 || r.TimeStart != nil || r.TimeEnd != nil {
		x.open("mri:extent")
		x.open("gex:EX_Extent")
	}
	if len(r.BBox) == 4 {
		x.open("gex:geographicElement")
		x.open("gex:EX_GeographicBoundingBox")
		x.wrap("gex:westBoundLongitude", "gco:Decimal", decimal(r.BBox[0]))
		x.wrap("gex:eastBoundLongitude", "gco:Decimal", decimal(r.BBox[2]))
		x.wrap("gex:southBoundLatitude", "gco:Decimal", decimal(r.BBox[1]))
		x.wrap("gex:northBoundLatitude", "gco:Decimal", decimal(r.BBox[3]))
		x.close("gex:EX_GeographicBoundingBox")
		x.close("gex:geographicElement")
	}
	if r.TimeStart != nil || r.TimeEnd != nil {
		temporalElement(x, "gex", r)
	}
	if len(r.BBox) == 4 || r.TimeStart != nil || r.TimeEnd != nil {
		x.close("gex:EX_Extent")
		x.close("mri:extent")
	}
	mriKeywords(x, r.Keywords, "")
	mriKeywords(x, r.themeNames(), "Geopub categories")
	if r.License != nil {
		x.open("mri:resourceConstraints")
		x.open("mco:MD_LegalConstraints")
		x.open("mco:reference")
		x.open("cit:CI_Citation")
		x.wrap("cit:title", "gco:CharacterString", r.License.text())
		if r.License.URL != "" {
			x.open("cit:onlineResource")
			x.open("cit:CI_OnlineResource")
			x.wrap("cit:linkage", "gco:CharacterString", r.License.URL)
			x.close("cit:CI_OnlineResource")
			x.close("cit:onlineResource")
		}
		x.close("cit:CI_Citation")
		x.close("mco:reference")
		x.code("mco:useConstraints", "mco:MD_RestrictionCode", codelists3+"MD_RestrictionCode", "license")
		x.wrap("mco:otherConstraints", "gco:CharacterString", r.License.text())
		x.close("mco:MD_LegalConstraints")
		x.close("mri:resourceConstraints")
	}
	lanLocale(x, "mri:defaultLocale")
	x.close("mri:MD_DataIdentification")
	x.close("mdb:identificationInfo")
}

func mriKeywords(x *isoXML, words []string, thesaurus string) {
	if len(words) == 0 {
		return
	}
	x.open("mri:descriptiveKeywords")
	x.open("mri:MD_Keywords")
	for _, k := range words {
		x.wrap("mri:keyword", "gco:CharacterString", k)
	}
	x.code("mri:type", "mri:MD_KeywordTypeCode", codelists3+"MD_KeywordTypeCode", "theme")
	if thesaurus != "" {
		x.open("mri:thesaurusName")
		x.open("cit:CI_Citation")
		x.wrap("cit:title", "gco:CharacterString", thesaurus)
		x.close("cit:CI_Citation")
		x.close("mri:thesaurusName")
	}
	x.close("mri:MD_Keywords")
	x.close("mri:descriptiveKeywords")
}

func mrdDistribution(x *isoXML, r *Record) {
	if len(r.Formats) == 0 && len(r.Links) == 0 {
		return
	}
	x.open("mdb:distributionInfo")
	x.open("mrd:MD_Distribution")
	for _, f := range r.Formats {
		x.open("mrd:distributionFormat")
		x.open("mrd:MD_Format")
		x.open("mrd:formatSpecificationCitation")
		x.open("cit:CI_Citation")
		x.wrap("cit:title", "gco:CharacterString", f.Name)
		x.close("cit:CI_Citation")
		x.close("mrd:formatSpecificationCitation")
		x.close("mrd:MD_Format")
		x.close("mrd:distributionFormat")
	}
	if len(r.Links) > 0 {
		x.open("mrd:transferOptions")
		x.open("mrd:MD_DigitalTransferOptions")
		for _, l := range r.Links {
			x.open("mrd:onLine")
			x.open("cit:CI_OnlineResource")
			x.wrap("cit:linkage", "gco:CharacterString", l.Href)
			x.wrap("cit:protocol", "gco:CharacterString", l.Protocol())
			x.wrap("cit:name", "gco:CharacterString", l.Title)
			x.wrap("cit:description", "gco:CharacterString", l.Type)
			x.code("cit:function", "cit:CI_OnLineFunctionCode", codelists3+"CI_OnLineFunctionCode", onlineFunction(l))
			x.close("cit:CI_OnlineResource")
			x.close("mrd:onLine")
		}
		x.close("mrd:MD_DigitalTransferOptions")
		x.close("mrd:transferOptions")
	}
	x.close("mrd:MD_Distribution")
	x.close("mdb:distributionInfo")
}
