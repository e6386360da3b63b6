// Package geoservices holds the rules of GeoServices REST (the ArcGIS
// REST API) as Geopub serves its published datasets: the names of the
// services a dataset gives (layer_{id}, set_{id}), the error document
// Esri clients read, and the documents and queries of FeatureServer,
// MapServer and VectorTileServer. The HTTP door is ogc/arcgis*.go.
package geoservices
