package queryapi

import (
	"container/list"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/features"
	"github.com/geopub/geopub/internal/freshcache"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/services"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/queryapi/index"
)

// Config tunes the point-query service.
type Config struct {
	// MemoryBudget bounds the bytes the spatial indexes hold; the least
	// recently used are dropped beyond it (and rebuilt when asked for).
	MemoryBudget int64
	// Fresh is how long a layer's description, a set's members and a
	// caller's access to them are reused before they are read again:
	// publishes and permission changes reach point queries within it.
	Fresh time.Duration
}

// DefaultConfig is the configuration of a service that sets none.
var DefaultConfig = Config{MemoryBudget: 1 << 30, Fresh: time.Second}

// Service answers point queries over published layers, through spatial
// indexes built from their published versions.
type Service struct {
	store  *store.Store
	client *ent.Client
	cfg    Config
	logger *slog.Logger

	mu      sync.Mutex
	layers  freshcache.Cache[int, *Layer] // nil: no such published layer
	allowed freshcache.Cache[accessKey, bool]
	indexes map[int]*indexEntry // by version id
	lru     *list.List          // of *indexEntry, most recent first
	used    int64
	viewers freshcache.Cache[int, *access.Viewer] // by user id
	sets    freshcache.Cache[setKey, setAnswer]
	grids   *grids.Sampler
}

// New returns a point-query service over st; raster queries sample grid
// files through g.
func New(st *store.Store, g *grids.Sampler, cfg Config, logger *slog.Logger) *Service {
	if cfg.MemoryBudget <= 0 {
		cfg.MemoryBudget = DefaultConfig.MemoryBudget
	}
	if cfg.Fresh <= 0 {
		cfg.Fresh = DefaultConfig.Fresh
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{store: st, client: st.Client, cfg: cfg, logger: logger, grids: g,
		indexes: map[int]*indexEntry{}, lru: list.New()}
}

// Close releases the open grid files.
func (s *Service) Close() {
	if s.grids != nil {
		s.grids.Close()
	}
}

// Layer is a published layer as point queries see it.
type Layer struct {
	ID        int
	Title     string
	Kind      layer.Kind
	VersionID int
	// Fields are the attribute names in the layer's order.
	Fields []string
	// GeometryType is the layer's geometry type (point, linestring, ...).
	GeometryType string
	// CRS and Bands describe grid and raster layers.
	CRS   string
	Bands []schematype.Band
	Owner access.ServiceOwner
}

// layer returns a published layer, nil when there is none with id.
func (s *Service) layer(ctx context.Context, id int) (*Layer, error) {
	now := time.Now()
	if l, ok := s.layers.Get(id, now); ok {
		return l, nil
	}
	l, err := s.client.Layer.Query().Where(layer.ID(id), layer.PublishedVersionIDNotNil()).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var out *Layer
	if l != nil {
		v, err := s.client.LayerVersion.Get(ctx, *l.PublishedVersionID)
		if err != nil {
			return nil, err
		}
		fields := attributeNames(v.Fields)
		typ := services.Layer
		if l.Type == layer.TypeTable {
			typ = services.Table
		}
		out = &Layer{ID: l.ID, Title: v.Name, Kind: l.Kind, VersionID: v.ID, Fields: fields, GeometryType: v.GeometryType,
			CRS: v.Crs, Bands: v.Bands,
			Owner: access.ServiceOwner{Kind: access.KindLayer, Type: typ, ID: l.ID, Group: l.GroupID, Published: true}}
	}
	s.layers.Put(id, out, now.Add(s.cfg.Fresh))
	return out, nil
}

type accessKey struct {
	user int
	kind access.Kind
	id   int
	svc  string
}

// mayUse reports whether v may use a service of an owner, remembered for
// the freshness window.
func (s *Service) mayUse(ctx context.Context, v *access.Viewer, o access.ServiceOwner, service string) (bool, error) {
	k := accessKey{user: v.UserID, kind: o.Kind, id: o.ID, svc: service}
	now := time.Now()
	if ok, hit := s.allowed.Get(k, now); hit {
		return ok, nil
	}
	allowed, err := v.MayUseService(ctx, s.client, o, service)
	if err != nil {
		return false, err
	}
	s.allowed.Put(k, allowed, now.Add(s.cfg.Fresh))
	return allowed, nil
}

// indexEntry is one version's index, built once by whoever asks first.
type indexEntry struct {
	version int
	ready   chan struct{}
	ix      *index.Index
	err     error
	elem    *list.Element
}

// index returns the spatial index of a published version, building it on
// first use.
func (s *Service) index(ctx context.Context, versionID int) (*index.Index, error) {
	s.mu.Lock()
	e, ok := s.indexes[versionID]
	if ok {
		if e.elem != nil {
			s.lru.MoveToFront(e.elem)
		}
		s.mu.Unlock()
		select {
		case <-e.ready:
			return e.ix, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e = &indexEntry{version: versionID, ready: make(chan struct{})}
	s.indexes[versionID] = e
	s.mu.Unlock()

	start := time.Now()
	e.ix, e.err = s.build(context.WithoutCancel(ctx), versionID)
	s.mu.Lock()
	if e.err != nil {
		delete(s.indexes, versionID)
	} else {
		e.elem = s.lru.PushFront(e)
		s.used += e.ix.Bytes()
		s.evict()
	}
	s.mu.Unlock()
	close(e.ready)
	if e.err == nil {
		// A build leaves several times the index's size in garbage (rows
		// read, builder slices): give it back to the OS now rather than
		// carry it until the heap next shrinks.
		debug.FreeOSMemory()
		s.logger.InfoContext(ctx, "point-query index built", "version", versionID, "features", e.ix.Len(),
			"bytes", e.ix.Bytes(), "took", time.Since(start).Round(time.Millisecond))
	}
	return e.ix, e.err
}

// evict drops the least recently used indexes beyond the budget, keeping
// at least the newest. Callers hold s.mu.
func (s *Service) evict() {
	for s.used > s.cfg.MemoryBudget && s.lru.Len() > 1 {
		last := s.lru.Back()
		e := last.Value.(*indexEntry)
		s.lru.Remove(last)
		delete(s.indexes, e.version)
		s.used -= e.ix.Bytes()
	}
}

// MemoryUsed is the bytes the cached indexes hold.
func (s *Service) MemoryUsed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// MemoryBudget is the bytes the cached indexes may hold.
func (s *Service) MemoryBudget() int64 { return s.cfg.MemoryBudget }

// Warm builds the indexes of published layers, newest first, until the
// memory budget is spent, so the first queries after a start are fast.
func (s *Service) Warm(ctx context.Context) error {
	ids, err := s.client.Layer.Query().Where(layer.PublishedVersionIDNotNil()).
		Order(ent.Desc(layer.FieldPublishedAt)).Select(layer.FieldPublishedVersionID).Ints(ctx)
	if err != nil {
		return err
	}
	for _, vid := range ids {
		if ctx.Err() != nil || s.MemoryUsed() >= s.cfg.MemoryBudget {
			return ctx.Err()
		}
		if _, err := s.index(ctx, vid); err != nil {
			s.logger.WarnContext(ctx, "warming a point-query index", "version", vid, "err", err)
		}
	}
	return nil
}

// build reads a version's features into an index, each feature's
// properties rendered once, in the version's field order.
func (s *Service) build(ctx context.Context, versionID int) (*index.Index, error) {
	v, err := s.client.LayerVersion.Get(ctx, versionID)
	if err != nil {
		return nil, fmt.Errorf("building the point-query index of version %d: %w", versionID, err)
	}
	fields := attributeNames(v.Fields)
	var b index.Builder
	err = features.ReadRaw(ctx, s.store, versionID, func(r *features.RawRow) error {
		if !r.HasBox || len(r.Geom) == 0 {
			b.Skip()
			return nil
		}
		b.Add(r.FID, r.Box, isPoint(r.Geom), r.Geom, orderedProperties(fields, r.Attrs))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("building the point-query index of version %d: %w", versionID, err)
	}
	return b.Build(), nil
}

// attributeNames are the names of a version's non-geometry fields, in
// order.
func attributeNames(fs []schematype.Field) []string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.Type != "geometry" {
			names = append(names, f.Name)
		}
	}
	return names
}

// isPoint reports whether WKB holds a single point (ISO or extended type
// codes, any dimensions).
func isPoint(wkb []byte) bool {
	if len(wkb) < 5 {
		return false
	}
	var t uint32
	if wkb[0] == 1 {
		t = binary.LittleEndian.Uint32(wkb[1:5])
	} else {
		t = binary.BigEndian.Uint32(wkb[1:5])
	}
	return (t&0xffff)%1000 == 1
}
