// Package rastertiles makes raster map tiles (PNG, JPEG, WebP; 256×256,
// Web Mercator, XYZ addressing) of published layers and sets, describes
// them as TileJSON 3.0.0 and as WMTS 1.0.0 capabilities.
//
// The rules, the same on both backends:
//
//   - Only a layer's published version is read (a draft never is).
//   - A grid or raster layer's tile is warped by GDAL from the version's
//     Cloud-Optimized GeoTIFF (grids.Key): the tile's window is read with
//     the overview that fits its resolution and resampled bilinearly onto
//     the tile. Cells outside the grid, nodata cells and cells a source
//     alpha band masks are transparent (a white background in JPEG).
//   - A grid (values, one band shown: the first) is coloured by a ramp
//     stretched from the band's smallest to its largest value (read once
//     per version from its smallest overview). A raster layer shows its
//     colour bands (red, green, blue; grey; a palette); bands that are not
//     bytes are stretched from their range onto 0–255 the same way.
//   - A vector layer is drawn from the same geometry its vector tile
//     holds (internal/vectortiles: clipped, simplified, thinned): polygons
//     filled half-transparent and outlined, lines 2 px wide, points as
//     discs of 4 px radius, in the style's colour.
//   - A set's tile draws its members the caller may use in set order, the
//     first at the bottom.
//   - Styles: "auto" (each layer's default colour) and "color=RRGGBB"
//     (vector layers drawn in that colour), as DP sends them in the WMTS
//     style string "style=auto,color=RRGGBB". Style ids other than auto
//     fall back to the default style.
//
// Tiles are cached by (published version ids, z, x, y, format, style) in a
// memory LRU bounded in bytes (internal/tilecache): a publish changes the
// version, so a cached tile is never stale.
//
// Access follows the service rule of internal/vectortiles, whose lookup
// this package reuses: tiles need the layer's configurable tiles service
// (enabled, and permitted); TileJSON also needs raster-tile-json and WMTS
// capabilities also wmts. A set needs its own services, and each member
// is checked as a layer with tiles.
package rastertiles
