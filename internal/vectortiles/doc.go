// Package vectortiles makes Mapbox Vector Tiles (MVT 2.1) of published
// vector layers and sets in Web Mercator (EPSG:3857, XYZ tile addressing,
// extent 4096), and describes them as TileJSON 3.0.0.
//
// The rules, the same on both backends:
//
//   - Only a layer's published version is read (a draft never is). Its
//     features with a geometry are selected by the spatial index of their
//     boxes (featurerows.BoxWhere) for the tile's envelope grown by the buffer
//     (Buffer units, 64 of 4096: 4 pixels of a 256-pixel tile).
//   - Geometries are projected to the tile grid, clipped to the buffered
//     tile, simplified (Douglas-Peucker, one grid unit, so the ground
//     tolerance halves with each zoom) and snapped to integers. Lines
//     shorter than a grid unit and polygons of no area after snapping are
//     dropped; rings are oriented as MVT 2.1 wants. On PostgreSQL with
//     PostGIS the same is done by ST_AsMVTGeom/ST_AsMVT.
//   - At most FeatureLimit(z) features per layer per tile: MaxFeatures
//     (20,000) from zoom 14 down, halving with each zoom out to 312 at zoom
//     8 and shallower. When
//     more features' boxes meet the tile, every k-th in fid order is kept,
//     k = ceil(n / limit) (a thinned tile keeps an even sample of them).
//   - Once a version's in-memory feature index (internal/featureindex,
//     shared with point queries) is built, tiles are made from it without
//     a query, byte for byte as in process from the store; until then
//     from the store (by ST_AsMVT where PostGIS is installed).
//   - Attributes become MVT properties (null values left out, nested
//     values as JSON text); the feature id is the fid. Of a geometry
//     collection the parts of the highest dimension are kept (as
//     ST_AsMVTGeom does); points beyond Web Mercator's latitudes are left
//     out.
//   - The MVT layer of layer N is named "layer-N"; a set's tile holds one
//     MVT layer per member the caller may use, in set order.
//
// Tiles are cached by (published version id, z, x, y) in a memory LRU
// bounded in bytes: a publish gives the layer a new version id, so a cached
// tile is never stale.
//
// Access follows the service rule: a layer's tiles need its
// vector-tile-mvt service and its configurable tiles service (enabled, and
// permitted: view on the layer, or a listed role); TileJSON needs
// vector-tile-json instead of vector-tile-mvt. A set needs its own tiles
// and vector-tile-json services, and each member is checked as a layer.
package vectortiles
