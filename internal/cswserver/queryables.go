package cswserver

import (
	"strings"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cql2"
)

// queryables maps a queryable's local name, lower-cased, to the record
// property it is (catalogrecords.Queryables, plus subject). Dublin Core,
// CSW and ISO (apiso) names are all read, with or without their prefix.
var queryables = map[string]string{
	"title": "title", "abstract": "description", "description": "description",
	"subject": "subject", "keywords": "subject", "anytext": "anytext",
	"type": "type", "modified": "updated", "revisiondate": "updated", "updated": "updated",
	"boundingbox": "geometry", "geometry": "geometry", "spatial": "geometry",
	"identifier": "id", "id": "id",
	"created": "created", "creationdate": "created", "issued": "published", "publicationdate": "published",
	"publisher": "publisher", "organisationname": "publisher", "rights": "license", "license": "license",
}

// queryable is the record property a queryable name is ("" for none).
func queryable(name string) string {
	return queryables[strings.ToLower(local(strings.TrimSpace(name)))]
}

// Queryables are the names the capabilities and GetDomain list, in
// order (SupportedDublinCoreQueryables / SupportedISOQueryables).
var (
	dcQueryables  = []string{"dc:title", "dct:abstract", "dc:subject", "csw:AnyText", "dc:type", "dct:modified", "ows:BoundingBox", "dc:identifier", "dc:publisher", "dc:rights"}
	isoQueryables = []string{"apiso:Title", "apiso:Abstract", "apiso:Subject", "apiso:AnyText", "apiso:Type", "apiso:Modified", "apiso:BoundingBox", "apiso:Identifier", "apiso:CreationDate", "apiso:PublicationDate", "apiso:OrganisationName"}
)

// feature is r as constraints see it: its cql2 feature with subject (the
// keywords and themes).
func feature(r *catalogrecords.Record) *cql2.Feature {
	f := r.Feature()
	f.Props["subject"] = strings.Join(subjects(r), ", ")
	return f
}

// subjects are r's keywords and theme names (dc:subject).
func subjects(r *catalogrecords.Record) []string {
	out := append([]string(nil), r.Keywords...)
	for _, t := range r.Themes {
		out = append(out, t.Name)
	}
	return out
}

// dateProps are the properties whose literals are read as times.
var dateProps = map[string]bool{"updated": true, "created": true, "published": true}
