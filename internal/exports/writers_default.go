package exports

import "github.com/geopub/geopub/internal/exportfile"

// defaultWriters are exportfile's writers.
func defaultWriters() Writers {
	return Writers{Vector: exportfile.WriteVector, Raster: exportfile.WriteRaster, Package: exportfile.Package}
}
