package exportfile

// rasterFormats and gridFormats are the formats of rasters (imagery) and
// grids (filled in by the raster writer's work).
var (
	rasterFormats []Format
	gridFormats   []Format
)
