package dcat

import "strings"

// Namespaces are the prefixes the writers declare, in the order they
// declare them; every predicate, class and datatype the mapping uses is
// in one of them.
var Namespaces = []struct{ Prefix, IRI string }{
	{"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
	{"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
	{"xsd", "http://www.w3.org/2001/XMLSchema#"},
	{"dcat", "http://www.w3.org/ns/dcat#"},
	{"dct", "http://purl.org/dc/terms/"},
	{"foaf", "http://xmlns.com/foaf/0.1/"},
	{"vcard", "http://www.w3.org/2006/vcard/ns#"},
	{"skos", "http://www.w3.org/2004/02/skos/core#"},
	{"locn", "http://www.w3.org/ns/locn#"},
	{"gsp", "http://www.opengis.net/ont/geosparql#"},
	{"hydra", "http://www.w3.org/ns/hydra/core#"},
	{"adms", "http://www.w3.org/ns/adms#"},
}

// ns returns the IRI term of prefix:local.
func ns(prefix, local string) Term {
	for _, n := range Namespaces {
		if n.Prefix == prefix {
			return Term{Kind: KindIRI, Value: n.IRI + local}
		}
	}
	panic("dcat: unknown prefix " + prefix)
}

// split finds the declared namespace of iri: its prefix and local name,
// ok false when none is declared or the local name is not a simple name
// (writers then spell the IRI out, or refuse it as a predicate).
func split(iri string) (prefix, local string, ok bool) {
	for _, n := range Namespaces {
		if l, found := strings.CutPrefix(iri, n.IRI); found && simpleName(l) {
			return n.Prefix, l, true
		}
	}
	return "", "", false
}

// simpleName is a local name valid as an XML NCName and a Turtle
// PN_LOCAL alike: a letter, then letters, digits, '_' and '-'.
func simpleName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '_' || r == '-')) {
			return false
		}
	}
	return true
}

// The terms the mapping uses.
var (
	rdfType = ns("rdf", "type")

	xsdDateTime = ns("xsd", "dateTime").Value
	xsdInteger  = ns("xsd", "integer").Value
	wktLiteral  = ns("gsp", "wktLiteral").Value

	dcatCatalog, dcatDataset, dcatDistribution = ns("dcat", "Catalog"), ns("dcat", "Dataset"), ns("dcat", "Distribution")
	dcatDataService                            = ns("dcat", "DataService")
	dcatDatasetP, dcatDistributionP            = ns("dcat", "dataset"), ns("dcat", "distribution")
	dcatAccessURL, dcatDownloadURL             = ns("dcat", "accessURL"), ns("dcat", "downloadURL")
	dcatMediaType, dcatKeyword, dcatTheme      = ns("dcat", "mediaType"), ns("dcat", "keyword"), ns("dcat", "theme")
	dcatThemeTaxonomy, dcatBBox                = ns("dcat", "themeTaxonomy"), ns("dcat", "bbox")
	dcatContactPoint, dcatLandingPage          = ns("dcat", "contactPoint"), ns("dcat", "landingPage")
	dcatAccessService, dcatEndpointURL         = ns("dcat", "accessService"), ns("dcat", "endpointURL")
	dcatServesDataset                          = ns("dcat", "servesDataset")

	dctTitle, dctDescription, dctIdentifier = ns("dct", "title"), ns("dct", "description"), ns("dct", "identifier")
	dctIssued, dctModified, dctPublisher    = ns("dct", "issued"), ns("dct", "modified"), ns("dct", "publisher")
	dctSpatial, dctLicense, dctFormat       = ns("dct", "spatial"), ns("dct", "license"), ns("dct", "format")
	dctConformsTo, dctType, dctLocation     = ns("dct", "conformsTo"), ns("dct", "type"), ns("dct", "Location")
	dctLicenseDocument, dctStandard         = ns("dct", "LicenseDocument"), ns("dct", "Standard")
	dctMediaTypeC, dctFileFormat            = ns("dct", "MediaType"), ns("dct", "MediaTypeOrExtent")

	foafAgent, foafName, foafHomepage = ns("foaf", "Agent"), ns("foaf", "name"), ns("foaf", "homepage")
	foafOrganization, foafPerson      = ns("foaf", "Organization"), ns("foaf", "Person")
	foafPage                          = ns("foaf", "page")

	vcardOrganization, vcardIndividual = ns("vcard", "Organization"), ns("vcard", "Individual")
	vcardFn, vcardHasEmail             = ns("vcard", "fn"), ns("vcard", "hasEmail")
	vcardHasURL                        = ns("vcard", "hasURL")

	skosConcept, skosConceptScheme = ns("skos", "Concept"), ns("skos", "ConceptScheme")
	skosPrefLabel, skosInScheme    = ns("skos", "prefLabel"), ns("skos", "inScheme")
	skosNotation                   = ns("skos", "notation")

	hydraPagedCollection, hydraTotalItems = ns("hydra", "PagedCollection"), ns("hydra", "totalItems")
	hydraItemsPerPage                     = ns("hydra", "itemsPerPage")
)

// adms publisher types (http://purl.org/adms/publishertype/): the one the
// records can tell is a person's.
const admsPrivateIndividual = "http://purl.org/adms/publishertype/PrivateIndividual(s)"
