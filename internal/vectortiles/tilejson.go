package vectortiles

import (
	"context"
	"math"
	"strconv"

	"github.com/geopub/geopub/internal/access"
)

// Zoom levels TileJSON announces. Tiles are served to MaxZoom; beyond
// TileJSONMaxZoom clients overzoom (the grid is then finer than 0.6 m).
const (
	TileJSONMinZoom = 0
	TileJSONMaxZoom = 16
)

// TileJSON is a TileJSON 3.0.0 document.
type TileJSON struct {
	TileJSON     string        `json:"tilejson"`
	Name         string        `json:"name,omitempty"`
	Description  string        `json:"description,omitempty"`
	Version      string        `json:"version,omitempty"`
	Scheme       string        `json:"scheme"`
	Tiles        []string      `json:"tiles"`
	MinZoom      int           `json:"minzoom"`
	MaxZoom      int           `json:"maxzoom"`
	Bounds       [4]float64    `json:"bounds"`
	Center       [3]float64    `json:"center"`
	VectorLayers []VectorLayer `json:"vector_layers"`
	// ETag validates the document (not part of TileJSON).
	ETag string `json:"-"`
}

// VectorLayer describes one MVT layer of the tiles.
type VectorLayer struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	MinZoom     int               `json:"minzoom"`
	MaxZoom     int               `json:"maxzoom"`
	Fields      map[string]string `json:"fields"`
}

// LayerTileJSON describes layer id's tiles, whose URL template is tiles.
func (s *Service) LayerTileJSON(ctx context.Context, v *access.Viewer, id int, tiles string) (*TileJSON, error) {
	l, err := s.usableLayer(ctx, v, id, ServiceTileJSON, ServiceMVT, ServiceTiles)
	if err != nil {
		return nil, err
	}
	return s.tileJSON(ctx, l.Title, "v"+strconv.Itoa(l.VersionID), tiles, []*Layer{l})
}

// SetTileJSON describes set id's tiles as v may see them.
func (s *Service) SetTileJSON(ctx context.Context, v *access.Viewer, id int, tiles string) (*TileJSON, error) {
	p, ls, err := s.usableSet(ctx, v, id, ServiceTileJSON, ServiceTiles)
	if err != nil {
		return nil, err
	}
	return s.tileJSON(ctx, p.title, setETag(p, ls), tiles, ls)
}

func (s *Service) tileJSON(ctx context.Context, name, etag, tiles string, ls []*Layer) (*TileJSON, error) {
	tj := &TileJSON{TileJSON: "3.0.0", Name: name, Version: "1.0.0", Scheme: "xyz", Tiles: []string{tiles},
		MinZoom: TileJSONMinZoom, MaxZoom: TileJSONMaxZoom, ETag: "tj-" + etag, VectorLayers: []VectorLayer{}}
	var box [4]float64
	any := false
	for _, l := range ls {
		fields := map[string]string{}
		for _, f := range l.Fields {
			if t := fieldType(f.Type); t != "" {
				fields[f.Name] = t
			}
		}
		tj.VectorLayers = append(tj.VectorLayers, VectorLayer{ID: LayerName(l.ID), Description: l.Title,
			MinZoom: TileJSONMinZoom, MaxZoom: TileJSONMaxZoom, Fields: fields})
		e, err := s.versionExtent(ctx, l.VersionID)
		if err != nil {
			return nil, err
		}
		if !e.ok {
			continue
		}
		if !any {
			box, any = e.box, true
			continue
		}
		box = [4]float64{math.Min(box[0], e.box[0]), math.Min(box[1], e.box[1]), math.Max(box[2], e.box[2]), math.Max(box[3], e.box[3])}
	}
	if !any {
		box = [4]float64{-180, -maxLat, 180, maxLat}
	}
	box[1], box[3] = math.Max(box[1], -maxLat), math.Min(box[3], maxLat)
	tj.Bounds = box
	tj.Center = [3]float64{(box[0] + box[2]) / 2, (box[1] + box[3]) / 2, float64(centerZoom(box))}
	return tj, nil
}

// centerZoom is the deepest zoom at which the box fits in about one tile.
func centerZoom(box [4]float64) int {
	w := math.Max(box[2]-box[0], box[3]-box[1])
	if w <= 0 {
		return 14
	}
	z := int(math.Floor(math.Log2(360 / w)))
	return max(0, min(z, 14))
}

// fieldType is a TileJSON field description of a stored field type, ""
// for geometry.
func fieldType(t string) string {
	switch t {
	case "geometry":
		return ""
	case "integer", "double":
		return "Number"
	case "boolean":
		return "Boolean"
	}
	return "String"
}
