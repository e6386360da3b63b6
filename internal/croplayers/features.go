package croplayers

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/feature"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
)

// Feature is a crop feature: its fid in the published version, its name
// (the naming field's value) and, when asked for, its geometry.
type Feature struct {
	ID          int
	Name        string
	CropLayerID int
	Geometry    *MultiPolygon
}

// Features returns a page of a crop layer's features with a geometry, by
// fid, and how many there are.
func (s *Service) Features(ctx context.Context, cropLayerID int, page paging.Page) ([]*Feature, int, error) {
	if _, err := access.RequireReader(ctx, ScopeRead, ScopeWrite); err != nil {
		return nil, 0, err
	}
	c, versionID, err := s.load(ctx, cropLayerID)
	if err != nil {
		return nil, 0, err
	}
	q := s.st.Client.Feature.Query().Where(feature.VersionID(versionID), feature.GeomNotNil())
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.Order(feature.ByFid(), feature.ByID()).Offset(page.Offset()).Limit(page.Size).
		Select(feature.FieldFid, feature.FieldAttrs).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*Feature, 0, len(rows))
	for _, r := range rows {
		out = append(out, &Feature{ID: int(r.Fid), Name: nameOf(r.Attrs, c.NameField), CropLayerID: c.ID})
	}
	return out, total, nil
}

// Feature returns one crop feature with its geometry, or a 404.
func (s *Service) Feature(ctx context.Context, cropLayerID, fid int) (*Feature, error) {
	if _, err := access.RequireReader(ctx, ScopeRead, ScopeWrite); err != nil {
		return nil, err
	}
	c, versionID, err := s.load(ctx, cropLayerID)
	if err != nil {
		return nil, err
	}
	r, err := s.row(ctx, versionID, fid)
	if err != nil {
		return nil, err
	}
	g, err := multiPolygon(*r.Geom)
	if err != nil {
		return nil, apperr.ErrNotFound
	}
	return &Feature{ID: fid, Name: nameOf(r.Attrs, c.NameField), CropLayerID: c.ID, Geometry: g}, nil
}

// Geometry returns a crop feature's geometry as stored (ISO WKB, EPSG:4326),
// for an export whose extent names it; a 404 when there is no such
// feature. It checks no caller: the export's own rules have.
func (s *Service) Geometry(ctx context.Context, cropLayerID, fid int) ([]byte, error) {
	_, versionID, err := s.load(ctx, cropLayerID)
	if err != nil {
		return nil, err
	}
	r, err := s.row(ctx, versionID, fid)
	if err != nil {
		return nil, err
	}
	return *r.Geom, nil
}

// FeatureByURL resolves a crop-feature URL (ParseFeatureURL) to its
// geometry; ok is false when the URL names no crop feature. It checks no
// caller, as Geometry.
func (s *Service) FeatureByURL(ctx context.Context, url string) (wkb []byte, ok bool, err error) {
	id, fid, ok := ParseFeatureURL(url)
	if !ok {
		return nil, false, nil
	}
	wkb, err = s.Geometry(ctx, id, fid)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return wkb, true, nil
}

// row reads the first feature with fid and a geometry in a version.
func (s *Service) row(ctx context.Context, versionID, fid int) (*ent.Feature, error) {
	r, err := s.st.Client.Feature.Query().
		Where(feature.VersionID(versionID), feature.Fid(int64(fid)), feature.GeomNotNil()).
		Order(feature.ByID()).First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.ErrNotFound
	}
	return r, err
}

// nameOf is the naming field's value as text.
func nameOf(attrs map[string]any, field string) string {
	switch v := attrs[field].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	default:
		return ""
	}
}
