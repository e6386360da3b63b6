// Package tilearchives is the tile archives of published datasets: which
// archives a layer or set has, building them from its published version
// as durable jobs, their limits, and the rule for serving them.
//
// Archives. A layer has a vector PMTiles archive (vector-tile-pmtiles,
// tiles.pmtiles), a vector MBTiles file (vector-tile-mbtiles,
// tiles.mbtiles) and a raster PMTiles archive of PNG tiles
// (raster-pmtile, raster.pmtiles); a set has a raster PMTiles archive of
// its members drawn in set order. Vector archives hold the MVT the tile
// service makes (vectortiles), raster archives the images the raster tile
// service draws with the default style (rastertiles). Catalog items have
// nothing to draw: they have no archive.
//
// When. An archive is built the first time it is asked for (Ensure: the
// archive URL answers 404 with its progress until the file is ready), or
// when a publisher asks for one with a zoom range (Request). From then on
// each publish of the layer or set, and each publish of a member of a
// set, queues a rebuild in the publishing transaction (Install observes
// the store); until the new file is ready the previous one keeps serving.
//
// Limits. Before a build the tiles an archive may hold are estimated over
// the published version's bounds and zoom range (tilearchive.Estimate):
// beyond Limits.MaxTiles, or beyond MaxBytes at the per-tile size
// estimate, a requested range is refused with a message naming the limit;
// the default range instead lowers its deepest zoom until it fits. The
// writer also stops a build whose written tiles or bytes go over them.
//
// Serving. A file is served only to callers who may use the owner through
// the archive's service (and, for a set, every member the file draws
// through the tiles service), and only while it was built from the
// published version or is the last one until the rebuild finishes.
package tilearchives
