// Package cswserver is the catalogue's OGC Catalogue Service for the Web
// (CSW 2.0.2 and 3.0): GetCapabilities, DescribeRecord, GetRecords,
// GetRecordById and GetDomain over the records of internal/catalogrecords.
//
// The rules:
//
//   - The records are the catalogue as the caller may see it: Serve asks
//     a Source (the resolver's CatalogRecords, the same query /data/,
//     OGC API - Records and DCAT use) and never reads the store itself.
//     A dataset whose csw service is off is absent; tables and documents,
//     which have no services, are present as the catalogue lists them.
//   - Requests come as KVP (parameter names case-insensitive) or as XML
//     POST documents; both become one Request. XML is read hardened: a
//     size limit, no DOCTYPE (so no entities), bounded nesting.
//   - Constraints (OGC Filter 1.1, FES 2.0 or CQL text) become one
//     internal/cql2 expression over the record queryables (dc:title →
//     title, csw:AnyText → anytext, dc:subject → keywords and themes,
//     ows:BoundingBox → the extent, ...), evaluated on each candidate
//     record (catalogrecords.Query.Filter); conjuncts that the
//     catalogue's index answers exactly (type, identifier, a bounding
//     box) are pushed down to it. PropertyIsLike is case-insensitive,
//     as in pycsw.
//   - Full ISO answers (gmd:MD_Metadata, mdb:MD_Metadata) are
//     catalogrecords.ISO19139 and ISO19115_3: the dataset's own uploaded
//     document when it has one, so CSW and Records agree.
//   - Mistakes are ows:ExceptionReports with the OWS code (MissingParameterValue,
//     InvalidParameterValue, OperationNotSupported, NoApplicableCode) and
//     a 4xx status; never a 500 for anything a client sends.
package cswserver
