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
//   - ReadFeatures streams the features of one vector or table datasource;
//     Transformer reprojects WKB geometries (EPSG:4326 output is lon/lat).
//
// GDAL is opened with an explicit list of allowed drivers per file kind, on
// local paths only, so a scan never touches the network.
package ingest
