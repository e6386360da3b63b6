package exports

import (
	"fmt"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

// Limits are the operator's bounds on exports, named with their values in
// validation reasons so that a user learns them before the job.
type Limits struct {
	// MaxFeatures bounds the features of one export (all items together).
	MaxFeatures int64
	// MaxZippedBytes bounds the estimated zipped size of one export.
	MaxZippedBytes int64
	// MaxRasterPixels bounds the cells of one grid or raster item.
	MaxRasterPixels int64
	// MaxRunning bounds the exports one user has processing at once.
	MaxRunning int
	// Expiry is how long a complete export's file is kept.
	Expiry time.Duration
	// MaxItems bounds the items of one request.
	MaxItems int
}

// Defaults of Limits.
const (
	DefaultMaxFeatures     = 10_000_000
	DefaultMaxZippedBytes  = 15 << 30 // 15 GiB, the peer's per-download cap
	DefaultMaxRasterPixels = 1 << 34
	DefaultMaxRunning      = 5
	DefaultExpiry          = 7 * 24 * time.Hour
	DefaultMaxItems        = 500
)

// withDefaults fills zero fields.
func (l Limits) withDefaults() Limits {
	if l.MaxFeatures <= 0 {
		l.MaxFeatures = DefaultMaxFeatures
	}
	if l.MaxZippedBytes <= 0 {
		l.MaxZippedBytes = DefaultMaxZippedBytes
	}
	if l.MaxRasterPixels <= 0 {
		l.MaxRasterPixels = DefaultMaxRasterPixels
	}
	if l.MaxRunning <= 0 {
		l.MaxRunning = DefaultMaxRunning
	}
	if l.Expiry <= 0 {
		l.Expiry = DefaultExpiry
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	return l
}

// thousands writes n with comma separators: 1,000,000.
func thousands(n int64) string {
	s := []byte{}
	neg := n < 0
	if neg {
		n = -n
	}
	d := 0
	for {
		s = append(s, byte('0'+n%10))
		n /= 10
		d++
		if n == 0 {
			break
		}
		if d%3 == 0 {
			s = append(s, ',')
		}
	}
	if neg {
		s = append(s, '-')
	}
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return string(s)
}

// The bounds of a crop area given as GeoJSON, whichever door it comes
// through (REST's 1 MiB body cap, GraphQL's larger one): the export
// stores the extent as asked and echoes it on every read, and GEOS
// tests it against every item.
const (
	// MaxExtentBytes bounds the extent's JSON (413 when passed).
	MaxExtentBytes = 512 << 10
	// MaxExtentVertices bounds its positions, every ring together (400).
	MaxExtentVertices = 10_000
)

// checkExtentSize refuses an extent over MaxExtentBytes.
func checkExtentSize(raw []byte) error {
	if len(raw) > MaxExtentBytes {
		return apperr.New(apperr.TooLarge, "extent: the crop area is %s; the limit is %s. Simplify it or use a crop feature.",
			apperr.ByteSize(int64(len(raw))), apperr.ByteSize(MaxExtentBytes))
	}
	return nil
}

// checkExtentVertices refuses a crop area of more than MaxExtentVertices
// positions.
func checkExtentVertices(polys [][][][]float64) error {
	n := 0
	for _, p := range polys {
		for _, ring := range p {
			n += len(ring)
		}
	}
	if n > MaxExtentVertices {
		return apperr.Field("extent", fmt.Sprintf("The crop area has %s vertices; the limit is %s. Simplify it or use a crop feature.",
			thousands(int64(n)), thousands(MaxExtentVertices)))
	}
	return nil
}
