// Package dcat turns catalogue records (internal/catalogrecords) into the
// DCAT feeds harvesters read: DCAT-AP 3 as an RDF graph, written as
// Turtle, JSON-LD or RDF/XML, and DCAT-US 3 as data.gov's JSON.
//
// The rules:
//
//   - One graph, three syntaxes. Build maps records to a small RDF model
//     (Graph: IRIs, blank nodes, literals with a datatype or a language)
//     and each writer serialises that same graph, so a harvester reading
//     any of them gets the same triples (the tests parse all three with
//     rdflib and compare the graphs).
//   - Everything is escaped, nothing is trusted. Literals lose the
//     characters XML 1.0 cannot carry (so that the three syntaxes agree)
//     and invalid UTF-8; IRIs must be absolute http, https, mailto or urn
//     IRIs, with the characters Turtle and XML forbid percent-encoded;
//     what fails is left out rather than written.
//   - The DCAT-AP 3 mapping of a record: a dcat:Dataset named by its web
//     page, with dct:identifier, title, description, keywords, themes
//     (the categories as skos:Concepts of one scheme, the catalogue's
//     dcat:themeTaxonomy), its extent as a dct:Location with a WKT
//     dcat:bbox, dates, publisher (foaf:Agent with an ADMS publisher type
//     for people), contact point (vCard), landing page, licence
//     (dct:LicenseDocument) and one dcat:Distribution per way to reach the
//     data: the REST resource, each data service (with its
//     dcat:DataService, dct:conformsTo the standard) and each export
//     format (dcat:downloadURL). Every distribution has the dcat:accessURL
//     DCAT-AP makes mandatory and the dataset's licence.
//   - DCAT-US 3 (USDataset) is written from the records directly, in the
//     shape of GSA's JSON schema (dataset[] of title, description,
//     keyword, publisher, contactPoint, identifier, spatial, distribution,
//     ...).
package dcat
