package dcat

import (
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// DCAT-US 3 (GSA's data.gov schema, github.com/GSA/dcat-us): the
// catalogue as one JSON document. The field names are the schema's; its
// objects allow more properties, so the DCAT-US 1.1 fields harvesters
// still read (accessLevel, license on the dataset, bbox as "W,S,E,N" in
// spatial) stay beside the 3.0 ones. There is no @context: 3.0 dropped
// it from the catalogue (GSA's migration notes), conformsTo names the
// standard instead.

// USSchema is the standard the catalogue conforms to.
const USSchema = "https://resources.data.gov/dcat-us/3.0.0/"

// USCatalog is the document.
type USCatalog struct {
	ID          string        `json:"@id"`
	Type        string        `json:"@type"`
	ConformsTo  USStandard    `json:"conformsTo"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Publisher   USAgent       `json:"publisher"`
	Dataset     []USDataset   `json:"dataset"`
	Total       int           `json:"totalItems"`
	Next        string        `json:"next,omitempty"`
	ThemeScheme []USConceptSc `json:"themeTaxonomy"`
}

// USStandard is a dct:Standard.
type USStandard struct {
	ID    string `json:"@id"`
	Type  string `json:"@type"`
	Title string `json:"title"`
}

// USConceptSc is a concept scheme.
type USConceptSc struct {
	ID    string `json:"@id"`
	Type  string `json:"@type"`
	Title string `json:"title"`
}

// USAgent is a publisher.
type USAgent struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

// USKind is a contact point (a vCard Kind).
type USKind struct {
	Type     string `json:"@type"`
	FN       string `json:"fn"`
	HasEmail string `json:"hasEmail,omitempty"`
}

// USLocation is a spatial coverage.
type USLocation struct {
	Type string `json:"@type"`
	// BBox is "W,S,E,N", the form DCAT-US 1.1 harvesters read; Geometry
	// the same box as WKT, as 3.0's Location.bbox reads it.
	BBox     string `json:"bbox"`
	Geometry string `json:"geometry"`
}

// USPeriod is a temporal coverage; an open end is left out.
type USPeriod struct {
	Type      string `json:"@type"`
	StartDate string `json:"startDate,omitempty"`
	EndDate   string `json:"endDate,omitempty"`
}

// USDistribution is one way to reach the data.
type USDistribution struct {
	Type        string `json:"@type"`
	Title       string `json:"title"`
	AccessURL   string `json:"accessURL,omitempty"`
	DownloadURL string `json:"downloadURL,omitempty"`
	MediaType   string `json:"mediaType,omitempty"`
	Format      string `json:"format,omitempty"`
	ConformsTo  string `json:"conformsTo,omitempty"`
	License     string `json:"license,omitempty"`
}

// USDataset is one record.
type USDataset struct {
	ID           string           `json:"@id"`
	Type         string           `json:"@type"`
	Identifier   string           `json:"identifier"`
	Title        string           `json:"title"`
	Description  string           `json:"description"`
	Keyword      []string         `json:"keyword"`
	Theme        []string         `json:"theme,omitempty"`
	Issued       string           `json:"issued,omitempty"`
	Modified     string           `json:"modified,omitempty"`
	Publisher    USAgent          `json:"publisher"`
	ContactPoint USKind           `json:"contactPoint"`
	AccessLevel  string           `json:"accessLevel"`
	License      string           `json:"license"`
	Spatial      []USLocation     `json:"spatial,omitempty"`
	Temporal     []USPeriod       `json:"temporal,omitempty"`
	LandingPage  string           `json:"landingPage"`
	Distribution []USDistribution `json:"distribution"`
}

// BuildUS is the DCAT-US 3 document of records; total is how many the
// catalogue holds for the caller and next the next page's URL ("" on the
// last).
func BuildUS(c Catalog, records []catalogrecords.Record, total int, next string) *USCatalog {
	out := &USCatalog{
		ID: checked(c.IRI), Type: "Catalog",
		ConformsTo:  USStandard{ID: USSchema, Type: "Standard", Title: "DCAT-US 3.0"},
		Title:       Clean(c.Title),
		Description: Clean(c.Description),
		Publisher:   USAgent{Type: "Agent", Name: Clean(c.Publisher)},
		Dataset:     []USDataset{},
		Total:       total,
		Next:        checked(next),
		ThemeScheme: []USConceptSc{{ID: checked(c.themeScheme()), Type: "ConceptScheme", Title: Clean("Categories of " + c.Title)}},
	}
	for i := range records {
		if d, ok := usDataset(c, &records[i]); ok {
			out.Dataset = append(out.Dataset, d)
		}
	}
	return out
}

// usDataset maps one record; ok is false when it has no page IRI.
func usDataset(c Catalog, r *catalogrecords.Record) (USDataset, bool) {
	page := checked(r.HTMLURL(c.Origin))
	if page == "" {
		return USDataset{}, false
	}
	title := strings.TrimSpace(r.Title)
	if title == "" {
		title = r.Identifier
	}
	d := USDataset{
		ID: page, Type: "Dataset", Identifier: Clean(r.Identifier), Title: Clean(title),
		Description: Clean(Description(r, c.Title)), Keyword: []string{},
		Issued: stamp(r.Published), Modified: stamp(r.Modified),
		Publisher:   USAgent{Type: "Agent", Name: Clean(r.Publisher.Name)},
		AccessLevel: "public", LandingPage: page, Distribution: []USDistribution{},
	}
	if d.Publisher.Name == "" {
		d.Publisher.Name = Clean(c.Publisher)
	}
	for _, k := range r.Keywords {
		if k = Clean(strings.TrimSpace(k)); k != "" {
			d.Keyword = append(d.Keyword, k)
		}
	}
	for _, t := range r.Themes {
		if iri := checked(c.ThemeIRI(t.Key)); iri != "" {
			d.Theme = append(d.Theme, iri)
		}
	}
	d.ContactPoint = USKind{Type: "Kind", FN: Clean(strings.TrimSpace(r.Contact.Name)), HasEmail: MailTo(r.Contact.Email)}
	if d.ContactPoint.FN == "" {
		d.ContactPoint.FN = d.Publisher.Name
	}
	if r.License != nil {
		d.License = checked(r.License.URL)
	}
	if d.License == "" {
		d.License = checked(page + "#licence")
	}
	if wkt := BBoxWKT(r.BBox); wkt != "" {
		parts := make([]string, 4)
		for i, v := range r.BBox {
			parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
		}
		d.Spatial = []USLocation{{Type: "Location", BBox: strings.Join(parts, ","), Geometry: wkt}}
	}
	if r.TimeStart != nil || r.TimeEnd != nil {
		p := USPeriod{Type: "PeriodOfTime"}
		if r.TimeStart != nil {
			p.StartDate = r.TimeStart.UTC().Format(time.RFC3339)
		}
		if r.TimeEnd != nil {
			p.EndDate = r.TimeEnd.UTC().Format(time.RFC3339)
		}
		d.Temporal = []USPeriod{p}
	}
	for _, l := range r.Links {
		href := checked(l.Href)
		if href == "" {
			continue
		}
		dist := USDistribution{Type: "Distribution", Title: Clean(l.Title), MediaType: l.Type, License: d.License}
		if ft := fileTypeIRI(l.Type); ft != "" {
			dist.Format = strings.TrimPrefix(ft, fileTypeBase)
		}
		switch l.Rel {
		case "self":
			dist.Title, dist.AccessURL = "Geopub REST API (JSON)", href
		case "service":
			dist.AccessURL, dist.ConformsTo = href, Standards[l.Service]
		case "enclosure":
			dist.DownloadURL = href
		case "export":
			dist.AccessURL = href
		default:
			continue
		}
		if mediaTypeIRI(l.Type) == "" {
			dist.MediaType = ""
		}
		d.Distribution = append(d.Distribution, dist)
	}
	return d, true
}

// checked is s as Check cleans it, "" when it is not an IRI we write.
func checked(s string) string {
	c, _ := Check(s)
	return c
}

// stamp is t in RFC 3339 (UTC), "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
