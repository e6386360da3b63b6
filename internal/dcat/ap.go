package dcat

import (
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// Catalog describes the catalogue a feed publishes.
type Catalog struct {
	// IRI names the catalogue: the feed's URL without paging.
	IRI string
	// Origin is scheme://host, for the pages and categories.
	Origin      string
	Title       string
	Description string
	// Publisher is the name of who runs the catalogue.
	Publisher string
}

// Paging places a page in the feed, written as ckanext-dcat does (a
// hydra:PagedCollection named by the page's URL); nil for none.
type Paging struct {
	Self, First, Last, Next, Previous string
	Total, PerPage                    int
}

// themeScheme is the IRI of the categories' concept scheme.
func (c Catalog) themeScheme() string {
	return strings.TrimRight(c.Origin, "/") + "/services/api/v1.x/categories/"
}

// ThemeIRI is the IRI of a category: the catalogue listing of its
// datasets, so that it resolves to something useful.
func (c Catalog) ThemeIRI(key string) string {
	return strings.TrimRight(c.Origin, "/") + "/services/api/v1.x/data/?category=" + url.QueryEscape(key)
}

// Build is the DCAT-AP 3 graph of one page of the catalogue: the
// catalogue, its theme taxonomy, records' datasets with their
// distributions, and the page's place in the feed.
func Build(c Catalog, records []catalogrecords.Record, p *Paging) *Graph {
	g := NewGraph()
	cat := IRI(c.IRI)
	g.Add(cat, rdfType, dcatCatalog)
	g.Add(cat, dctTitle, Lit(c.Title))
	g.Add(cat, dctDescription, Lit(c.Description))
	pub := g.Blank()
	g.Add(cat, dctPublisher, pub)
	g.Add(pub, rdfType, foafAgent)
	g.Add(pub, foafName, Lit(c.Publisher))
	g.Add(cat, foafHomepage, IRI(strings.TrimRight(c.Origin, "/")+"/"))
	scheme := IRI(c.themeScheme())
	g.Add(cat, dcatThemeTaxonomy, scheme)
	g.Add(scheme, rdfType, skosConceptScheme)
	g.Add(scheme, dctTitle, Lit("Categories of "+c.Title))
	for i := range records {
		if ds := addDataset(g, c, &records[i]); ds.Value != "" {
			g.Add(cat, dcatDatasetP, ds)
		}
	}
	if p != nil {
		addPaging(g, p)
	}
	return g
}

// addPaging writes the page with both Hydra's current terms (first,
// next, ...) and the older ones ckanext-dcat harvesters read (firstPage,
// nextPage, ...).
func addPaging(g *Graph, p *Paging) {
	self := IRI(p.Self)
	g.Add(self, rdfType, hydraPagedCollection)
	g.Add(self, hydraTotalItems, Typed(strconv.Itoa(p.Total), xsdInteger))
	g.Add(self, hydraItemsPerPage, Typed(strconv.Itoa(p.PerPage), xsdInteger))
	for _, l := range []struct{ now, old, href string }{
		{"first", "firstPage", p.First}, {"last", "lastPage", p.Last},
		{"next", "nextPage", p.Next}, {"previous", "previousPage", p.Previous},
	} {
		g.Add(self, ns("hydra", l.now), IRI(l.href))
		g.Add(self, ns("hydra", l.old), IRI(l.href))
	}
}

// addDataset writes r's dataset and returns its IRI (zero when r has no
// web page IRI, then nothing is written).
func addDataset(g *Graph, c Catalog, r *catalogrecords.Record) Term {
	page := r.HTMLURL(c.Origin)
	ds := IRI(page)
	if ds.Value == "" {
		return ds
	}
	g.Add(ds, rdfType, dcatDataset)
	g.Add(ds, dctIdentifier, Lit(r.Identifier))
	title := strings.TrimSpace(r.Title)
	if title == "" {
		title = r.Identifier
	}
	g.Add(ds, dctTitle, Lit(title))
	g.Add(ds, dctDescription, Lit(Description(r, c.Title)))
	for _, k := range r.Keywords {
		g.Add(ds, dcatKeyword, Lit(strings.TrimSpace(k)))
	}
	for _, t := range r.Themes {
		concept := IRI(c.ThemeIRI(t.Key))
		g.Add(ds, dcatTheme, concept)
		g.Add(concept, rdfType, skosConcept)
		g.Add(concept, skosPrefLabel, Lit(t.Name))
		g.Add(concept, skosNotation, Lit(t.Key))
		g.Add(concept, skosInScheme, IRI(c.themeScheme()))
	}
	if wkt := BBoxWKT(r.BBox); wkt != "" {
		loc := g.Blank()
		g.Add(ds, dctSpatial, loc)
		g.Add(loc, rdfType, dctLocation)
		g.Add(loc, dcatBBox, Typed(wkt, wktLiteral))
	}
	if r.TimeStart != nil || r.TimeEnd != nil {
		period := g.Blank()
		g.Add(ds, dctTemporal, period)
		g.Add(period, rdfType, dctPeriodOfTime)
		if r.TimeStart != nil {
			g.Add(period, dcatStartDate, dateTime(*r.TimeStart))
		}
		if r.TimeEnd != nil {
			g.Add(period, dcatEndDate, dateTime(*r.TimeEnd))
		}
	}
	g.Add(ds, dctIssued, dateTime(r.Published))
	g.Add(ds, dctModified, dateTime(r.Modified))
	addPublisher(g, ds, r.Publisher)
	addContact(g, ds, r.Contact)
	g.Add(ds, dcatLandingPage, IRI(page))
	lic := addLicense(g, ds, r, page)
	n := 0
	for _, l := range r.Links {
		switch l.Rel {
		case "self", "service", "enclosure", "export":
			n++
			addDistribution(g, ds, lic, l, fmt.Sprintf("%s#distribution-%d", page, n))
		case "describedby":
			g.Add(ds, foafPage, IRI(l.Href))
		}
	}
	return ds
}

// Description is r's abstract, or a sentence naming it when it has none
// (DCAT-AP makes dct:description mandatory).
func Description(r *catalogrecords.Record, site string) string {
	if a := strings.TrimSpace(r.Abstract); a != "" {
		return a
	}
	what := r.Kind
	if what == "" || what == string(r.Type) {
		what = string(r.Type)
	} else {
		what += " " + string(r.Type)
	}
	return fmt.Sprintf("%s, a %s published in %s.", strings.TrimSpace(r.Title), what, site)
}

// addPublisher writes the publisher as a foaf:Agent, named by its page
// when it has one.
func addPublisher(g *Graph, ds Term, p catalogrecords.Party) {
	if strings.TrimSpace(p.Name) == "" {
		return
	}
	agent := IRI(p.URL)
	if agent.Value == "" {
		agent = g.Blank()
	}
	g.Add(ds, dctPublisher, agent)
	g.Add(agent, rdfType, foafAgent)
	g.Add(agent, foafName, Lit(p.Name))
	if p.Kind == "person" {
		g.Add(agent, rdfType, foafPerson)
		g.Add(agent, dctType, IRI(admsPrivateIndividual))
	} else {
		g.Add(agent, rdfType, foafOrganization)
	}
}

// addContact writes the contact point as a vCard.
func addContact(g *Graph, ds Term, p catalogrecords.Party) {
	email := MailTo(p.Email)
	if strings.TrimSpace(p.Name) == "" && email == "" {
		return
	}
	card := g.Blank()
	g.Add(ds, dcatContactPoint, card)
	if p.Kind == "person" {
		g.Add(card, rdfType, vcardIndividual)
	} else {
		g.Add(card, rdfType, vcardOrganization)
	}
	name := strings.TrimSpace(p.Name)
	if name == "" {
		name = p.Email
	}
	g.Add(card, vcardFn, Lit(name))
	g.Add(card, vcardHasEmail, IRI(email))
	g.Add(card, vcardHasURL, IRI(p.URL))
}

// MailTo is the mailto: IRI of an address, "" when it is not one.
func MailTo(addr string) string {
	addr = strings.TrimSpace(addr)
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || strings.ContainsAny(addr, " <>\"\\") {
		return ""
	}
	return "mailto:" + addr
}

// addLicense writes the dataset's licence and returns it: the licence's
// own page when known, else the dataset page's licence section (DCAT-AP
// wants a dct:LicenseDocument, and our feeds give one for every dataset).
func addLicense(g *Graph, ds Term, r *catalogrecords.Record, page string) Term {
	var lic Term
	title := "Licence not stated: see the dataset's page"
	if r.License != nil {
		lic = IRI(r.License.URL)
		title = r.License.Title
		if title == "" {
			title = strings.TrimSpace(r.License.Type + " " + r.License.Version)
		}
	}
	if lic.Value == "" {
		lic = IRI(page + "#licence")
	}
	g.Add(ds, dctLicense, lic)
	g.Add(lic, rdfType, dctLicenseDocument)
	g.Add(lic, dctTitle, Lit(title))
	return lic
}

// addDistribution writes one way to reach the data: l's URL as the
// access URL (and the download URL of downloads), its media type and
// file type, the licence, and for services the data service.
func addDistribution(g *Graph, ds, lic Term, l catalogrecords.Link, iri string) {
	href := IRI(l.Href)
	if href.Value == "" {
		return
	}
	d := IRI(iri)
	g.Add(ds, dcatDistributionP, d)
	g.Add(d, rdfType, dcatDistribution)
	title := l.Title
	if l.Rel == "self" {
		title = "Geopub REST API (JSON)"
	}
	g.Add(d, dctTitle, Lit(title))
	g.Add(d, dcatAccessURL, href)
	if l.Rel == "enclosure" {
		g.Add(d, dcatDownloadURL, href)
	}
	if mt := IRI(mediaTypeIRI(l.Type)); mt.Value != "" {
		g.Add(d, dcatMediaType, mt)
		g.Add(mt, rdfType, dctMediaTypeC)
	}
	if ft := IRI(fileTypeIRI(l.Type)); ft.Value != "" {
		g.Add(d, dctFormat, ft)
		g.Add(ft, rdfType, dctFileFormat)
	}
	g.Add(d, dctLicense, lic)
	if l.Rel != "service" {
		return
	}
	svc := IRI(strings.Replace(iri, "#distribution-", "#service-", 1))
	g.Add(d, dcatAccessService, svc)
	g.Add(svc, rdfType, dcatDataService)
	g.Add(svc, dctTitle, Lit(l.Title))
	g.Add(svc, dcatEndpointURL, href)
	g.Add(svc, dcatServesDataset, ds)
	if std := IRI(Standards[l.Service]); std.Value != "" {
		g.Add(svc, dctConformsTo, std)
		g.Add(std, rdfType, dctStandard)
	}
	g.Add(svc, dctLicense, lic)
}

// BBoxWKT is box [w, s, e, n] (EPSG:4326, longitude first as WKT's
// default CRS84 reads it) as a WKT polygon; "" when box is not one.
func BBoxWKT(box []float64) string {
	if len(box) != 4 {
		return ""
	}
	var f [4]string
	for i, v := range box {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		f[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	w, s, e, n := f[0], f[1], f[2], f[3]
	return fmt.Sprintf("POLYGON((%s %s, %s %s, %s %s, %s %s, %s %s))", w, s, e, s, e, n, w, n, w, s)
}

// dateTime is t as an xsd:dateTime literal in UTC; the zero Term (which
// Add skips) for the zero time.
func dateTime(t time.Time) Term {
	if t.IsZero() {
		return Term{}
	}
	return Typed(t.UTC().Format(time.RFC3339), xsdDateTime)
}
