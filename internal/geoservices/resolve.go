package geoservices

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setitem"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/ogcfeatures"
)

// Service keys that gate GeoServices REST: FeatureServer and every layer
// query need esri-rest-api; MapServer needs esri-map as well.
const (
	KeyFeatureServer = "esri-rest-api"
	KeyMapServer     = "esri-map"
)

// MaxRecordCount is the most features one query page gives (ArcGIS
// Online's default for hosted feature layers); a larger resultRecordCount
// is clamped to it, as ArcGIS does.
const MaxRecordCount = 2000

// Service answers FeatureServer and MapServer layer requests over the
// published layers ogcfeatures reads.
type Service struct {
	f       *ogcfeatures.Service
	client  *ent.Client
	offsets offsetCache
	orders  orderCache
}

// New returns the service over f.
func New(f *ogcfeatures.Service) *Service {
	return &Service{f: f, client: f.Client()}
}

// Features is the OGC features service this one reads through.
func (s *Service) Features() *ogcfeatures.Service { return s.f }

// Layers returns the layers of service n that v may use, numbered by
// their index: one (id 0) for layer_{id}, a set's members in member order
// for set_{id}. ok is false when the service does not exist or v may not
// use it (told apart by no one). mapServer asks for esri-map too.
func (s *Service) Layers(ctx context.Context, v *access.Viewer, n ServiceName, mapServer bool) (out []*ogcfeatures.Collection, ok bool, err error) {
	switch n.Kind {
	case KindLayer:
		c, err := s.layer(ctx, v, n.ID, mapServer)
		if err != nil || c == nil {
			return nil, false, err
		}
		return []*ogcfeatures.Collection{c}, true, nil
	case KindSet:
		return s.setLayers(ctx, v, n.ID, mapServer)
	}
	return nil, false, nil
}

// layer is one published layer or table through esri-rest-api (and
// esri-map), nil when v may not use it.
func (s *Service) layer(ctx context.Context, v *access.Viewer, id int, mapServer bool) (*ogcfeatures.Collection, error) {
	l, err := s.client.Layer.Query().Where(layer.ID(id), layer.KindEQ(layer.KindVector), layer.PublishedVersionIDNotNil()).
		Select(layer.FieldID, layer.FieldType).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cid := "layer-" + strconv.Itoa(id)
	if l.Type == layer.TypeTable {
		cid = "table-" + strconv.Itoa(id)
	}
	c, err := s.f.CollectionFor(ctx, v, cid, KeyFeatureServer)
	if err != nil || c == nil {
		return nil, err
	}
	if mapServer {
		ok, err := v.MayUseService(ctx, s.client, c.Owner, KeyMapServer)
		if err != nil || !ok {
			return nil, err
		}
	}
	return c, nil
}

// setLayers are the members of a published set v may use, in order.
func (s *Service) setLayers(ctx context.Context, v *access.Viewer, id int, mapServer bool) ([]*ogcfeatures.Collection, bool, error) {
	st, err := s.client.Set.Query().Where(set.ID(id), set.PublishedVersionIDNotNil(),
		predicate.Set(v.Filter(access.KindSet, access.View))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if mapServer {
		owner := access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: st.ID, Group: st.GroupID, Published: true}
		ok, err := v.MayUseService(ctx, s.client, owner, KeyMapServer)
		if err != nil || !ok {
			return nil, false, err
		}
	}
	items, err := s.client.SetItem.Query().Where(setitem.SetVersionID(*st.PublishedVersionID)).
		Order(ent.Asc(setitem.FieldPosition)).All(ctx)
	if err != nil {
		return nil, false, err
	}
	out := []*ogcfeatures.Collection{}
	for _, it := range items {
		c, err := s.layer(ctx, v, it.LayerID, mapServer)
		if err != nil {
			return nil, false, err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out, true, nil
}

// DirectoryEntry is one service of the services directory.
type DirectoryEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// directoryBatch is how many datasets the directory decides at once.
const directoryBatch = 500

// Directory lists the services v may use: FeatureServer for published
// vector layers and tables with esri-rest-api, MapServer for those and
// sets with esri-map; layers first, by id, then sets. Datasets are read
// by id in batches, each decided in one UsableServices call.
func (s *Service) Directory(ctx context.Context, v *access.Viewer) ([]DirectoryEntry, error) {
	out := []DirectoryEntry{}
	keys := []string{KeyFeatureServer, KeyMapServer}
	for after := 0; ; {
		ls, err := s.client.Layer.Query().Where(layer.IDGT(after), layer.PublishedVersionIDNotNil(), layer.KindEQ(layer.KindVector),
			predicate.Layer(v.Filter(access.KindLayer, access.View))).Order(ent.Asc(layer.FieldID)).
			Select(layer.FieldID, layer.FieldType, layer.FieldGroupID).Limit(directoryBatch).All(ctx)
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 {
			break
		}
		owners := make([]access.ServiceOwner, len(ls))
		for i, l := range ls {
			typ := dataservices.Layer
			if l.Type == layer.TypeTable {
				typ = dataservices.Table
			}
			owners[i] = access.ServiceOwner{Kind: access.KindLayer, Type: typ, ID: l.ID, Group: l.GroupID, Published: true}
		}
		usable, err := v.UsableServices(ctx, s.client, owners, keys)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			got := usable[access.KindLayer][l.ID]
			name := ServiceName{Kind: KindLayer, ID: l.ID}.String()
			fs := contains(got, KeyFeatureServer)
			if fs {
				out = append(out, DirectoryEntry{name, "FeatureServer"})
			}
			if fs && contains(got, KeyMapServer) {
				out = append(out, DirectoryEntry{name, "MapServer"})
			}
		}
		after = ls[len(ls)-1].ID
	}
	for after := 0; ; {
		ss, err := s.client.Set.Query().Where(set.IDGT(after), set.PublishedVersionIDNotNil(),
			predicate.Set(v.Filter(access.KindSet, access.View))).Order(ent.Asc(set.FieldID)).
			Select(set.FieldID, set.FieldGroupID).Limit(directoryBatch).All(ctx)
		if err != nil {
			return nil, err
		}
		if len(ss) == 0 {
			break
		}
		owners := make([]access.ServiceOwner, len(ss))
		for i, st := range ss {
			owners[i] = access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: st.ID, Group: st.GroupID, Published: true}
		}
		usable, err := v.UsableServices(ctx, s.client, owners, []string{KeyMapServer})
		if err != nil {
			return nil, err
		}
		for _, st := range ss {
			name := ServiceName{Kind: KindSet, ID: st.ID}.String()
			// A set's FeatureServer serves the members the caller may
			// use through their own esri-rest-api: it is listed for every
			// set the caller sees.
			out = append(out, DirectoryEntry{name, "FeatureServer"})
			if contains(usable[access.KindSet][st.ID], KeyMapServer) {
				out = append(out, DirectoryEntry{name, "MapServer"})
			}
		}
		after = ss[len(ss)-1].ID
	}
	return out, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
