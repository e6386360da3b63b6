// Package catalogrecords is the catalogue as harvesters see it: one
// Record per published dataset (layer, table, set, document, catalog
// item) that the caller may view, in the shape every metadata door
// shares (CSW, OGC API - Records, DCAT feeds, schema.org, sitemaps).
//
// The rules:
//
//   - Which records exist is the catalogue's rule (graph's CatalogSearch
//     over internal/search): published versions only, the caller's live
//     permissions, sources left out (they are inputs, not published
//     data). Every door asks through the same query, so the same caller
//     sees the same set through /data/, CSW, Records and DCAT.
//   - A record's descriptive fields (title, abstract, keywords, extent)
//     come from the dataset's own ISO 19115/19139 metadata document when
//     one was uploaded (its simplified form, internal/metadata), else
//     from the published version. The full ISO answer (ISO19139) is the
//     uploaded document itself when it is ISO 19139, else one generated
//     from the record, so brief, summary and full answers agree across
//     the doors.
//   - Links name every distribution the caller may reach: the REST
//     resource, the HTML page, the data services switched on for the
//     dataset (OGC API Features, WFS, tiles, WMTS, ...), downloads and
//     exports, each with a relation and a media type (Links).
//   - Feature turns a record into something a CQL2 expression
//     (internal/cql2) evaluates, with the queryables of Queryables, so
//     CSW's OGC Filter and CQL constraints and Records' CQL2 filters are
//     one evaluation.
package catalogrecords
