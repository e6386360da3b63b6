// Package ingest turns an uploaded file into datasources.
//
// It works on local files only; it has no database or HTTP code. The three
// steps are:
//
//   - Unpack safely extracts an archive (.zip, .tar, .tar.gz/.tgz, .7z) or
//     places a single plain file into a directory, enforcing size, count and
//     compression-ratio limits while streaming and refusing path escapes.
//   - Scan walks the unpacked tree and, with GDAL (godal), describes every
//     datasource in it: vector layers, tables, grids and documents. Files
//     that cannot be read become Problems, never a failed scan.
//   - Records reads the features of one vector or table datasource, their
//     values unboxed and in field order, in batches from GDAL (the import's
//     path); ReadFeatures gives the same features with their attributes
//     in a map. Transformer reprojects WKB geometries (EPSG:4326 output is
//     lon/lat).
//
// GDAL is opened with an explicit list of allowed drivers per file kind, on
// local paths only, so a scan never touches the network.
//
// Feature ids: a feature's FID is GDAL's (a shapefile's record number, a
// GeoPackage's primary key, ...) and only orders and numbers the stored
// rows; it is not an attribute. The one exception is a GeoPackage whose
// primary-key column has a name of its own (not GDAL's default, fid):
// that column is listed as an integer field, first among the attributes,
// each feature carries its FID under that name, and ReadKeyedFeatures
// (Records.Declared) returns it as the datasource's declared key (internal/layerkey makes it
// the layer's primary key when its values hold). GDAL's default fid
// column is left out because GDAL writes it into every GeoPackage it
// creates, numbered 1..n whatever the source, so it names rows rather
// than features, as a shapefile's FID does (records are renumbered
// whenever the file is rewritten); neither is ever taken as a key.
package ingest
