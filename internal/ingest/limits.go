package ingest

// Limits bound what Unpack will write. Zero fields take the defaults.
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
}

// Default limits.
const (
	DefaultMaxTotalBytes = 10 << 30 // 10 GiB
	DefaultMaxFiles      = 100_000
	DefaultMaxFileBytes  = 10 << 30 // 10 GiB
	DefaultMaxRatio      = 1000
	DefaultRatioGrace    = 1 << 20 // 1 MiB
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
	return l
}
