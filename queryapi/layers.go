package queryapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/freshcache"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/store"
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

	layers  freshcache.Cache[int, *Layer] // nil: no such published layer
	allowed freshcache.Cache[accessKey, bool]
	indexes *featureindex.Cache
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
		indexes: featureindex.NewCache(st, cfg.MemoryBudget, logger)}
}

// Close stops the index builds under way and releases the open grid
// files.
func (s *Service) Close() {
	s.indexes.Close()
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
	// Dates are the fields of type date, served as dates.
	Dates map[string]bool
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
		fields := featureindex.AttributeNames(v.Fields)
		typ := dataservices.Layer
		if l.Type == layer.TypeTable {
			typ = dataservices.Table
		}
		out = &Layer{ID: l.ID, Title: v.Name, Kind: l.Kind, VersionID: v.ID, Fields: fields, Dates: featurerows.DateFields(v.Fields), GeometryType: v.GeometryType,
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

// Indexes is the cache of feature indexes the service reads, for other
// services to share.
func (s *Service) Indexes() *featureindex.Cache { return s.indexes }

// MemoryUsed is the bytes the cached indexes hold.
func (s *Service) MemoryUsed() int64 { return s.indexes.Used() }

// MemoryBudget is the bytes the cached indexes may hold.
func (s *Service) MemoryBudget() int64 { return s.indexes.Budget() }

// Warm builds the indexes of published layers, newest first, until the
// memory budget is spent, so the first queries after a start are fast.
func (s *Service) Warm(ctx context.Context) error { return s.indexes.Warm(ctx) }
