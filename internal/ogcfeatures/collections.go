package ogcfeatures

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// ServiceKey is the data service every request passes through.
const ServiceKey = "wfs"

// Scope is the token scope the service needs.
const Scope = auth.ScopeWFS

// Service reads the published layers and tables the OGC API serves.
type Service struct {
	store  *store.Store
	client *ent.Client
	logger *slog.Logger
	// temporal caches temporal extents by version and field, extents
	// spatial extents by version: published versions never change.
	temporal, extents sync.Map
	decided           *decisions
}

// New returns the service over st. Access decisions and layer
// descriptions are reused for fresh (none when zero).
func New(st *store.Store, fresh time.Duration, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{store: st, client: st.Client, logger: logger, decided: &decisions{fresh: fresh}}
}

// Collection is a published vector layer or table as the API shows it.
type Collection struct {
	ID          string // layer-{id} or table-{id}
	LayerID     int
	Table       bool
	Title       string
	Description string
	VersionID   int
	// Fields are the non-geometry fields in the layer's order.
	Fields       []schematype.Field
	GeometryType string
	// GeometryField is the layer's name for its geometry.
	GeometryField string
	// Extent is [minlon, minlat, maxlon, maxlat]; nil without geometries.
	Extent []float64
	// Temporal is the first and last time of TimeField (RFC 3339), nil
	// without one.
	Temporal []string
	// FeatureCount is the number of features of the version.
	FeatureCount int64
	Owner        access.ServiceOwner
	// SourceCRS is the CRS the layer was published in ("EPSG:2193"),
	// empty when unknown; features are stored in CRS84 whatever it is.
	SourceCRS string
	// PrimaryKey are the fields that identify a feature across versions,
	// none when the layer has no primary key.
	PrimaryKey []string
}

// FieldNames are the attribute names in order.
func (c *Collection) FieldNames() []string {
	out := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		out[i] = f.Name
	}
	return out
}

// collectionID is the id of layer l in URLs.
func collectionID(l *ent.Layer) string {
	if l.Type == layer.TypeTable {
		return "table-" + strconv.Itoa(l.ID)
	}
	return "layer-" + strconv.Itoa(l.ID)
}

// parseCollectionID reads layer-{id} or table-{id}.
func parseCollectionID(id string) (int, layer.Type, bool) {
	prefix, num, ok := strings.Cut(id, "-")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strconv.Itoa(n) != num {
		return 0, "", false
	}
	switch prefix {
	case "layer":
		return n, layer.TypeLayer, true
	case "table":
		return n, layer.TypeTable, true
	}
	return 0, "", false
}

// Collections lists the collections v may read, by layer id.
func (s *Service) Collections(ctx context.Context, v *access.Viewer) ([]*Collection, error) {
	return s.CollectionsFor(ctx, v, ServiceKey)
}

// CollectionsFor lists the collections v may use through the data
// service key (wfs, or wfs-changesets for WFS changesets), by layer id.
func (s *Service) CollectionsFor(ctx context.Context, v *access.Viewer, key string) ([]*Collection, error) {
	ls, err := s.client.Layer.Query().Where(layer.PublishedVersionIDNotNil(), layer.KindEQ(layer.KindVector),
		predicate.Layer(v.Filter(access.KindLayer, access.Download))).Order(ent.Asc(layer.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(ls))
	for i, l := range ls {
		ids[i] = *l.PublishedVersionID
	}
	vs, err := s.client.LayerVersion.Query().Where(layerversion.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	versions := make(map[int]*ent.LayerVersion, len(vs))
	for _, v := range vs {
		versions[v.ID] = v
	}
	var out []*Collection
	for _, l := range ls {
		c, err := s.describe(ctx, v, l, versions[*l.PublishedVersionID], key)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// Collection returns one collection v may read, nil when there is none
// with id or v may not read it: callers cannot tell which.
func (s *Service) Collection(ctx context.Context, v *access.Viewer, id string) (*Collection, error) {
	return s.CollectionFor(ctx, v, id, ServiceKey)
}

// CollectionFor is Collection through the data service key.
func (s *Service) CollectionFor(ctx context.Context, v *access.Viewer, id, key string) (*Collection, error) {
	n, typ, ok := parseCollectionID(id)
	if !ok {
		return nil, nil
	}
	l, err := s.client.Layer.Query().Where(layer.ID(n), layer.TypeEQ(typ), layer.KindEQ(layer.KindVector),
		layer.PublishedVersionIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.describe(ctx, v, l, nil, key)
}

// describe checks the service rule for l and reads its published
// version (ver, unless nil); nil when v may not use the service.
func (s *Service) describe(ctx context.Context, v *access.Viewer, l *ent.Layer, ver *ent.LayerVersion, key string) (*Collection, error) {
	k, now := decisionKey{user: v.UserID, layer: l.ID, service: key}, time.Now()
	if c, ok := s.decided.get(k, now); ok && (c == nil || c.VersionID == *l.PublishedVersionID) {
		return c, nil
	}
	c, err := s.decide(ctx, v, l, ver, key)
	if err != nil {
		return nil, err
	}
	s.decided.put(k, c, now)
	return c, nil
}

// decide is describe without the memory.
func (s *Service) decide(ctx context.Context, v *access.Viewer, l *ent.Layer, ver *ent.LayerVersion, key string) (*Collection, error) {
	typ := dataservices.Layer
	if l.Type == layer.TypeTable {
		typ = dataservices.Table
	}
	owner := access.ServiceOwner{Kind: access.KindLayer, Type: typ, ID: l.ID, Group: l.GroupID, Published: true}
	ok, err := v.MayUseService(ctx, s.client, owner, key)
	if err != nil || !ok {
		return nil, err
	}
	if ver == nil {
		if ver, err = s.client.LayerVersion.Get(ctx, *l.PublishedVersionID); err != nil {
			return nil, err
		}
	}
	c := &Collection{ID: collectionID(l), LayerID: l.ID, Table: l.Type == layer.TypeTable, Title: ver.Name,
		Description: ver.Description, VersionID: ver.ID, GeometryType: ver.GeometryType, GeometryField: ver.GeometryField, FeatureCount: ver.FeatureCount, Owner: owner, SourceCRS: ver.Crs, PrimaryKey: ver.PrimaryKeyFields}
	for _, f := range ver.Fields {
		if f.Type != "geometry" {
			c.Fields = append(c.Fields, f)
		}
	}
	if len(ver.Extent) == 4 {
		c.Extent = ver.Extent
	}
	return c, nil
}

// AddExtents fills in the spatial extent (when the version has none
// stored) and the temporal extent of collections, each read once per
// published version: only collection descriptions need them.
func (s *Service) AddExtents(ctx context.Context, cs ...*Collection) error {
	for _, c := range cs {
		if c.Extent == nil && !c.Table {
			box, ok, err := s.spatialExtent(ctx, c.VersionID)
			if err != nil {
				return err
			}
			if ok {
				c.Extent = box[:]
			}
		}
		if f := c.TimeField(); f != "" {
			ext, ok, err := s.temporalExtent(ctx, c.VersionID, f)
			if err != nil {
				return err
			}
			if ok {
				c.Temporal = ext[:]
			}
		}
	}
	return nil
}

// spatialExtent is featurerows.Extent, remembered by version.
func (s *Service) spatialExtent(ctx context.Context, versionID int) ([4]float64, bool, error) {
	if v, ok := s.extents.Load(versionID); ok {
		e := v.(extent)
		return e.box, e.ok, nil
	}
	box, ok, err := featurerows.Extent(ctx, s.store, versionID)
	if err != nil {
		return box, false, err
	}
	s.extents.Store(versionID, extent{box, ok})
	return box, ok, nil
}

type extent struct {
	box [4]float64
	ok  bool
}

// Client is the Ent client the service reads through.
func (s *Service) Client() *ent.Client { return s.client }

// Logger is the service's logger.
func (s *Service) Logger() *slog.Logger { return s.logger }

// Store is the store the service reads.
func (s *Service) Store() *store.Store { return s.store }
