package dcat

import (
	"mime"
	"strings"
)

// Standards are the dct:conformsTo of each data service, by the
// catalogrecords service key: the OGC's own URIs for its standards.
var Standards = map[string]string{
	"ogc-features": "http://www.opengis.net/spec/ogcapi-features-1/1.0",
	"wfs":          "http://www.opengis.net/def/serviceType/ogc/wfs",
	"wmts":         "http://www.opengis.net/def/serviceType/ogc/wmts",
	"csw":          "http://www.opengis.net/def/serviceType/ogc/csw",
	"tiles":        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0",
	"tilejson":     "https://github.com/mapbox/tilejson-spec",
}

// fileTypes are the EU Publications Office file types (the vocabulary
// DCAT-AP names for dct:format) of the media types the records carry.
var fileTypes = map[string]string{
	"application/geopackage+sqlite3":       "GPKG",
	"application/geo+json":                 "GEOJSON",
	"application/json":                     "JSON",
	"application/xml":                      "XML",
	"text/xml":                             "XML",
	"text/html":                            "HTML",
	"text/csv":                             "CSV",
	"application/zip":                      "ZIP",
	"application/x-shapefile":              "SHP",
	"application/vnd.google-earth.kml+xml": "KML",
	"application/gml+xml":                  "GML",
	"image/tiff":                           "TIFF",
	"image/tiff; application=geotiff":      "TIFF",
	"application/pdf":                      "PDF",
	"image/vnd.dxf":                        "DXF",
	"application/vnd.mapbox-vector-tile":   "MVT",
}

// fileTypeBase is the namespace of the EU file types.
const fileTypeBase = "http://publications.europa.eu/resource/authority/file-type/"

// ianaBase is the IANA register's namespace for media types.
const ianaBase = "http://www.iana.org/assignments/media-types/"

// mediaTypeIRI is the IANA IRI of a media type ("" when mt does not
// parse); parameters are dropped.
func mediaTypeIRI(mt string) string {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil || !strings.Contains(base, "/") {
		return ""
	}
	return ianaBase + base
}

// fileTypeIRI is the EU file type of a media type, "" when unknown.
func fileTypeIRI(mt string) string {
	if ft, ok := fileTypes[strings.ToLower(strings.TrimSpace(mt))]; ok {
		return fileTypeBase + ft
	}
	base, _, err := mime.ParseMediaType(mt)
	if ft, ok := fileTypes[base]; err == nil && ok {
		return fileTypeBase + ft
	}
	return ""
}
