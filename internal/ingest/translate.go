package ingest

import (
	"context"

	"github.com/geopub/geopub/internal/gdal"
)

// translate runs gdal_translate's copy of src to dst with switches, in
// GDAL, and stops it within one progress step when ctx ends (see
// gdal.Translate). config holds GDAL config options (NAME=VALUE) for
// the copy only. On cancellation it returns ctx's error and dst may be
// partly written. progress, when not nil, is told the share of the copy
// done (0 to 1) while it runs.
func translate(ctx context.Context, src, dst string, switches, config []string, progress func(float64)) error {
	registerGDAL()
	return gdal.Translate(ctx, src, dst, switches, config, progress)
}

// setConfig sets a GDAL config option for the whole process.
func setConfig(key, value string) { gdal.SetConfig(key, value) }
