package rastertiles

import (
	"context"
	"math"
	"strconv"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/vectortiles"
)

// Zoom levels described. Vector layers are drawn to any zoom tiles are
// served at; grids are described to the first zoom finer than their
// cells.
const (
	MinZoom       = 0
	MaxZoom       = 22
	VectorMaxZoom = 20
	// maxLat is Web Mercator's latitude limit.
	maxLat = 85.0511287798066
)

// Source is a layer's or a set's tiles as TileJSON and WMTS describe them.
type Source struct {
	// Name is layer-N or set-N (the WMTS layer identifier).
	Name, Title string
	// Bounds is [west, south, east, north] (EPSG:4326, within Web
	// Mercator's latitudes).
	Bounds  [4]float64
	MaxZoom int
	// ETag validates the description (the versions it describes).
	ETag string
}

// LayerSource describes layer id's tiles, if v may use it through the
// tiles service and every one of svcs.
func (s *Service) LayerSource(ctx context.Context, v *access.Viewer, id int, svcs ...string) (*Source, error) {
	l, err := s.vt.UsableLayer(ctx, v, id, append(svcs, ServiceTiles)...)
	if err != nil {
		return nil, notFound(err)
	}
	return s.source(ctx, "layer-"+strconv.Itoa(id), l.Title, "v"+strconv.Itoa(l.VersionID), []*vectortiles.Layer{l})
}

// SetSource describes set id's tiles, if v may use it through the tiles
// service and every one of svcs; its members are those v may use.
func (s *Service) SetSource(ctx context.Context, v *access.Viewer, id int, svcs ...string) (*Source, error) {
	set, ls, err := s.vt.UsableSet(ctx, v, id, append(svcs, ServiceTiles), []string{ServiceTiles})
	if err != nil {
		return nil, notFound(err)
	}
	return s.source(ctx, "set-"+strconv.Itoa(id), set.Title, set.ETag, ls)
}

func (s *Service) source(ctx context.Context, name, title, etag string, ls []*vectortiles.Layer) (*Source, error) {
	src := &Source{Name: name, Title: title, ETag: etag}
	found := false
	for _, l := range ls {
		src.MaxZoom = max(src.MaxZoom, maxZoomOf(l))
		b, ok, err := s.vt.Bounds(ctx, l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if !found {
			src.Bounds, found = b, true
			continue
		}
		src.Bounds = [4]float64{math.Min(src.Bounds[0], b[0]), math.Min(src.Bounds[1], b[1]),
			math.Max(src.Bounds[2], b[2]), math.Max(src.Bounds[3], b[3])}
	}
	if !found {
		src.Bounds = [4]float64{-180, -maxLat, 180, maxLat}
	}
	src.Bounds[1], src.Bounds[3] = math.Max(src.Bounds[1], -maxLat), math.Min(src.Bounds[3], maxLat)
	if len(ls) == 0 {
		src.MaxZoom = VectorMaxZoom
	}
	return src, nil
}

// maxZoomOf is the deepest zoom a layer is described to: vector layers
// VectorMaxZoom, grids the first zoom whose pixels are no larger than
// their cells.
func maxZoomOf(l *vectortiles.Layer) int {
	if l.Kind == layer.KindVector || len(l.Extent) != 4 || l.Width <= 0 {
		return VectorMaxZoom
	}
	lat := (l.Extent[1] + l.Extent[3]) / 2 * math.Pi / 180
	cell := (l.Extent[2] - l.Extent[0]) / float64(l.Width) * math.Pi / 180 * 6378137 * math.Cos(lat)
	if cell <= 0 {
		return VectorMaxZoom
	}
	// A pixel at zoom z spans 2π·6378137/(256·2^z) metres of Mercator,
	// cos(lat) of that on the ground.
	z := math.Ceil(math.Log2(2 * math.Pi * 6378137 * math.Cos(lat) / Size / cell))
	return int(math.Max(MinZoom, math.Min(MaxZoom, z)))
}

// TileJSON is a raster TileJSON 3.0.0 document.
type TileJSON struct {
	TileJSON    string     `json:"tilejson"`
	Name        string     `json:"name,omitempty"`
	Version     string     `json:"version"`
	Scheme      string     `json:"scheme"`
	Tiles       []string   `json:"tiles"`
	MinZoom     int        `json:"minzoom"`
	MaxZoom     int        `json:"maxzoom"`
	Bounds      [4]float64 `json:"bounds"`
	Center      [3]float64 `json:"center"`
	Format      string     `json:"format"`
	TileSize    int        `json:"tileSize"`
	Attribution string     `json:"attribution,omitempty"`
}

// TileJSONOf is src's TileJSON, with tiles the URL template of its tiles.
func TileJSONOf(src *Source, tiles string, f Format) *TileJSON {
	b := src.Bounds
	return &TileJSON{TileJSON: "3.0.0", Name: src.Title, Version: "1.0.0", Scheme: "xyz", Tiles: []string{tiles},
		MinZoom: MinZoom, MaxZoom: src.MaxZoom, Bounds: b, Format: string(f), TileSize: Size,
		Center: [3]float64{(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, float64(centerZoom(b, src.MaxZoom))}}
}

// centerZoom is the deepest zoom at which the box fits in about one
// tile, at most maxZoom.
func centerZoom(box [4]float64, maxZoom int) int {
	w := math.Max(box[2]-box[0], box[3]-box[1])
	if w <= 0 {
		return min(14, maxZoom)
	}
	return max(0, min(int(math.Floor(math.Log2(360/w))), 14, maxZoom))
}
