package tilearchives

import (
	"fmt"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/tilearchive"
)

// Limits are the operator's bounds on archives. Zero fields take the
// defaults below.
type Limits struct {
	// VectorMinZoom, VectorMaxZoom: the default zoom range of vector
	// archives (0 to 14); RasterMinZoom, RasterMaxZoom of raster ones
	// (0 to 12).
	VectorMinZoom, VectorMaxZoom int
	RasterMinZoom, RasterMaxZoom int
	// MaxZoom is the deepest zoom a publisher may ask for (16).
	MaxZoom int
	// MaxTiles bounds the tiles an archive may span (2,000,000).
	MaxTiles int64
	// MaxBytes bounds an archive's size (2 GiB).
	MaxBytes int64
	// VectorTileBytes and RasterTileBytes are the mean tile sizes a size
	// estimate assumes (1 KiB, 8 KiB).
	VectorTileBytes, RasterTileBytes int64
}

// Defaults.
const (
	DefaultVectorMaxZoom   = 14
	DefaultRasterMaxZoom   = 12
	DefaultMaxZoom         = 16
	DefaultMaxTiles        = 2_000_000
	DefaultMaxBytes        = 2 << 30
	DefaultVectorTileBytes = 1 << 10
	DefaultRasterTileBytes = 8 << 10
)

func (l Limits) withDefaults() Limits {
	if l.VectorMaxZoom == 0 {
		l.VectorMaxZoom = DefaultVectorMaxZoom
	}
	if l.RasterMaxZoom == 0 {
		l.RasterMaxZoom = DefaultRasterMaxZoom
	}
	if l.MaxZoom == 0 {
		l.MaxZoom = DefaultMaxZoom
	}
	l.VectorMaxZoom = min(l.VectorMaxZoom, l.MaxZoom)
	l.RasterMaxZoom = min(l.RasterMaxZoom, l.MaxZoom)
	l.VectorMinZoom = min(max(l.VectorMinZoom, 0), l.VectorMaxZoom)
	l.RasterMinZoom = min(max(l.RasterMinZoom, 0), l.RasterMaxZoom)
	if l.MaxTiles == 0 {
		l.MaxTiles = DefaultMaxTiles
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.VectorTileBytes == 0 {
		l.VectorTileBytes = DefaultVectorTileBytes
	}
	if l.RasterTileBytes == 0 {
		l.RasterTileBytes = DefaultRasterTileBytes
	}
	return l
}

// defaultZooms is the default range of an archive of service.
func (l Limits) defaultZooms(service string) (int, int) {
	if service == ServiceRasterPMTiles {
		return l.RasterMinZoom, l.RasterMaxZoom
	}
	return l.VectorMinZoom, l.VectorMaxZoom
}

func (l Limits) tileBytes(service string) int64 {
	if service == ServiceRasterPMTiles {
		return l.RasterTileBytes
	}
	return l.VectorTileBytes
}

// LimitsDoc is how the limits are stated to clients (the description at
// an archive's URL + ".json").
type LimitsDoc struct {
	DefaultMinZoom int   `json:"default_minzoom"`
	DefaultMaxZoom int   `json:"default_maxzoom"`
	MaxZoom        int   `json:"max_zoom"`
	MaxTiles       int64 `json:"max_tiles"`
	MaxBytes       int64 `json:"max_bytes"`
	TileBytes      int64 `json:"estimated_tile_bytes"`
}

func (l Limits) doc(service string) LimitsDoc {
	lo, hi := l.defaultZooms(service)
	return LimitsDoc{DefaultMinZoom: lo, DefaultMaxZoom: hi, MaxZoom: l.MaxZoom, MaxTiles: l.MaxTiles,
		MaxBytes: l.MaxBytes, TileBytes: l.tileBytes(service)}
}

// Plan is a build's zoom range over bounds and what it may hold.
type Plan struct {
	MinZoom, MaxZoom int
	Bounds           [4]float64
	// Tiles is the estimate of tiles the range spans over the bounds (an
	// upper bound), Bytes that times the mean tile size.
	Tiles, Bytes int64
}

// check refuses a plan over the limits, naming the limit.
func (l Limits) check(service string, p Plan) error {
	if p.MinZoom < 0 || p.MaxZoom > l.MaxZoom || p.MinZoom > p.MaxZoom {
		return apperr.New(apperr.Invalid, "The zoom range %d to %d is not within 0 to %d (max_zoom), minzoom no deeper than maxzoom.",
			p.MinZoom, p.MaxZoom, l.MaxZoom)
	}
	if p.Tiles > l.MaxTiles {
		return apperr.New(apperr.TooLarge, "An archive from zoom %d to %d over the dataset's bounds spans up to %d tiles, over the limit of %d tiles (max_tiles): ask for a shallower maxzoom.",
			p.MinZoom, p.MaxZoom, p.Tiles, l.MaxTiles)
	}
	if p.Bytes > l.MaxBytes {
		return apperr.New(apperr.TooLarge, "An archive from zoom %d to %d is estimated at %s, over the limit of %s (max_bytes): ask for a shallower maxzoom.",
			p.MinZoom, p.MaxZoom, apperr.ByteSize(p.Bytes), apperr.ByteSize(l.MaxBytes))
	}
	return nil
}

// plan estimates a range over bounds.
func (l Limits) plan(service string, lo, hi int, bounds [4]float64) Plan {
	p := Plan{MinZoom: lo, MaxZoom: hi, Bounds: bounds}
	typ := tilearchive.TypeMVT
	if service == ServiceRasterPMTiles {
		typ = tilearchive.TypePNG
	}
	p.Tiles = tilearchive.Estimate(tilearchive.Options{MinZoom: lo, MaxZoom: hi, Bounds: bounds, Type: typ})
	tb := l.tileBytes(service)
	if p.Tiles > l.MaxBytes/tb+1 {
		p.Bytes = l.MaxBytes + 1
	} else {
		p.Bytes = p.Tiles * tb
	}
	return p
}

// fit is the default plan: the default range, its deepest zoom lowered
// until the plan is within the limits (down to the shallowest zoom).
func (l Limits) fit(service string, lo, hi int, bounds [4]float64) Plan {
	p := l.plan(service, lo, hi, bounds)
	for p.MaxZoom > p.MinZoom && l.check(service, p) != nil {
		p = l.plan(service, lo, p.MaxZoom-1, bounds)
	}
	return p
}

func (p Plan) String() string { return fmt.Sprintf("z%d-z%d, %d tiles", p.MinZoom, p.MaxZoom, p.Tiles) }
