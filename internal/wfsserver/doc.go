// Package wfsserver holds the rules of the WFS 2.0.0 and 1.1.0 service
// (GET with KVP encoding) over the published versions of layers and
// tables: request parsing, FES 2.0 and OGC Filter 1.1 filters read into
// the CQL2 filter model (internal/cql2), the capabilities and XML Schema
// documents, and features written as GML 3.2, GML 3.1.1 or GeoJSON.
//
// Which feature types a caller sees, and how features are read (keyset
// paging, bbox boxes, reprojection with PROJ), are the OGC API Features
// rules of internal/ogcfeatures: the same wfs service key, the same
// wxs:wfs scope. The ogc package mounts the service at /services/wfs/.
package wfsserver
