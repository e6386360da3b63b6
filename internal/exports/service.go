package exports

import (
	"context"
	"log/slog"
	"time"

	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/store"
)

// CropFeatureFunc resolves a crop-feature URL to its geometry (WKB,
// EPSG:4326); ok is false when the URL names no crop feature.
type CropFeatureFunc func(ctx context.Context, url string) (wkb []byte, ok bool, err error)

// Service is the exports capability of one process.
type Service struct {
	Store  *store.Store
	Jobs   *jobs.Jobs
	Blobs  *blob.Store
	Notify *notify.Hub
	// Popularity counts a download of each exported dataset when a file
	// is downloaded (nil counts nothing).
	Popularity *popularity.Counter
	Logger     *slog.Logger
	Limits     Limits
	// WorkDir is where jobs make their work folders: the process's
	// scratch folder, so a killed process's files are swept.
	WorkDir string
	// CropFeature resolves crop-feature URLs given as an extent (nil: an
	// extent must be GeoJSON).
	CropFeature CropFeatureFunc
	// Writers write the files (exportfile's when zero).
	Writers Writers
	// ProgressEvery is how often a running export records and announces
	// its progress (default DefaultProgressEvery).
	ProgressEvery time.Duration
}

// DefaultProgressEvery is how often exports record their progress unless
// told otherwise.
const DefaultProgressEvery = time.Second

func (s *Service) limits() Limits { return s.Limits.withDefaults() }

func (s *Service) progressEvery() time.Duration {
	if s.ProgressEvery > 0 {
		return s.ProgressEvery
	}
	return DefaultProgressEvery
}
