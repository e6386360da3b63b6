package ingest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Limits bound what Unpack will write and the rasters Scan and BuildGrid
// accept. Zero fields take the defaults.
type Limits struct {
	// MaxTotalBytes caps the sum of all extracted file sizes.
	MaxTotalBytes int64
	// MaxFiles caps the number of entries (files and directories).
	MaxFiles int
	// MaxFileBytes caps the size of any single extracted file.
	MaxFileBytes int64
	// MaxRatio caps extracted bytes divided by the archive's size on disk
	// (zip-bomb guard). It is only enforced once RatioGrace bytes have been
	// written, so tiny highly compressible archives are fine.
	MaxRatio float64
	// RatioGrace is the number of extracted bytes allowed before MaxRatio
	// applies.
	RatioGrace int64
	// MaxRasterCells caps a raster's declared width × height × bands.
	// The size a file declares is checked before any cell is read, so a
	// small sparse file that declares a huge grid is refused at once
	// rather than making an import run for hours.
	MaxRasterCells int64
	// ScanBytes caps what one scan writes while unpacking, all its
	// archives together: the operator's budget (geopub serve and worker
	// --scan-max-mb). Unpack enforces it through Budget.
	ScanBytes int64
	// Budget, when set, is the share of ScanBytes left, shared by the
	// Unpack calls of one scan and counted as bytes are written; nil
	// leaves only the per-archive limits.
	Budget *Budget
	// DeadlineBase and DeadlinePerMB give each scan and import a deadline
	// proportional to its input: DeadlineBase plus DeadlinePerMB for every
	// MiB of its files (Deadline). Past it the work stops and fails.
	DeadlineBase  time.Duration
	DeadlinePerMB time.Duration
	// GDALCacheMB is the block cache GDAL may use while writing a grid,
	// in MiB: the bound on a grid import's memory beyond its buffers.
	GDALCacheMB int
}

// Default limits.
const (
	DefaultMaxTotalBytes = 10 << 30 // 10 GiB
	DefaultMaxFiles      = 100_000
	DefaultMaxFileBytes  = 10 << 30 // 10 GiB
	DefaultMaxRatio      = 1000
	DefaultRatioGrace    = 1 << 20 // 1 MiB
	// DefaultMaxRasterCells allows, for instance, a 40 000 × 40 000
	// single-band grid or a 23 000 × 23 000 RGB image.
	DefaultMaxRasterCells = 1_600_000_000
	DefaultGDALCacheMB    = 256
	DefaultScanBytes      = 4 << 30 // 4 GiB
	DefaultDeadlineBase   = 15 * time.Minute
	DefaultDeadlinePerMB  = 5 * time.Second
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits { return Limits{}.withDefaults() }

func (l Limits) withDefaults() Limits {
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	if l.RatioGrace <= 0 {
		l.RatioGrace = DefaultRatioGrace
	}
	if l.MaxRasterCells <= 0 {
		l.MaxRasterCells = DefaultMaxRasterCells
	}
	if l.ScanBytes <= 0 {
		l.ScanBytes = DefaultScanBytes
	}
	if l.DeadlineBase <= 0 {
		l.DeadlineBase = DefaultDeadlineBase
	}
	if l.DeadlinePerMB <= 0 {
		l.DeadlinePerMB = DefaultDeadlinePerMB
	}
	if l.GDALCacheMB <= 0 {
		l.GDALCacheMB = DefaultGDALCacheMB
	}
	return l
}

// Deadline is how long a scan or an import of bytes of input may take.
func (l Limits) Deadline(bytes int64) time.Duration {
	l = l.withDefaults()
	mb := (max(bytes, 0) + 1<<20 - 1) >> 20
	return l.DeadlineBase + time.Duration(mb)*l.DeadlinePerMB
}

// Budget is what one scan may still write while unpacking. It is safe for
// concurrent use.
type Budget struct {
	total int64
	used  atomic.Int64
}

// NewBudget is a budget of total bytes; total <= 0 takes
// DefaultScanBytes.
func NewBudget(total int64) *Budget {
	if total <= 0 {
		total = DefaultScanBytes
	}
	return &Budget{total: total}
}

// take counts n more bytes written and reports whether they fit.
func (b *Budget) take(n int64) bool { return b.used.Add(n) <= b.total }

// give returns n bytes taken by an archive whose files were removed.
func (b *Budget) give(n int64) { b.used.Add(-n) }

// exceeded is the reason an entry stopped when the budget ran out.
func (b *Budget) exceeded() string {
	return fmt.Sprintf("the source unpacks to more than the %d MiB one scan may unpack (the operator's --scan-max-mb)", b.total>>20)
}

// ErrRasterTooLarge reports a raster whose declared size is beyond
// Limits.MaxRasterCells.
var ErrRasterTooLarge = errors.New("ingest: raster too large")

// checkRaster refuses a raster declaring more cells than l allows.
func (l Limits) checkRaster(path string, width, height, bands int) error {
	l = l.withDefaults()
	// In floating point: the product of three declared sizes may
	// overflow an int64.
	if cells := float64(width) * float64(height) * float64(max(bands, 1)); cells > float64(l.MaxRasterCells) {
		return fmt.Errorf("%w: %s declares %d × %d cells in %d band(s), more than the %d cells allowed",
			ErrRasterTooLarge, path, width, height, bands, l.MaxRasterCells)
	}
	return nil
}
