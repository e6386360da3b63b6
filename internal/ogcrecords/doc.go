// Package ogcrecords is OGC API - Records Part 1 over the catalogue
// (internal/catalogrecords): the query parameters of an items request,
// the collections, and the documents (landing page, conformance,
// collections, records as GeoJSON) with their HTML forms. The door
// (ogc/records.go) only speaks HTTP and asks graph's CatalogRecords.
//
// The rules:
//
//   - One collection per catalogue view: "catalogue" holds every record
//     the caller may see; "group-{id}" holds those a group publishes,
//     listed only when the caller sees at least one of them (the
//     catalogue's group facet). A group's collection is the catalogue
//     restricted to the records the group owns (Query.GroupIDs).
//   - The parameters are the standard's, mapped onto catalogrecords.Query:
//     q is the catalogue's free text (several comma-separated terms are
//     any of them), bbox a CRS84 box (one crossing the antimeridian is
//     the union of its two halves), datetime an instant or an interval
//     (".." or empty for an open end) on the record's updated time (the
//     published version's modification: records describe no temporal
//     extent of their data), type "dataset" (every record) or one of the
//     catalogue's types (layer, table, set, document, item), ids the
//     record identifiers (layer-12), externalIds the identifiers too or
//     the dataset's REST or web page URL, filter a CQL2 expression
//     (cql2-text or cql2-json, internal/cql2) over catalogrecords'
//     Queryables, sortby title or updated (either with "-" for
//     descending), limit 1 to 1000 (default 10; a larger one is clamped,
//     as the standard allows) and cursor (the next link's). Any other
//     parameter is a 400 (OGC API - Features, /req/core/query-param-unknown),
//     as is a parameter given twice.
//   - A record is a GeoJSON Feature of record core (id, geometry = the
//     extent as a polygon or null, time = null, properties type
//     "dataset", title, description, keywords, themes, contacts,
//     license, created, updated, formats) whose links are its own (self,
//     alternate HTML, collection) and every distribution the caller may
//     reach (catalogrecords.Record.Links: the REST resource and web page,
//     the data services, the downloads), so a harvester needs nothing
//     else.
//   - Bad input of any kind is a 400 with a message; the parsers bound
//     what they read (filter length, number of ids, CQL2 nesting).
package ogcrecords
