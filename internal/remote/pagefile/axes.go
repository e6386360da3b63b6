package pagefile

/*
#cgo pkg-config: gdal
#include <ogr_srs_api.h>
*/
import "C"

// NorthFirst reports whether the EPSG database orders the axes of CRS
// code latitude (or northing) first, as WFS 1.1 and 2.0 send coordinates
// in a CRS named by its URN.
func NorthFirst(code int) bool {
	sr := C.OSRNewSpatialReference(nil)
	defer C.OSRDestroySpatialReference(sr)
	if C.OSRImportFromEPSGA(sr, C.int(code)) != C.OGRERR_NONE {
		return false
	}
	return C.OSREPSGTreatsAsLatLong(sr) != 0 || C.OSREPSGTreatsAsNorthingEasting(sr) != 0
}
