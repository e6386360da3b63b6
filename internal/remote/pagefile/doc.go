// Package pagefile holds what the service kinds (WFS, ArcGIS REST) share:
// bounded HTTP reads of answers they cannot trust, and a GeoJSON writer
// that gathers the pages of features a server sends, one page file at a
// time read through GDAL, into one file the importer reads.
package pagefile
