package rastertiles

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"log/slog"
	"strconv"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/tilecache"
	"github.com/geopub/geopub/internal/vectortiles"
)

// The services raster tiles go through.
const (
	ServiceTiles    = vectortiles.ServiceTiles
	ServiceWMTS     = "wmts"
	ServiceTileJSON = "raster-tile-json"
)

// ErrNotFound is the answer for a layer or set that does not exist, is
// not published, or that the caller may not use through the service:
// callers cannot tell which.
var ErrNotFound = errors.New("not found or not available as raster tiles")

// DefaultCacheBytes bounds the tile cache of a service given no budget.
const DefaultCacheBytes = 128 << 20

// Service makes and caches raster tiles. It reads layers, sets and access
// decisions through the vector tile service, grid files through grids.
type Service struct {
	vt     *vectortiles.Service
	grids  *grids.Sampler
	logger *slog.Logger
	cache  *tilecache.Cache[cacheKey]
	looks  looks
	// handles keeps grid files open between tiles.
	handles handles
}

// New returns a raster tile service; cacheBytes bounds its tile cache
// (DefaultCacheBytes when not positive).
func New(vt *vectortiles.Service, g *grids.Sampler, cacheBytes int64, logger *slog.Logger) *Service {
	if cacheBytes <= 0 {
		cacheBytes = DefaultCacheBytes
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{vt: vt, grids: g, logger: logger, cache: tilecache.New[cacheKey](cacheBytes), looks: looks{m: map[int]*gridLook{}}}
}

// cacheKey names one encoded tile: versions is a layer's version id, or
// a set's ETag (its version and its visible members' versions).
type cacheKey struct {
	versions string
	tile     vectortiles.Tile
	format   Format
	style    string
}

// Viewer resolves a request's principal for access decisions.
func (s *Service) Viewer(ctx context.Context, p auth.Principal) (*access.Viewer, error) {
	return s.vt.Viewer(ctx, p)
}

// Answer is an encoded tile and its strong validator (without quotes).
type Answer struct {
	Body []byte
	ETag string
}

// notFound maps the vector tile service's refusal onto ours.
func notFound(err error) error {
	if errors.Is(err, vectortiles.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// LayerTile returns tile t of layer id, as v may see it, in format f and
// style st.
func (s *Service) LayerTile(ctx context.Context, v *access.Viewer, id int, t vectortiles.Tile, f Format, st Style) (*Answer, error) {
	l, err := s.vt.UsableLayer(ctx, v, id, ServiceTiles)
	if err != nil {
		return nil, notFound(err)
	}
	return s.LayersTile(ctx, "v"+strconv.Itoa(l.VersionID), []*vectortiles.Layer{l}, t, f, st)
}

// SetTile returns tile t of set id: its members v may use, drawn in set
// order (the first at the bottom).
func (s *Service) SetTile(ctx context.Context, v *access.Viewer, id int, t vectortiles.Tile, f Format, st Style) (*Answer, error) {
	set, ls, err := s.vt.UsableSet(ctx, v, id, []string{ServiceTiles}, []string{ServiceTiles})
	if err != nil {
		return nil, notFound(err)
	}
	return s.LayersTile(ctx, set.ETag, ls, t, f, st)
}

// LayersTile returns tile t of layers ls (whose access the caller
// checked), drawn in order (the first at the bottom), cached under
// versions: what names the layers' published versions ("v{version}" for
// one layer, a set's ETag).
func (s *Service) LayersTile(ctx context.Context, versions string, ls []*vectortiles.Layer, t vectortiles.Tile, f Format, st Style) (*Answer, error) {
	return s.cached(ctx, versions, t, f, st, func() (*image.NRGBA, error) {
		var out *image.NRGBA
		for _, l := range ls {
			img, err := s.draw(ctx, l, t, st)
			if err != nil {
				return nil, err
			}
			if img == nil {
				continue
			}
			if out == nil {
				out = img
				continue
			}
			draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Over)
		}
		return out, nil
	})
}

// cached returns the encoded tile from the cache, drawing it on a miss.
func (s *Service) cached(ctx context.Context, versions string, t vectortiles.Tile, f Format, st Style, paint func() (*image.NRGBA, error)) (*Answer, error) {
	k := cacheKey{versions: versions, tile: t, format: f, style: st.key()}
	e, _, err := s.cache.Get(ctx, k, func() ([]byte, error) {
		img, err := paint()
		if err != nil {
			return nil, err
		}
		return encode(img, f)
	})
	if err != nil {
		return nil, err
	}
	etag := versions + "-" + string(f)
	if k.style != "" {
		etag += "-" + k.style
	}
	return &Answer{Body: e.Body(), ETag: etag}, nil
}

// draw paints one layer's tile: nil when nothing of it is there.
func (s *Service) draw(ctx context.Context, l *vectortiles.Layer, t vectortiles.Tile, st Style) (*image.NRGBA, error) {
	ctx = context.WithoutCancel(ctx) // the cache finishes what it starts
	if l.Kind == layer.KindVector {
		mvt, err := s.vt.LayerMVT(ctx, l, t)
		if err != nil || len(mvt) == 0 {
			return nil, err
		}
		img := image.NewNRGBA(image.Rect(0, 0, Size, Size))
		if err := drawMVT(img, mvt, st.colorOf(l.ID)); err != nil {
			return nil, err
		}
		return img, nil
	}
	if len(l.Extent) == 4 && !overlaps(lonLatBox(t), [4]float64(l.Extent)) {
		return nil, nil
	}
	return s.warp(ctx, l, func(ds *godal.Dataset, lk *gridLook) (*image.NRGBA, error) { return warpTile(ds, t, lk) })
}

// warp draws a grid or raster layer through do, given its open grid file
// and how to draw it.
func (s *Service) warp(ctx context.Context, l *vectortiles.Layer, do func(*godal.Dataset, *gridLook) (*image.NRGBA, error)) (*image.NRGBA, error) {
	path, err := s.grids.Path(ctx, l.VersionID)
	if err != nil {
		return nil, err
	}
	ds, err := s.handles.take(l.VersionID, path)
	if err != nil {
		return nil, err
	}
	lk, err := s.look(l, ds)
	if err != nil {
		_ = ds.Close()
		return nil, err
	}
	img, err := do(ds, lk)
	if err != nil {
		_ = ds.Close()
		return nil, err
	}
	s.handles.give(l.VersionID, ds)
	return img, nil
}

// look returns how to draw a version's grid, worked out once.
func (s *Service) look(l *vectortiles.Layer, ds *godal.Dataset) (*gridLook, error) {
	s.looks.mu.Lock()
	lk := s.looks.m[l.VersionID]
	s.looks.mu.Unlock()
	if lk != nil {
		return lk, nil
	}
	lk, err := lookOf(ds, l.Kind == layer.KindGrid)
	if err != nil {
		return nil, err
	}
	s.looks.mu.Lock()
	if len(s.looks.m) >= 10000 {
		s.looks.m = map[int]*gridLook{}
	}
	s.looks.m[l.VersionID] = lk
	s.looks.mu.Unlock()
	return lk, nil
}

// overlaps reports whether two [w, s, e, n] boxes meet.
func overlaps(a, b [4]float64) bool {
	return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}
