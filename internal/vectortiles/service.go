package vectortiles

import (
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/freshcache"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/tilecache"
)

// The services tiles go through.
const (
	ServiceMVT      = "vector-tile-mvt"
	ServiceTileJSON = "vector-tile-json"
	ServiceTiles    = "tiles"
)

// Makers are the ways a layer's tile is made, as Made counts them: from
// the version's in-memory feature index, by PostGIS's ST_AsMVT, or in
// process from the features the store selects.
var Makers = [...]string{"index", "postgis", "store"}

const (
	madeFromIndex = iota
	madeByPostGIS
	madeFromStore
)

// ErrNotFound is the answer for a layer or set that does not exist, is
// not published, is not a vector layer, or that the caller may not use
// through the service: callers cannot tell which.
var ErrNotFound = errors.New("not found or not available as vector tiles")

// Config tunes the tile service.
type Config struct {
	// CacheBytes bounds the memory the tile cache holds.
	CacheBytes int64
	// Fresh is how long a layer's description and a caller's access to it
	// are reused before they are read again.
	Fresh time.Duration
	// Indexes, when set, are the in-memory feature indexes tiles are made
	// from once a version's is built (the point queries' own); until
	// then, and without them, tiles are made from the store.
	Indexes *featureindex.Cache
	// FromStore makes every tile from the store, never from Indexes (to
	// measure that path).
	FromStore bool
}

// DefaultConfig is the configuration of a service that sets none.
var DefaultConfig = Config{CacheBytes: 256 << 20, Fresh: time.Second}

// Service makes and caches the vector tiles of published layers and sets.
type Service struct {
	store  *store.Store
	client *ent.Client
	cfg    Config
	logger *slog.Logger
	cache  *tilecache.Cache[cacheKey]

	postgisOnce sync.Once
	postgis     bool

	made [len(Makers)]atomic.Int64 // tiles made, by maker

	layers  freshcache.Cache[int, *Layer] // nil: no such published vector layer
	allowed freshcache.Cache[accessKey, bool]
	sets    freshcache.Cache[int, *publishedSet]
	extents freshcache.Cache[int, extent]
	viewers freshcache.Cache[int, *access.Viewer] // by user id
}

// New returns a tile service over st.
func New(st *store.Store, cfg Config, logger *slog.Logger) *Service {
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = DefaultConfig.CacheBytes
	}
	if cfg.Fresh <= 0 {
		cfg.Fresh = DefaultConfig.Fresh
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{store: st, client: st.Client, cfg: cfg, logger: logger, cache: tilecache.New[cacheKey](cfg.CacheBytes)}
}

// Made is the number of tiles made (not served from the cache) by maker,
// one of Makers; 0 for any other name.
func (s *Service) Made(maker string) int64 {
	for i, m := range Makers {
		if m == maker {
			return s.made[i].Load()
		}
	}
	return 0
}

// CacheBytes is the memory the cached tiles hold.
func (s *Service) CacheBytes() int64 { return s.cache.Bytes() }

// Layer is a published layer as tiles see it.
type Layer struct {
	ID        int
	Title     string
	VersionID int
	// Kind is vector, grid or raster.
	Kind   layer.Kind
	Fields []schematype.Field
	// Extent is a grid or raster version's [west, south, east, north]
	// (EPSG:4326), empty for vector layers.
	Extent []float64
	// Width is a grid or raster version's width in cells.
	Width int
	// GeometryType is a vector version's geometry type (point,
	// multipolygon, ...; see internal/ingest).
	GeometryType string
	Owner        access.ServiceOwner
}

// layer returns a published layer of any kind (not a table), nil when
// there is none with id.
func (s *Service) layer(ctx context.Context, id int) (*Layer, error) {
	now := time.Now()
	if l, ok := s.layers.Get(id, now); ok {
		return l, nil
	}
	l, err := s.client.Layer.Query().Where(layer.ID(id), layer.PublishedVersionIDNotNil(),
		layer.TypeEQ(layer.TypeLayer)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var out *Layer
	if l != nil {
		v, err := s.client.LayerVersion.Get(ctx, *l.PublishedVersionID)
		if err != nil {
			return nil, err
		}
		out = &Layer{ID: l.ID, Title: v.Name, VersionID: v.ID, Kind: l.Kind, Fields: v.Fields, Extent: v.Extent, Width: v.RasterWidth, GeometryType: v.GeometryType,
			Owner: access.ServiceOwner{Kind: access.KindLayer, Type: dataservices.Layer, ID: l.ID, Group: l.GroupID, Published: true}}
	}
	s.layers.Put(id, out, now.Add(s.cfg.Fresh))
	return out, nil
}

// cacheKey names one layer's tile of one published version.
type cacheKey struct {
	version int
	tile    Tile
}

type accessKey struct {
	user int
	kind access.Kind
	id   int
	svc  string
}

// mayUse reports whether v may use every one of services of an owner,
// each decision remembered for the freshness window.
func (s *Service) mayUse(ctx context.Context, v *access.Viewer, o access.ServiceOwner, svcs ...string) (bool, error) {
	now := time.Now()
	for _, svc := range svcs {
		k := accessKey{user: v.UserID, kind: o.Kind, id: o.ID, svc: svc}
		ok, hit := s.allowed.Get(k, now)
		if !hit {
			var err error
			if ok, err = v.MayUseService(ctx, s.client, o, svc); err != nil {
				return false, err
			}
			s.allowed.Put(k, ok, now.Add(s.cfg.Fresh))
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// usableLayer returns vector layer id if v may use it through every one
// of the tile services svcs, else ErrNotFound.
func (s *Service) usableLayer(ctx context.Context, v *access.Viewer, id int, svcs ...string) (*Layer, error) {
	l, err := s.UsableLayer(ctx, v, id, svcs...)
	if err != nil {
		return nil, err
	}
	if l.Kind != layer.KindVector {
		return nil, ErrNotFound
	}
	return l, nil
}

// UsableLayer returns published layer id, of any kind, if v may use it
// through every one of the services svcs, else ErrNotFound. Decisions are
// reused for the freshness window.
func (s *Service) UsableLayer(ctx context.Context, v *access.Viewer, id int, svcs ...string) (*Layer, error) {
	l, err := s.layer(ctx, id)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, ErrNotFound
	}
	ok, err := s.mayUse(ctx, v, l.Owner, svcs...)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotFound
	}
	return l, nil
}

// publishedSet is a published set and its members' ids in set order.
type publishedSet struct {
	id, versionID int
	title         string
	owner         access.ServiceOwner
	members       []int
}

// set returns a published set, nil when there is none with id.
func (s *Service) set(ctx context.Context, id int) (*publishedSet, error) {
	now := time.Now()
	if p, ok := s.sets.Get(id, now); ok {
		return p, nil
	}
	st, err := s.client.Set.Query().Where(set.ID(id), set.PublishedVersionIDNotNil()).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var out *publishedSet
	if st != nil {
		members, err := sets.Members(ctx, s.client, []int{*st.PublishedVersionID})
		if err != nil {
			return nil, err
		}
		out = &publishedSet{id: st.ID, versionID: *st.PublishedVersionID, title: st.Title,
			owner: access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: st.ID, Group: st.GroupID, Published: true}}
		for _, m := range members[*st.PublishedVersionID] {
			out.members = append(out.members, m.ID)
		}
	}
	s.sets.Put(id, out, now.Add(s.cfg.Fresh))
	return out, nil
}

// usableSet returns a set v may use through svcs and its members v may
// use as tiles (vector layers only), else ErrNotFound.
func (s *Service) usableSet(ctx context.Context, v *access.Viewer, id int, svcs ...string) (*publishedSet, []*Layer, error) {
	return s.usableSetOf(ctx, v, id, svcs, s.usableLayer, ServiceMVT, ServiceTiles)
}

// Set is a published set as tiles see it.
type Set struct {
	ID, VersionID int
	Title         string
	// ETag names the set's version and its visible members' versions.
	ETag string
}

// UsableSet returns set id if v may use it through every one of svcs,
// with its members (of any kind) that v may use through every one of
// memberSvcs, in set order; else ErrNotFound.
func (s *Service) UsableSet(ctx context.Context, v *access.Viewer, id int, svcs, memberSvcs []string) (*Set, []*Layer, error) {
	p, ls, err := s.usableSetOf(ctx, v, id, svcs, s.UsableLayer, memberSvcs...)
	if err != nil {
		return nil, nil, err
	}
	return &Set{ID: p.id, VersionID: p.versionID, Title: p.title, ETag: setETag(p, ls)}, ls, nil
}

func (s *Service) usableSetOf(ctx context.Context, v *access.Viewer, id int, svcs []string,
	member func(context.Context, *access.Viewer, int, ...string) (*Layer, error), memberSvcs ...string) (*publishedSet, []*Layer, error) {
	p, err := s.set(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, ErrNotFound
	}
	ok, err := s.mayUse(ctx, v, p.owner, svcs...)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, ErrNotFound
	}
	var ls []*Layer
	for _, m := range p.members {
		l, err := member(ctx, v, m, memberSvcs...)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		ls = append(ls, l)
	}
	return p, ls, nil
}

// Answer is a tile: Body is the MVT (nil for an empty tile), ETag its
// strong validator without quotes (the same for every tile of the same
// published versions).
type Answer struct {
	Body []byte
	ETag string
	// parts are the cache entries the body was made of, for Gzipped.
	parts []*tilecache.Entry[cacheKey]
}

// Gzipped returns the body gzip-compressed: a single layer's from the
// cache, a set's made now.
func (a *Answer) Gzipped() []byte {
	if len(a.parts) == 1 {
		return a.parts[0].Gzipped()
	}
	return tilecache.NewEntry[cacheKey](a.Body).Gzipped()
}

// LayerTile returns tile t of layer id as v may see it.
func (s *Service) LayerTile(ctx context.Context, v *access.Viewer, id int, t Tile) (*Answer, error) {
	l, err := s.usableLayer(ctx, v, id, ServiceMVT, ServiceTiles)
	if err != nil {
		return nil, err
	}
	e, err := s.layerTile(ctx, l, t)
	if err != nil {
		return nil, err
	}
	return &Answer{Body: e.Body(), ETag: "v" + strconv.Itoa(l.VersionID) + "-" + e.Sum(), parts: []*tilecache.Entry[cacheKey]{e}}, nil
}

// SetTile returns tile t of set id: one MVT layer per member v may use,
// in set order (members with nothing in the tile are left out).
func (s *Service) SetTile(ctx context.Context, v *access.Viewer, id int, t Tile) (*Answer, error) {
	p, ls, err := s.usableSet(ctx, v, id, ServiceTiles)
	if err != nil {
		return nil, err
	}
	a := &Answer{}
	for _, l := range ls {
		e, err := s.layerTile(ctx, l, t)
		if err != nil {
			return nil, err
		}
		// Protocol buffers merge repeated fields of concatenated messages:
		// single-layer tiles one after the other are one multi-layer tile.
		a.Body = append(a.Body, e.Body()...)
		a.parts = append(a.parts, e)
	}
	a.ETag = setETag(p, ls) + "-" + partsSum(a.parts)
	return a, nil
}

// setETag is a set's validator: the set's version and its visible
// members' versions.
func setETag(p *publishedSet, ls []*Layer) string {
	h := fnv.New64a()
	for _, l := range ls {
		_, _ = h.Write(strconv.AppendInt(nil, int64(l.VersionID), 10))
		_, _ = h.Write([]byte{','})
	}
	return "s" + strconv.Itoa(p.versionID) + "-" + strconv.FormatUint(h.Sum64(), 36)
}

// partsSum is the checksum of a set tile's parts, in order.
func partsSum(parts []*tilecache.Entry[cacheKey]) string {
	h := fnv.New64a()
	for _, e := range parts {
		_, _ = h.Write([]byte(e.Sum()))
		_, _ = h.Write([]byte{','})
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// layerTile returns a layer's tile from the cache, making it on a miss.
func (s *Service) layerTile(ctx context.Context, l *Layer, t Tile) (*tilecache.Entry[cacheKey], error) {
	e, _, err := s.cache.Get(ctx, cacheKey{version: l.VersionID, tile: t}, func() ([]byte, error) {
		ctx := context.WithoutCancel(ctx)
		if s.cfg.Indexes != nil && !s.cfg.FromStore {
			if ix := s.cfg.Indexes.Resident(l.VersionID); ix != nil {
				s.made[madeFromIndex].Add(1)
				return encodeIndexed(ix, LayerName(l.ID), t, featurerows.DateFields(l.Fields))
			}
		}
		if s.usePostGIS(ctx) {
			s.made[madeByPostGIS].Add(1)
			return s.encodePostGIS(ctx, l.VersionID, LayerName(l.ID), t, featurerows.DateFields(l.Fields))
		}
		s.made[madeFromStore].Add(1)
		return encodeInProcess(ctx, s.store, l.VersionID, LayerName(l.ID), t, featurerows.DateFields(l.Fields))
	})
	return e, err
}

// LayerMVT returns the single-layer MVT of tile t of l (a vector layer
// whose access the caller checked), from the cache; nil when empty.
func (s *Service) LayerMVT(ctx context.Context, l *Layer, t Tile) ([]byte, error) {
	e, err := s.layerTile(ctx, l, t)
	if err != nil {
		return nil, err
	}
	return e.Body(), nil
}

// Bounds is l's [west, south, east, north] in EPSG:4326: a grid's
// recorded extent, a vector version's features' box; ok is false when
// it has none.
func (s *Service) Bounds(ctx context.Context, l *Layer) (box [4]float64, ok bool, err error) {
	if l.Kind != layer.KindVector {
		if len(l.Extent) != 4 {
			return box, false, nil
		}
		return [4]float64(l.Extent), true, nil
	}
	e, err := s.versionExtent(ctx, l.VersionID)
	return e.box, e.ok, err
}

// extent is a version's bounding box.
type extent struct {
	box [4]float64
	ok  bool
}

// versionExtent returns the bounding box of a version's features,
// remembered (a version's features never change once published).
func (s *Service) versionExtent(ctx context.Context, versionID int) (extent, error) {
	far := time.Now().Add(24 * time.Hour)
	if e, ok := s.extents.Get(versionID, time.Now()); ok {
		return e, nil
	}
	box, ok, err := featurerows.Extent(ctx, s.store, versionID)
	if err != nil {
		return extent{}, err
	}
	e := extent{box: box, ok: ok}
	s.extents.Put(versionID, e, far)
	return e, nil
}

// Viewer resolves a request's principal for access decisions, reused for
// the freshness window.
func (s *Service) Viewer(ctx context.Context, p auth.Principal) (*access.Viewer, error) {
	if !p.Authenticated() {
		return access.NewViewer(ctx, s.client, p)
	}
	now := time.Now()
	if v, ok := s.viewers.Get(p.User.ID, now); ok {
		return v, nil
	}
	v, err := access.NewViewer(ctx, s.client, p)
	if err != nil {
		return nil, err
	}
	s.viewers.Put(p.User.ID, v, now.Add(s.cfg.Fresh))
	return v, nil
}

// Reaches reports whether any feature of l (a vector layer whose access
// the caller checked) meets tile t's buffered box: a tile that draws
// nothing may still have features too small for its grid, which draw
// deeper; one that reaches none has nothing beneath it either. Without
// in-memory indexes it answers true (the caller keeps looking).
func (s *Service) Reaches(ctx context.Context, l *Layer, t Tile) (bool, error) {
	if s.cfg.Indexes == nil {
		return true, nil
	}
	ix, err := s.cfg.Indexes.Get(ctx, l.VersionID)
	if err != nil {
		return false, err
	}
	env := t.Envelope(Buffer)
	found := false
	ix.Search(env[0], env[1], env[2], env[3], func(int) bool {
		found = true
		return false
	})
	return found, nil
}
