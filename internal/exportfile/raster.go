package exportfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/geopub/geopub/internal/gdal"
)

// ErrOutsideExtent is returned by WriteRaster when the crop area does not
// overlap the raster at all (the export API's "outside-extent").
var ErrOutsideExtent = errors.New("exportfile: the crop area is outside the raster's extent")

// registerGDAL registers GDAL's drivers once per process.
func registerGDAL() { gdal.Init() }

// WriteRaster writes a grid or raster layer into dir in format f: the
// item's file (a COG) is warped to o.CRS (its own CRS when empty) and,
// when o.Clip is set, cut to the crop area: the output covers the area's
// envelope in the target CRS and cells outside the area itself are
// nodata (see rasterPlan for how nodata is chosen). Grids are resampled
// with nearest neighbour so no value is invented; imagery bilinearly
// (nearest for paletted imagery). The result is then copied into the
// format (world files, .aux.xml or .prj beside it where the format cannot
// hold the CRS), with the item's metadata XML and licence text beside it.
//
// It returns ErrOutsideExtent when the crop area misses the raster, and
// ctx.Err() when ctx ends (within one of GDAL's progress steps). Its
// temporary files live in a folder under dir that it removes.
func WriteRaster(ctx context.Context, dir string, item RasterItem, f Format, o Options) (Result, error) {
	registerGDAL()
	if reason, ok := f.Accepts(item.Kind, ""); !ok {
		return Result{}, fmt.Errorf("exportfile: %s: %s", item.Name, reason)
	}
	out, ok := rasterOutputs[f.MIME]
	if !ok || f.Kind != item.Kind {
		return Result{}, fmt.Errorf("exportfile: %s is not a %s format", f.MIME, item.Kind)
	}
	src, err := describeSource(item.Path)
	if err != nil {
		return Result{}, fmt.Errorf("exportfile: %s: %w", item.Name, err)
	}
	tmp, err := os.MkdirTemp(dir, ".raster-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)

	plan, err := planWarp(src, item.Kind, o, tmp)
	if err != nil {
		return Result{}, err
	}
	prog := newProgress(o.Progress)
	from := item.Path
	if plan.warp {
		from = filepath.Join(tmp, "warped.tif")
		err := gdal.Warp(ctx, item.Path, from, plan.switches, tmpConfig(tmp), prog.stage(0, 0.5))
		if err != nil {
			return Result{}, gdalErr(ctx, item.Name, "warping", err)
		}
	}
	start := 0.0
	if plan.warp {
		start = 0.5
	}
	if err := out(ctx, from, dir, item, plan, tmp, prog.stage(start, 1)); err != nil {
		return Result{}, gdalErr(ctx, item.Name, "writing", err)
	}
	if err := sideFiles(dir, item.Name, item.MetadataXML, item.LicenseText); err != nil {
		return Result{}, err
	}
	prog.report(1)
	files, err := filesOf(dir, item.Name)
	if err != nil {
		return Result{}, err
	}
	return Result{Files: files}, nil
}

// gdalErr gives ctx's error when the export was cancelled, else GDAL's
// failure named after the item.
func gdalErr(ctx context.Context, name, stage string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return fmt.Errorf("exportfile: %s %s: %w", stage, name, err)
}

// tmpConfig keeps GDAL's own temporary files (COG overviews) in tmp.
func tmpConfig(tmp string) []string {
	return []string{"CPL_TMPDIR=" + tmp}
}

// filesOf lists the files of an item in dir: every file named
// "<name>.<something>" (the data, its world file, .aux.xml, .prj,
// metadata and licence), sorted.
func filesOf(dir, name string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), name+".") {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	return files, nil
}
