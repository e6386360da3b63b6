// Package tilearchive writes tile archives, PMTiles v3 and MBTiles 1.3,
// from a tile source (a vector layer's MVT, a raster's images).
//
// The rules:
//
//   - The walk goes level by level from MinZoom to MaxZoom. At MinZoom every
//     tile meeting Bounds is asked for; at each deeper zoom only the
//     children (meeting Bounds) of the tiles the level above found
//     non-empty. An empty tile (nil data from the Source) is not written
//     and nothing under it is visited, so sparse data costs little.
//   - Within a level the tiles are made by a bounded pool of Workers and
//     written in PMTiles tile-ID order (zoom, then Hilbert curve); the
//     children of tiles sorted by ID are themselves in ID order, so the
//     archive is clustered with no sort of the whole.
//   - Identical tile contents are stored once (by SHA-256); consecutive tile
//     IDs with the same content become one run-length entry.
//   - PMTiles tile data is spilled to a scratch file while walking; only
//     the directory entries and one hash per distinct content stay in
//     memory. The root directory fits in the first 16 KiB; leaf
//     directories are added when it would not.
//   - A walk that finds no tile writes no PMTiles archive (ErrEmpty: a
//     PMTiles directory must hold an entry); an MBTiles file may be empty.
//   - MaxTiles and MaxBytes bound the tiles written and their bytes:
//     going over either stops the walk with ErrTooLarge.
//   - Bounds default to the whole Web Mercator world when left zero;
//     latitudes are clamped to Web Mercator's ±85.0511°.
package tilearchive
