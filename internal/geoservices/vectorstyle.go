package geoservices

// The colours a VectorTileServer's root style draws in: the map
// preview's defaults (web/mappreview, whose test checks they agree).
const (
	StyleBackground  = "#f4f2ec"
	StyleFillColor   = "#d9480f"
	StyleFillOpacity = 0.6
	StyleLineColor   = "#1c5fb8"
	StylePointColor  = "#2b8a3e"
)

// Style is a Mapbox GL style (version 8), as Esri's vector tile services
// give at resources/styles/root.json and MapLibre reads.
type Style struct {
	Version int                    `json:"version"`
	Name    string                 `json:"name"`
	Sources map[string]StyleSource `json:"sources"`
	Layers  []map[string]any       `json:"layers"`
}

// StyleSource is a vector source and its tiles (absolute URLs: no url
// to the service, whose relative tiles MapLibre would not resolve).
type StyleSource struct {
	Type    string   `json:"type"`
	Tiles   []string `json:"tiles"`
	MinZoom int      `json:"minzoom"`
	MaxZoom int      `json:"maxzoom"`
}

// StyleSourceName is the name of the style's one source, as Esri's root
// styles name it.
const StyleSourceName = "esri"

// NewStyle is the root style of a vector tile service titled title,
// whose tiles (an absolute URL template, {z}/{y}/{x} or {z}/{x}/{y})
// hold MVT layer sourceLayer, made to maxZoom: polygons filled and
// outlined, lines and points drawn as the map preview draws them.
func NewStyle(title, tiles, sourceLayer string, maxZoom int) Style {
	polygons := []any{"match", []any{"geometry-type"}, []any{"Polygon", "MultiPolygon"}, true, false}
	lines := []any{"match", []any{"geometry-type"}, []any{"LineString", "MultiLineString"}, true, false}
	points := []any{"match", []any{"geometry-type"}, []any{"Point", "MultiPoint"}, true, false}
	layer := func(id, typ string, filter []any, paint map[string]any) map[string]any {
		return map[string]any{"id": sourceLayer + "-" + id, "type": typ, "source": StyleSourceName,
			"source-layer": sourceLayer, "filter": filter, "paint": paint}
	}
	return Style{Version: 8, Name: title,
		Sources: map[string]StyleSource{StyleSourceName: {Type: "vector", Tiles: []string{tiles}, MaxZoom: maxZoom}},
		Layers: []map[string]any{
			{"id": "background", "type": "background", "paint": map[string]any{"background-color": StyleBackground}},
			layer("fill", "fill", polygons, map[string]any{"fill-color": StyleFillColor, "fill-opacity": StyleFillOpacity}),
			layer("outline", "line", polygons, map[string]any{"line-color": StyleFillColor, "line-width": 1}),
			layer("line", "line", lines, map[string]any{"line-color": StyleLineColor, "line-width": 2}),
			layer("point", "circle", points, map[string]any{"circle-color": StylePointColor, "circle-radius": 4,
				"circle-stroke-color": "#ffffff", "circle-stroke-width": 1}),
		}}
}
