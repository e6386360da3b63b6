package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent/schema/schematype"
)

// GridInfo describes a grid written by BuildGrid.
type GridInfo struct {
	// CRS is "EPSG:n" when GDAL identifies it, else WKT.
	CRS           string
	Width, Height int
	// Resolution is the cell width in units of the CRS.
	Resolution float64
	Bands      []schematype.Band
	// Extent is [minx, miny, maxx, maxy] in EPSG:4326.
	Extent [4]float64
	// Tiles counts the 256×256 blocks of the full-resolution grid.
	Tiles int64
	// Imagery is true when the bands are colour (red/green/blue or a
	// palette): a raster layer rather than a grid of values.
	Imagery bool
}

// gridBlock is the tile size of the grids BuildGrid writes.
const gridBlock = 256

// BuildGrid writes the grid datasources found under dir as one
// Cloud-Optimized GeoTIFF at dst (tiled 256×256, deflate-compressed, with
// overviews), telling progress (when not nil) the share of the copy done
// as it runs. One datasource is copied; several are mosaicked, and must
// then share their CRS, band count and band types. Each band's nodata
// value is kept. Every grid, and the mosaic, must stay within
// lim.MaxRasterCells (ErrRasterTooLarge); GDAL's block cache is held to
// lim.GDALCacheMB and its temporary files go beside dst. The copy stops
// within one of GDAL's progress steps when ctx ends.
func BuildGrid(ctx context.Context, dir string, dss []Datasource, dst string, lim Limits, progress func(float64)) (GridInfo, error) {
	lim = lim.withDefaults()
	if len(dss) == 0 {
		return GridInfo{}, errors.New("ingest: no grid datasources")
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return GridInfo{}, err
	}
	var paths []string
	var first *gridShape
	for _, d := range dss {
		if d.DataType != TypeGrid {
			return GridInfo{}, fmt.Errorf("ingest: %s is a %s, not a grid", d.Path, d.DataType)
		}
		abs, shape, err := openGrid(root, d, lim)
		if err != nil {
			return GridInfo{}, err
		}
		if first == nil {
			first = &shape
		} else if err := first.compatible(shape, d.Path); err != nil {
			return GridInfo{}, err
		}
		paths = append(paths, abs)
	}
	if err := ctx.Err(); err != nil {
		return GridInfo{}, err
	}
	src, srcPath, cleanup, err := gridSource(paths, dst)
	if err != nil {
		return GridInfo{}, err
	}
	defer cleanup()
	st := src.Structure()
	src.Close() // writes the mosaic's VRT
	if err := lim.checkRaster("the mosaic of the grids", st.SizeX, st.SizeY, st.NBands); err != nil {
		return GridInfo{}, err
	}
	err = translate(ctx, srcPath, dst, []string{"-of", "COG",
		"-co", "COMPRESS=DEFLATE", "-co", fmt.Sprintf("BLOCKSIZE=%d", gridBlock),
		"-co", "OVERVIEWS=AUTO", "-co", "BIGTIFF=IF_SAFER", "-co", "NUM_THREADS=2"},
		append([]string{fmt.Sprintf("GDAL_CACHEMAX=%d", lim.GDALCacheMB), "CPL_TMPDIR=" + filepath.Dir(dst)}, noNetwork...),
		progress)
	if err != nil {
		if ctx.Err() != nil {
			return GridInfo{}, err
		}
		return GridInfo{}, fmt.Errorf("ingest: writing the grid: %s", relMsg(root, err.Error()))
	}
	out, err := godal.Open(dst, godal.RasterOnly(), godal.ErrLogger(failuresOnly), godal.ConfigOption(noNetwork...))
	if err != nil {
		return GridInfo{}, fmt.Errorf("ingest: reading the written grid: %w", err)
	}
	defer out.Close()
	return describeGrid(out, first.names)
}

// gridShape is what mosaicked grids must share.
type gridShape struct {
	path  string
	wkt   string
	types []string
	names []string // band descriptions, which a mosaic loses
}

func (a gridShape) compatible(b gridShape, path string) error {
	if len(a.types) != len(b.types) {
		return fmt.Errorf("ingest: %s has %d bands but %s has %d: grids of one layer must share their bands", path, len(b.types), a.path, len(a.types))
	}
	for i := range a.types {
		if a.types[i] != b.types[i] {
			return fmt.Errorf("ingest: band %d of %s is %s but %s in %s: grids of one layer must share their band types", i+1, path, b.types[i], a.types[i], a.path)
		}
	}
	if !sameCRS(a.wkt, b.wkt) {
		return fmt.Errorf("ingest: %s and %s are in different coordinate systems: grids of one layer must share one", a.path, path)
	}
	return nil
}

// openGrid checks one datasource is a georeferenced raster and returns
// its absolute path and shape.
func openGrid(root string, d Datasource, lim Limits) (string, gridShape, error) {
	k, ok := kinds[lowerExt(d.Path)]
	if !ok || k.dataType != TypeGrid {
		return "", gridShape{}, fmt.Errorf("ingest: %s: not a grid format", d.Path)
	}
	c := candidate{rel: d.Path, kind: k, files: d.Files}
	if len(c.files) == 0 {
		c.files = []string{d.Path}
	}
	abs := filepath.Join(root, filepath.FromSlash(d.Path))
	ds, err := openLocal(abs, false, k.drivers, c.siblings(), nil)
	if err != nil {
		return "", gridShape{}, fmt.Errorf("ingest: open %s: %s", d.Path, relMsg(root, err.Error()))
	}
	defer ds.Close()
	if _, err := ds.GeoTransform(); err != nil || ds.Projection() == "" {
		return "", gridShape{}, fmt.Errorf("ingest: %s is not georeferenced", d.Path)
	}
	st := ds.Structure()
	if err := lim.checkRaster(d.Path, st.SizeX, st.SizeY, st.NBands); err != nil {
		return "", gridShape{}, err
	}
	shape := gridShape{path: d.Path, wkt: ds.Projection()}
	for _, b := range ds.Bands() {
		shape.types = append(shape.types, b.Structure().DataType.String())
		shape.names = append(shape.names, b.Description())
	}
	if len(shape.types) == 0 {
		return "", gridShape{}, fmt.Errorf("ingest: %s has no bands", d.Path)
	}
	return abs, shape, nil
}

// gridSource opens the one grid, or a VRT mosaic of several written beside
// dst, and gives the path GDAL opens it by. cleanup removes the VRT.
func gridSource(paths []string, dst string) (*godal.Dataset, string, func(), error) {
	if len(paths) == 1 {
		ds, err := godal.Open(paths[0], godal.RasterOnly(), godal.ErrLogger(failuresOnly), godal.ConfigOption(noNetwork...))
		return ds, paths[0], func() {}, err
	}
	vrt := strings.TrimSuffix(dst, filepath.Ext(dst)) + ".mosaic.vrt"
	ds, err := godal.BuildVRT(vrt, paths, []string{"-resolution", "highest"}, godal.ErrLogger(failuresOnly))
	if err != nil {
		return nil, "", func() {}, fmt.Errorf("ingest: mosaicking the grids: %w", err)
	}
	return ds, vrt, func() { os.Remove(vrt) }, nil
}

// describeGrid reads a written grid's description; names are the source's
// band descriptions, used where the written bands have none.
func describeGrid(ds *godal.Dataset, names []string) (GridInfo, error) {
	gt, err := ds.GeoTransform()
	if err != nil {
		return GridInfo{}, fmt.Errorf("ingest: the written grid has no geotransform: %w", err)
	}
	st := ds.Structure()
	info := GridInfo{
		CRS:        crsOf(ds.Projection()),
		Width:      st.SizeX,
		Height:     st.SizeY,
		Resolution: math.Abs(gt[1]),
		Tiles:      int64(ceilDiv(st.SizeX, gridBlock)) * int64(ceilDiv(st.SizeY, gridBlock)),
	}
	colour := false
	for i, b := range ds.Bands() {
		ci := strings.ToLower(b.ColorInterp().Name())
		band := schematype.Band{
			Index:       i + 1,
			Name:        b.Description(),
			DataType:    b.Structure().DataType.String(),
			ColorInterp: ci,
		}
		if band.Name == "" && i < len(names) {
			band.Name = names[i]
		}
		if band.Name == "" {
			band.Name = ci
		}
		if nd, ok := b.NoData(); ok {
			band.NoData = &nd
		}
		switch ci {
		case "red", "green", "blue", "palette":
			colour = true
		}
		info.Bands = append(info.Bands, band)
	}
	info.Imagery = colour
	box := cornerBox(gt, st.SizeX, st.SizeY)
	ext, err := toLonLat(ds.Projection(), box)
	if err != nil {
		return GridInfo{}, fmt.Errorf("ingest: grid extent: %w", err)
	}
	info.Extent = ext
	return info, nil
}

// cornerBox is the box of a raster's four corners in its CRS, rotation
// included.
func cornerBox(gt [6]float64, w, h int) [4]float64 {
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, px := range [4][2]float64{{0, 0}, {float64(w), 0}, {0, float64(h)}, {float64(w), float64(h)}} {
		x := gt[0] + px[0]*gt[1] + px[1]*gt[2]
		y := gt[3] + px[0]*gt[4] + px[1]*gt[5]
		box[0], box[1] = math.Min(box[0], x), math.Min(box[1], y)
		box[2], box[3] = math.Max(box[2], x), math.Max(box[3], y)
	}
	return box
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// sameCRS compares two WKT CRSs by meaning, not spelling.
func sameCRS(a, b string) bool {
	if a == b {
		return true
	}
	return crsOf(a) == crsOf(b) && strings.HasPrefix(crsOf(a), "EPSG:")
}
