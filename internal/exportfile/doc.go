// Package exportfile writes the files of an export with GDAL: vector
// layers and tables in every format GDAL 3.6 writes that users expect,
// grids and rasters cropped and warped, and the zip that carries them with
// each dataset's metadata XML and licence text.
//
// It knows nothing of the database, HTTP or jobs. A caller (internal/exports)
// hands it items whose rows it streams (featurerows.RawRow: WKB in EPSG:4326,
// attributes as JSON) or whose grid file it names, a format, a target CRS
// and an optional crop area, and a work folder; WriteVector and WriteRaster
// write into the folder, Package zips the folder into a writer.
//
// Rules it holds:
//   - Formats lists the formats per data kind (vector, table, raster, grid),
//     with MIME value, display name, GDAL driver, and which geometry types
//     and kinds each can hold (Format.Accepts gives the reason it cannot).
//   - Features are clipped to the crop area (not only filtered): a feature
//     that does not intersect it is left out, one that crosses its edge is
//     cut, and a cut that changes dimension (a polygon touching the edge
//     along a line) is dropped rather than written with a wrong type.
//   - Geometries are reprojected from EPSG:4326 to the target CRS with the
//     transformation PROJ picks; coordinates stay in the traditional GIS
//     axis order (x = easting/longitude).
//   - Attribute types are preserved as the format allows (the layer's
//     fields: integer, double, string, date, datetime, boolean).
//   - Rasters are clipped to the crop area's envelope (in the target CRS)
//     with cells outside the area itself set to nodata.
//   - EstimateZipped gives a size estimate from statistics, never by
//     writing.
package exportfile
