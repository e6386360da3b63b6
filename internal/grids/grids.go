// Package grids keeps the files of grid and raster layer versions and
// samples them at points.
//
// An import writes each grid or raster version as one Cloud-Optimized
// GeoTIFF (tiled, deflate-compressed, with overviews) in blob storage
// under Key(versionID). A Sampler opens those files read-only (straight
// from the local blob folder, or from a download cache for remote blob
// storage) and answers the value of every band at a longitude/latitude.
package grids

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/gdal"
)

// Key is the blob key of a version's grid file.
func Key(versionID int) string { return "grids/" + strconv.Itoa(versionID) + ".tif" }

// ContentType is the media type grid files are stored with.
const ContentType = "image/tiff; application=geotiff; profile=cloud-optimized"

// Sample is the answer at one point.
type Sample struct {
	// Inside is false when the point falls outside the grid.
	Inside bool
	// Column and Row are the 0-based cell of the point when Inside.
	Column, Row int
	// Values holds one value per band, in band order; nil where the cell
	// holds the band's nodata value (or NaN), and everywhere outside.
	Values []*float64
}

// Sampler samples stored grids. It is safe for concurrent use: each
// caller borrows its own GDAL handle, since GDAL datasets are not.
type Sampler struct {
	blobs    *blob.Store
	cacheDir string

	mu    sync.Mutex
	grids map[int]*grid
}

// maxIdle bounds the idle GDAL handles kept per grid.
const maxIdle = 8

// NewSampler returns a Sampler over blob storage; remote grid files are
// downloaded once into cacheDir.
func NewSampler(blobs *blob.Store, cacheDir string) *Sampler {
	return &Sampler{blobs: blobs, cacheDir: cacheDir, grids: map[int]*grid{}}
}

// grid is one version's file and its idle handles.
type grid struct {
	once sync.Once
	path string
	err  error
	idle chan *handle
}

// handle is one open dataset with what sampling it needs.
type handle struct {
	ds      *godal.Dataset
	bands   []godal.Band
	nodata  []*float64
	inverse [6]float64
	wgs84   *godal.SpatialRef
	own     *godal.SpatialRef
	trn     *godal.Transform
	w, h    int
}

// At samples every band of a version's grid at lon/lat (EPSG:4326).
func (s *Sampler) At(ctx context.Context, versionID int, lon, lat float64) (Sample, error) {
	g, err := s.opened(ctx, versionID)
	if err != nil {
		return Sample{}, err
	}
	h, err := g.borrow()
	if err != nil {
		return Sample{}, err
	}
	defer g.giveBack(h)
	return h.sample(lon, lat)
}

// Path is the local path of a version's grid file (downloaded once when
// blob storage is remote), for readers that open it themselves.
func (s *Sampler) Path(ctx context.Context, versionID int) (string, error) {
	g, err := s.opened(ctx, versionID)
	if err != nil {
		return "", err
	}
	return g.path, nil
}

// opened is a version's grid with its file found.
func (s *Sampler) opened(ctx context.Context, versionID int) (*grid, error) {
	g := s.grid(versionID)
	g.once.Do(func() { g.path, g.err = s.localPath(ctx, versionID) })
	if g.err != nil {
		s.forget(versionID, g)
		return nil, g.err
	}
	return g, nil
}

// Forget closes the handles of a version's grid (when it is deleted).
func (s *Sampler) Forget(versionID int) {
	s.mu.Lock()
	g := s.grids[versionID]
	delete(s.grids, versionID)
	s.mu.Unlock()
	if g != nil {
		g.closeIdle()
	}
}

// Close releases every handle.
func (s *Sampler) Close() {
	s.mu.Lock()
	gs := s.grids
	s.grids = map[int]*grid{}
	s.mu.Unlock()
	for _, g := range gs {
		g.closeIdle()
	}
}

func (s *Sampler) grid(versionID int) *grid {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grids[versionID]
	if g == nil {
		g = &grid{idle: make(chan *handle, maxIdle)}
		s.grids[versionID] = g
	}
	return g
}

// forget drops a grid whose file could not be found, so a later call
// tries again.
func (s *Sampler) forget(versionID int, g *grid) {
	s.mu.Lock()
	if s.grids[versionID] == g {
		delete(s.grids, versionID)
	}
	s.mu.Unlock()
}

// localPath finds or downloads a version's grid file.
func (s *Sampler) localPath(ctx context.Context, versionID int) (string, error) {
	key := Key(versionID)
	if p, ok := s.blobs.LocalPath(key); ok {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("grids: version %d has no grid file: %w", versionID, err)
		}
		return p, nil
	}
	p := filepath.Join(s.cacheDir, strconv.Itoa(versionID)+".tif")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(s.cacheDir, 0o755); err != nil {
		return "", err
	}
	tmp := p + ".part"
	if _, err := s.blobs.Download(ctx, key, tmp); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("grids: downloading version %d's grid: %w", versionID, err)
	}
	return p, os.Rename(tmp, p)
}

func (g *grid) borrow() (*handle, error) {
	select {
	case h := <-g.idle:
		return h, nil
	default:
		return openHandle(g.path)
	}
}

func (g *grid) giveBack(h *handle) {
	select {
	case g.idle <- h:
	default:
		h.close()
	}
}

func (g *grid) closeIdle() {
	for {
		select {
		case h := <-g.idle:
			h.close()
		default:
			return
		}
	}
}

func openHandle(path string) (*handle, error) {
	gdal.Init()
	ds, err := godal.Open(path, godal.RasterOnly(), godal.Drivers("GTiff"))
	if err != nil {
		return nil, fmt.Errorf("grids: opening %s: %w", filepath.Base(path), err)
	}
	h := &handle{ds: ds, bands: ds.Bands()}
	st := ds.Structure()
	h.w, h.h = st.SizeX, st.SizeY
	gt, err := ds.GeoTransform()
	if err != nil {
		h.close()
		return nil, fmt.Errorf("grids: %s has no geotransform", filepath.Base(path))
	}
	if h.inverse, err = invert(gt); err != nil {
		h.close()
		return nil, err
	}
	for _, b := range h.bands {
		if nd, ok := b.NoData(); ok {
			h.nodata = append(h.nodata, &nd)
		} else {
			h.nodata = append(h.nodata, nil)
		}
	}
	if h.wgs84, err = godal.NewSpatialRefFromEPSG(4326); err != nil {
		h.close()
		return nil, err
	}
	if h.own, err = godal.NewSpatialRefFromWKT(ds.Projection()); err != nil {
		h.close()
		return nil, fmt.Errorf("grids: %s: bad coordinate system: %w", filepath.Base(path), err)
	}
	if h.trn, err = godal.NewTransform(h.wgs84, h.own); err != nil {
		h.close()
		return nil, fmt.Errorf("grids: %s: no transformation from EPSG:4326: %w", filepath.Base(path), err)
	}
	return h, nil
}

func (h *handle) close() {
	if h.trn != nil {
		h.trn.Close()
	}
	if h.own != nil {
		h.own.Close()
	}
	if h.wgs84 != nil {
		h.wgs84.Close()
	}
	if h.ds != nil {
		h.ds.Close()
	}
}

// sample reads every band at lon/lat.
func (h *handle) sample(lon, lat float64) (Sample, error) {
	out := Sample{Values: make([]*float64, len(h.bands))}
	xs, ys := []float64{lon}, []float64{lat}
	ok := []bool{false}
	if err := h.trn.TransformEx(xs, ys, nil, ok); err != nil || !ok[0] {
		return out, nil // outside the CRS's area of use: no cell there
	}
	col, row := cellOf(h.inverse, xs[0], ys[0])
	if col < 0 || row < 0 || col >= h.w || row >= h.h {
		return out, nil
	}
	out.Inside, out.Column, out.Row = true, col, row
	buf := make([]float64, 1)
	for i, b := range h.bands {
		if err := b.Read(col, row, buf, 1, 1); err != nil {
			return Sample{}, fmt.Errorf("grids: reading band %d: %w", i+1, err)
		}
		v := buf[0]
		if math.IsNaN(v) || (h.nodata[i] != nil && v == *h.nodata[i]) {
			continue
		}
		out.Values[i] = &v
	}
	return out, nil
}

// cellOf returns the cell holding a point, by the inverse geotransform.
func cellOf(inv [6]float64, x, y float64) (col, row int) {
	c := inv[0] + x*inv[1] + y*inv[2]
	r := inv[3] + x*inv[4] + y*inv[5]
	return int(math.Floor(c)), int(math.Floor(r))
}

// invert inverts a GDAL geotransform.
func invert(gt [6]float64) ([6]float64, error) {
	det := gt[1]*gt[5] - gt[2]*gt[4]
	if det == 0 || math.IsNaN(det) {
		return [6]float64{}, fmt.Errorf("grids: the geotransform cannot be inverted")
	}
	inv := [6]float64{}
	inv[1] = gt[5] / det
	inv[2] = -gt[2] / det
	inv[4] = -gt[4] / det
	inv[5] = gt[1] / det
	inv[0] = -(gt[0]*inv[1] + gt[3]*inv[2])
	inv[3] = -(gt[0]*inv[4] + gt[3]*inv[5])
	return inv, nil
}
