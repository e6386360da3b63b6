package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/croplayers"
	"github.com/geopub/geopub/internal/paging"
)

// cropLayerRoutes serves the crop layers of exports (api-shapes §7.5).
// Each route is registered on its own: the exports routes share the
// /exports prefix.
func (a *API) cropLayerRoutes(r chi.Router) {
	r.Use(scoped(croplayers.ScopeRead, croplayers.ScopeWrite))
	r.Get("/exports/croplayers", a.handle(a.listCropLayers))
	r.Post("/exports/croplayers", a.handle(a.createCropLayer))
	r.Get("/exports/croplayers/{cid:[0-9]+}", a.handle(a.getCropLayer))
	r.Delete("/exports/croplayers/{cid:[0-9]+}", a.handle(a.deleteCropLayer))
	r.Get("/exports/croplayers/{cid:[0-9]+}/cropfeatures", a.handle(a.listCropFeatures))
	r.Get("/exports/croplayers/{cid:[0-9]+}/cropfeatures/{fid:[0-9]+}", a.handle(a.getCropFeature))
}

// cropLayerJSON is a crop layer.
type cropLayerJSON struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Features string `json:"features"`
	// Extent is the features' bounding box as a GeoJSON MultiPolygon in
	// EPSG:4326, null without features.
	Extent      *croplayers.MultiPolygon `json:"extent"`
	SourceLayer string                   `json:"source_layer"`
}

// cropFeatureJSON is a crop feature in a list: id, name, url.
type cropFeatureJSON struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// cropFeatureDetailJSON is one crop feature with its geometry, a GeoJSON
// MultiPolygon in EPSG:4326.
type cropFeatureDetailJSON struct {
	cropFeatureJSON
	Geometry *croplayers.MultiPolygon `json:"geometry"`
}

// cropLayerBody is what POST /exports/croplayers/ takes; layer is a layer
// id (number or string) or a layer URL.
type cropLayerBody struct {
	Name      string          `json:"name"`
	Layer     json.RawMessage `json:"layer"`
	NameField string          `json:"name_field"`
}

func (l links) cropLayer(c *croplayers.CropLayer) cropLayerJSON {
	return cropLayerJSON{ID: c.ID, Name: c.Name, URL: l.api("exports/croplayers/%d/", c.ID),
		Features: l.api("exports/croplayers/%d/cropfeatures/", c.ID), Extent: c.Extent,
		SourceLayer: l.api("layers/%d/versions/%d/", c.LayerID, c.SourceVersionID)}
}

func (l links) cropFeature(f *croplayers.Feature) cropFeatureJSON {
	return cropFeatureJSON{ID: f.ID, Name: f.Name, URL: l.api("exports/croplayers/%d/cropfeatures/%d/", f.CropLayerID, f.ID)}
}

// listCropLayers pages the crop layers (a site has few: they are read
// whole, then sliced).
func (a *API) listCropLayers(w http.ResponseWriter, r *http.Request) error {
	pageN, size, err := queryOf(r).paging()
	if err != nil {
		return err
	}
	pg, err := paging.New(pageN, size, paging.MaxSize)
	if err != nil {
		return err
	}
	cs, err := a.res.Query().CropLayers(r.Context())
	if err != nil {
		return err
	}
	l := a.links(r)
	start := min(pg.Offset(), len(cs))
	end := min(start+pg.Size, len(cs))
	out := make([]cropLayerJSON, 0, end-start)
	for _, c := range cs[start:end] {
		out = append(out, l.cropLayer(c))
	}
	a.writePage(w, r, pageResult{page: pg.Number, size: pg.Size, total: len(cs), count: len(out)}, nil, out)
	return nil
}

func (a *API) getCropLayer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	c, err := a.res.Query().CropLayer(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).cropLayer(c))
	return nil
}

func (a *API) createCropLayer(w http.ResponseWriter, r *http.Request) error {
	var in cropLayerBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	layer, err := layerRef(in.Layer)
	if err != nil {
		return err
	}
	c, err := a.res.Mutation().CreateCropLayer(r.Context(),
		graph.CreateCropLayerInput{Name: in.Name, Layer: layer, NameField: in.NameField})
	if err != nil {
		return err
	}
	js := a.links(r).cropLayer(c)
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

// layerRef reads the layer of a crop-layer body: a number, or a string
// holding an id or a URL ("" when absent, which the rules report).
func layerRef(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if _, err := strconv.Atoi(n.String()); err == nil {
			return n.String(), nil
		}
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return "", apperr.Field("layer", "Give a layer id or a layer URL (…/layers/{id}/).")
	}
	return str, nil
}

func (a *API) deleteCropLayer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteCropLayer(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) listCropFeatures(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	pageN, size, err := queryOf(r).paging()
	if err != nil {
		return err
	}
	pg, err := paging.New(pageN, size, paging.MaxSize)
	if err != nil {
		return err
	}
	c := &croplayers.CropLayer{ID: id}
	page, err := a.res.CropLayer().Features(r.Context(), c, &pg.Number, &pg.Size)
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]cropFeatureJSON, 0, len(page.Nodes))
	for _, f := range page.Nodes {
		out = append(out, l.cropFeature(f))
	}
	a.writePage(w, r, pageResult{page: pg.Number, size: pg.Size, total: page.TotalCount, count: len(out)}, nil, out)
	return nil
}

func (a *API) getCropFeature(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "cid")
	if err != nil {
		return err
	}
	// Feature ids are fids, which start at 0 in some formats.
	fid, err := strconv.Atoi(chi.URLParam(r, "fid"))
	if err != nil {
		return apperr.ErrNotFound
	}
	f, err := a.res.CropLayer().Feature(r.Context(), &croplayers.CropLayer{ID: id}, fid)
	if err != nil {
		return err
	}
	if f == nil {
		return apperr.ErrNotFound
	}
	writeJSON(w, http.StatusOK, cropFeatureDetailJSON{cropFeatureJSON: a.links(r).cropFeature(f), Geometry: f.Geometry})
	return nil
}
