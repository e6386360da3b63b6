// Package ogcfeatures holds the rules of the OGC API - Features service
// (Part 1 core, GeoJSON, HTML, OpenAPI 3.0; Part 2 coordinate reference
// systems) over the published versions of layers and tables: which
// collections a caller may read (the wfs service rule and the wxs:wfs
// token scope), how items are paged (keyset on the feature id, never an
// offset), filtered by bbox (the stored boxes, then an exact geometry test)
// and reprojected (PROJ through GDAL's OSR API). The ogc package mounts it.
package ogcfeatures
