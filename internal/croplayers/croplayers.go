// Package croplayers serves the crop layers of exports (api-shapes §7.5):
// published polygon layers a site administrator offers as crop areas,
// whose features users pick as an export's extent.
//
// Rules it holds:
//   - Reading needs a signed-in caller (a session, or a token with
//     exports:read); managing needs a site administrator (exports:write).
//     A crop layer shows its features' names and geometries to every
//     signed-in user, whatever the permissions of its source layer: making
//     one is the site administrator's decision to publish them.
//   - The source must be a vector layer (not a table, grid or raster) with
//     a published version of polygon or multipolygon geometry that has the
//     naming field.
//   - Features are read from the layer's current published version: a new
//     publish changes them. A crop layer whose layer lost its published
//     version (or was deleted) is left out of lists and answers 404.
//   - A crop feature's id is its fid in the published version; geometries
//     are GeoJSON MultiPolygons in EPSG:4326, coordinates as stored.
package croplayers

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/croplayer"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// The token scopes of crop layers.
const (
	ScopeRead  = auth.ScopeExportsRead
	ScopeWrite = auth.ScopeExportsWrite
)

// Service reads and manages crop layers.
type Service struct {
	st *store.Store
}

// New returns the service over the store.
func New(st *store.Store) *Service { return &Service{st: st} }

// CropLayer is a crop layer with what its representation needs.
type CropLayer struct {
	ID        int
	Name      string
	LayerID   int
	NameField string
	CreatedAt time.Time
	// SourceVersionID is the layer's published version the features are
	// read from.
	SourceVersionID int
	// Extent is the bounding box of its features, nil without any.
	Extent *MultiPolygon
}

// List returns every crop layer whose layer is published, by id.
func (s *Service) List(ctx context.Context) ([]*CropLayer, error) {
	if _, err := access.RequireReader(ctx, ScopeRead, ScopeWrite); err != nil {
		return nil, err
	}
	rows, err := s.st.Client.CropLayer.Query().Order(croplayer.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	versions, err := s.publishedVersions(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*CropLayer, 0, len(rows))
	for _, c := range rows {
		v, ok := versions[c.LayerID]
		if !ok {
			continue
		}
		cl, err := s.describe(ctx, c, v)
		if err != nil {
			return nil, err
		}
		out = append(out, cl)
	}
	return out, nil
}

// Get returns one crop layer, or a 404 when there is none or its layer is
// not published.
func (s *Service) Get(ctx context.Context, id int) (*CropLayer, error) {
	if _, err := access.RequireReader(ctx, ScopeRead, ScopeWrite); err != nil {
		return nil, err
	}
	c, v, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.describe(ctx, c, v)
}

// load reads a crop layer and its layer's published version id.
func (s *Service) load(ctx context.Context, id int) (*ent.CropLayer, int, error) {
	c, err := s.st.Client.CropLayer.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, 0, apperr.ErrNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	versions, err := s.publishedVersions(ctx, []*ent.CropLayer{c})
	if err != nil {
		return nil, 0, err
	}
	v, ok := versions[c.LayerID]
	if !ok {
		return nil, 0, apperr.ErrNotFound
	}
	return c, v, nil
}

// publishedVersions maps the layers of crop layers to their published
// version, leaving out layers without one.
func (s *Service) publishedVersions(ctx context.Context, cs []*ent.CropLayer) (map[int]int, error) {
	ids := make([]int, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.LayerID)
	}
	out := map[int]int{}
	if len(ids) == 0 {
		return out, nil
	}
	layers, err := s.st.Client.Layer.Query().
		Where(layer.IDIn(ids...), layer.PublishedVersionIDNotNil()).
		Select(layer.FieldID, layer.FieldPublishedVersionID).All(ctx)
	if err != nil {
		return nil, err
	}
	var vids []int
	for _, l := range layers {
		vids = append(vids, *l.PublishedVersionID)
	}
	// A published version that is still the published one.
	live, err := s.st.Client.LayerVersion.Query().
		Where(layerversion.IDIn(vids...), layerversion.StateEQ(layerversion.StatePublished)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	ok := map[int]bool{}
	for _, id := range live {
		ok[id] = true
	}
	for _, l := range layers {
		if ok[*l.PublishedVersionID] {
			out[l.ID] = *l.PublishedVersionID
		}
	}
	return out, nil
}

func (s *Service) describe(ctx context.Context, c *ent.CropLayer, versionID int) (*CropLayer, error) {
	cl := &CropLayer{ID: c.ID, Name: c.Name, LayerID: c.LayerID, NameField: c.NameField,
		CreatedAt: c.CreatedAt, SourceVersionID: versionID}
	box, ok, err := featurerows.Extent(ctx, s.st, versionID)
	if err != nil {
		return nil, err
	}
	if ok {
		cl.Extent = boxPolygon(box)
	}
	return cl, nil
}
