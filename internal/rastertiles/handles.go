package rastertiles

import (
	"sync"

	"github.com/airbusgeo/godal"
)

// Bounds of the idle GDAL datasets kept open.
const (
	idlePerGrid = 4
	idleTotal   = 64
)

// handles keeps idle open grid files for reuse, per version: a GDAL
// dataset serves one caller at a time, and opening a COG for every tile
// costs its header read.
type handles struct {
	mu    sync.Mutex
	idle  map[int][]*godal.Dataset
	count int
}

// take returns an idle dataset of version, or opens path.
func (h *handles) take(version int, path string) (*godal.Dataset, error) {
	h.mu.Lock()
	if ds := h.idle[version]; len(ds) > 0 {
		d := ds[len(ds)-1]
		h.idle[version] = ds[:len(ds)-1]
		h.count--
		h.mu.Unlock()
		return d, nil
	}
	h.mu.Unlock()
	return open(path)
}

// give keeps ds for reuse, or closes it when enough are kept.
func (h *handles) give(version int, ds *godal.Dataset) {
	h.mu.Lock()
	if h.idle == nil {
		h.idle = map[int][]*godal.Dataset{}
	}
	if len(h.idle[version]) < idlePerGrid && h.count < idleTotal {
		h.idle[version] = append(h.idle[version], ds)
		h.count++
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	_ = ds.Close()
}
