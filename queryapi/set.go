package queryapi

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/geodesic"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/usage"
)

// setAPI is the set query: 1.3 current. Earlier versions are answered in
// the same body; with_field_names needs 1.1 or later, as in the vector
// query.
var setAPI = api{name: "setQuery", versions: []string{"1.0", "1.1", "1.2", "1.3"}}

// setParams are a set query's parameters: the set, then the vector
// query's point and options (x, y, max_results, radius, geometry,
// with_field_names), which apply to each vector member.
type setParams struct {
	set int
	vectorParams
}

// parseSet reads a set query's parameters.
func parseSet(q url.Values, version string) (setParams, error) {
	p := setParams{vectorParams: vectorParams{maxResults: defaultResults, radius: defaultRadius}}
	v := q.Get("set")
	if v == "" {
		return p, badParam("set is required: give a set id")
	}
	id, err := strconv.Atoi(v)
	if err != nil || id <= 0 {
		return p, badParam("set must be a set id (a positive integer), not %q", v)
	}
	p.set = id
	return p, vectorOptions(q, version, &p.vectorParams)
}

// set serves the set query for a URL suffix ("" or "json").
//
// Response (setQuery 1.3): a JSON list of the set's member layers in set
// order, vector and grid together, limited to the members the caller may
// see (tables, which have no geometry, are left out):
//
//	[{"id": 3, "title": "Roads", "type": "vector",
//	  "results": {<the vector query's FeatureCollection for this layer>}},
//	 {"id": 9, "title": "Elevation", "type": "grid",
//	  "results": {<the raster query's answer for this layer>}},
//	 {"id": 4, "title": "Parcels", "type": "vector",
//	  "error": "Layer 4 is not available for point queries."}]
//
// A member the caller sees but may not query (its spatial-query service
// off or not granted) carries "error" instead of "results". A set that
// does not exist, is not published, or whose spatial-query-set service
// the caller may not use is 404, alike.
func (s *Service) set(suffix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rp, ok := s.start(w, r, setAPI, suffix)
		if !ok {
			return
		}
		p, err := parseSet(rp.query, rp.version)
		if err != nil {
			rp.fail(http.StatusBadRequest, err.Error())
			return
		}
		p.callback = rp.callback
		v, err := s.viewer(r)
		if err != nil {
			s.internal(rp, r, err)
			return
		}
		members, ok, err := s.setMembers(r.Context(), v, p.set)
		if err != nil {
			s.internal(rp, r, err)
			return
		}
		if !ok {
			rp.fail(http.StatusNotFound, "Set "+strconv.Itoa(p.set)+" was not found or is not available for set queries.")
			return
		}
		var b bytes.Buffer
		b.WriteByte('[')
		n := 0
		for _, m := range members {
			if m.Type == layer.TypeTable {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			if err := s.writeMember(&b, r, v, m, p); err != nil {
				s.internal(rp, r, err)
				return
			}
		}
		b.WriteByte(']')
		usage.Served(w, usage.Set, p.set, usage.QuerySet, usage.Amounts{})
		rp.send(http.StatusOK, b.Bytes())
	}
}

// setKey names what a viewer (by user id) sees of a set.
type setKey struct{ user, set int }

// setAnswer is the members of a set a viewer sees (shared: read-only);
// ok is false when the set is not available to the viewer.
type setAnswer struct {
	members []*ent.Layer
	ok      bool
}

// setMembers returns the published members of a set the viewer may see, in
// set order, remembered for the freshness window; ok is false when the set
// is unknown, unpublished or not available to the viewer.
func (s *Service) setMembers(ctx context.Context, v *access.Viewer, id int) ([]*ent.Layer, bool, error) {
	k := setKey{user: v.UserID, set: id}
	now := time.Now()
	if a, hit := s.sets.Get(k, now); hit {
		return a.members, a.ok, nil
	}
	members, ok, err := s.loadSetMembers(ctx, v, id)
	if err != nil {
		return nil, false, err
	}
	s.sets.Put(k, setAnswer{members: members, ok: ok}, now.Add(s.cfg.Fresh))
	return members, ok, nil
}

// loadSetMembers reads setMembers' answer from the database.
func (s *Service) loadSetMembers(ctx context.Context, v *access.Viewer, id int) ([]*ent.Layer, bool, error) {
	st, err := s.client.Set.Query().Where(set.ID(id), set.PublishedVersionIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	owner := access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: st.ID, Group: st.GroupID, Published: true}
	if ok, err := s.mayUse(ctx, v, owner, serviceSet); err != nil || !ok {
		return nil, false, err
	}
	visible := layer.And(layer.PublishedVersionIDNotNil(), v.Filter(access.KindLayer, access.View))
	members, err := sets.Members(ctx, s.client, []int{*st.PublishedVersionID}, visible)
	if err != nil {
		return nil, false, err
	}
	return members[*st.PublishedVersionID], true, nil
}

// writeMember writes one member's entry of a set query.
func (s *Service) writeMember(b *bytes.Buffer, r *http.Request, v *access.Viewer, m *ent.Layer, p setParams) error {
	service := serviceVector
	if m.Kind != layer.KindVector {
		service = serviceGrid
	}
	l, err := s.queryable(r, v, m.ID, service)
	if err != nil {
		return err
	}
	title := m.Name
	if l != nil {
		title = l.Title
	}
	b.WriteString(`{"id":` + strconv.Itoa(m.ID) + `,"title":`)
	featureindex.WriteJSONString(b, title)
	b.WriteString(`,"type":`)
	featureindex.WriteJSONString(b, string(m.Kind))
	if l == nil {
		b.WriteString(`,"error":`)
		featureindex.WriteJSONString(b, "Layer "+strconv.Itoa(m.ID)+" is not available for point queries.")
		b.WriteByte('}')
		return nil
	}
	b.WriteString(`,"results":`)
	if service == serviceGrid {
		res, err := s.sampleLayer(r.Context(), m.ID, l, p.x, p.y)
		if err != nil {
			return err
		}
		writeGridResult(b, res)
	} else {
		ix, err := s.indexes.Get(r.Context(), l.VersionID)
		if err != nil {
			return err
		}
		hits := Nearest(ix, geodesic.Point{Lon: p.x, Lat: p.y}, p.radius, p.maxResults)
		writeFeatureCollection(b, layerResult{id: m.ID, layer: l, ix: ix, hits: hits}, p.vectorParams)
	}
	b.WriteByte('}')
	return nil
}
