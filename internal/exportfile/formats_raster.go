package exportfile

// MIME values of the raster and grid formats (api-shapes §7.3).
const (
	MIMEGeoTIFF          = "image/tiff;subtype=geotiff"
	MIMEJPEG             = "image/jpeg"
	MIMEPNG              = "image/png"
	MIMEJPEG2000         = "image/jp2"
	MIMEJPEG2000Lossless = "image/jp2;compression=lossless"
	MIMEErdasImagine     = "application/x-erdas-hfa"
	MIMEASCIIGrid        = "application/x-ogc-aaigrid"
)

// rasterFormats and gridFormats are the formats of rasters (imagery) and
// grids (values). GeoTIFF is written as a Cloud-Optimized GeoTIFF (COG
// driver: tiled, deflate, overviews). JPEG and PNG hold 8-bit (PNG also
// 16-bit) grey or RGB, so grids, whose values must survive, are not
// offered them. An ASCII grid holds one band: a multi-band grid is
// written as one .asc per band.
//
// The ratios (zipped bytes over raw cell bytes) were measured by
// BenchmarkRasterRatios on a noisy float32 terrain and noisy RGB imagery
// (GDAL 3.6.2): they lean high for smooth real data, and the GeoTIFF
// ratio includes its overviews (a third more cells).
//
// Not offered although clients list them (api-shapes §7.3): KEA (GDAL
// 3.6 here has no KEA driver) and DWG (GDAL's CAD driver only reads).
var (
	rasterFormats = []Format{
		rasterFormat(MIMEGeoTIFF, "GeoTIFF", "COG", 1.13),
		rasterFormat(MIMEJPEG, "JPEG", "JPEG", 0.15),
		rasterFormat(MIMEPNG, "PNG", "PNG", 0.93),
		rasterFormat(MIMEJPEG2000, "JPEG2000", "JP2OpenJPEG", 0.25),
		rasterFormat(MIMEJPEG2000Lossless, "JPEG2000 Lossless", "JP2OpenJPEG", 0.79),
		rasterFormat(MIMEErdasImagine, "ERDAS Imagine", "HFA", 0.85),
	}
	gridFormats = []Format{
		gridFormat(MIMEGeoTIFF, "GeoTIFF", "COG", 0.80),
		gridFormat(MIMEASCIIGrid, "ASCII Grid", "AAIGrid", 0.74),
		gridFormat(MIMEErdasImagine, "ERDAS Imagine", "HFA", 0.73),
	}
)

func rasterFormat(mime, display, driver string, ratio float64) Format {
	return Format{Kind: KindRaster, MIME: mime, Display: display, Driver: driver,
		rejects: rejectsNonRaster(display, KindRaster), estimate: cellRatio(ratio)}
}

func gridFormat(mime, display, driver string, ratio float64) Format {
	return Format{Kind: KindGrid, MIME: mime, Display: display, Driver: driver,
		rejects: rejectsNonRaster(display, KindGrid), estimate: cellRatio(ratio)}
}

// rejectsNonRaster accepts only items of kind k.
func rejectsNonRaster(display string, k Kind) func(Kind, string) string {
	return func(got Kind, _ string) string {
		if got == k {
			return ""
		}
		return display + " is offered for " + string(k) + " layers, not " + string(got) + " data"
	}
}

// rasterOverhead is the bytes of headers, world files, .aux.xml and the
// zip's entries an item adds whatever its size.
const rasterOverhead = 4096

// cellRatio estimates the zipped size as ratio × the raw cell bytes
// (pixels × bands × bytes per cell), ratios measured on the writer's
// output (BenchmarkRasterRatios prints them).
func cellRatio(ratio float64) func(Stats) int64 {
	return func(s Stats) int64 {
		raw := float64(s.Pixels) * float64(max(s.Bands, 1)) * float64(max(s.BytesPerCell, 1))
		return int64(raw*ratio) + rasterOverhead
	}
}
