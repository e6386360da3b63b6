package geoservices

// What a map service (MapServer) of a layer or set announces. A layer's
// service has one map layer, id 0; a set's has one per member, its id
// the member's place in the set (0 for the first), members the caller
// may not use left out, so an id names the same member for every caller.

// The limits of a map service's pictures (export).
const (
	MaxImageSide     = 4096
	DefaultImageSide = 400
)

// MapLayer is one layer of a map service.
type MapLayer struct {
	ID                int     `json:"id"`
	Name              string  `json:"name"`
	ParentLayerID     int     `json:"parentLayerId"`
	DefaultVisibility bool    `json:"defaultVisibility"`
	SubLayerIDs       []int   `json:"subLayerIds"`
	MinScale          float64 `json:"minScale"`
	MaxScale          float64 `json:"maxScale"`
	Type              string  `json:"type"`
	GeometryType      string  `json:"geometryType,omitempty"`
}

// NewMapLayer is map layer id named name: a feature layer of geometry
// type geometryType (internal/ingest's names: point, multipolygon, ...)
// or, when raster is set, a raster layer.
func NewMapLayer(id int, name, geometryType string, raster bool) MapLayer {
	l := MapLayer{ID: id, Name: name, ParentLayerID: -1, DefaultVisibility: true, Type: "Feature Layer",
		GeometryType: EsriGeometryType(geometryType)}
	if raster {
		l.Type, l.GeometryType = "Raster Layer", ""
	}
	return l
}

// EsriGeometryType is the GeoServices name of a geometry type
// (internal/ingest's names), "" for none or a mix.
func EsriGeometryType(t string) string {
	switch t {
	case "point":
		return "esriGeometryPoint"
	case "multipoint":
		return "esriGeometryMultipoint"
	case "linestring", "multilinestring":
		return "esriGeometryPolyline"
	case "polygon", "multipolygon":
		return "esriGeometryPolygon"
	}
	return ""
}

// MapServer is a map service's root document.
type MapServer struct {
	CurrentVersion            float64          `json:"currentVersion"`
	ServiceDescription        string           `json:"serviceDescription"`
	MapName                   string           `json:"mapName"`
	Description               string           `json:"description"`
	CopyrightText             string           `json:"copyrightText"`
	SupportsDynamicLayers     bool             `json:"supportsDynamicLayers"`
	Layers                    []MapLayer       `json:"layers"`
	Tables                    []any            `json:"tables"`
	SpatialReference          SpatialReference `json:"spatialReference"`
	SingleFusedMapCache       bool             `json:"singleFusedMapCache"`
	TileInfo                  TileInfo         `json:"tileInfo"`
	InitialExtent             Extent           `json:"initialExtent"`
	FullExtent                Extent           `json:"fullExtent"`
	MinScale                  float64          `json:"minScale"`
	MaxScale                  float64          `json:"maxScale"`
	Units                     string           `json:"units"`
	SupportedImageFormatTypes string           `json:"supportedImageFormatTypes"`
	DocumentInfo              map[string]any   `json:"documentInfo"`
	Capabilities              string           `json:"capabilities"`
	SupportedQueryFormats     string           `json:"supportedQueryFormats"`
	ExportTilesAllowed        bool             `json:"exportTilesAllowed"`
	MaxRecordCount            int              `json:"maxRecordCount"`
	MaxImageHeight            int              `json:"maxImageHeight"`
	MaxImageWidth             int              `json:"maxImageWidth"`
	SupportedExtensions       string           `json:"supportedExtensions"`
}

// NewMapServer is the root document of a map service titled title with
// layers, over box ([west, south, east, north] in degrees; the world
// when hasBox is false), its tiles cached to level maxZoom.
func NewMapServer(title string, layers []MapLayer, box [4]float64, hasBox bool, maxZoom int) MapServer {
	if layers == nil {
		layers = []MapLayer{}
	}
	ext := MercatorExtent(box, hasBox)
	lods := LODs(maxZoom)
	return MapServer{CurrentVersion: CurrentVersion, MapName: title, Layers: layers, Tables: []any{},
		SpatialReference: WebMercatorSR, SingleFusedMapCache: true, TileInfo: WebMercatorTileInfo("PNG32", maxZoom),
		InitialExtent: ext, FullExtent: ext, MinScale: lods[0].Scale, MaxScale: lods[len(lods)-1].Scale,
		Units: "esriMeters", SupportedImageFormatTypes: "PNG32,PNG24,PNG,PNG8,JPG",
		DocumentInfo: map[string]any{"Title": title}, Capabilities: "Map,Query",
		SupportedQueryFormats: "JSON, geoJSON, PBF", MaxRecordCount: 2000,
		MaxImageHeight: MaxImageSide, MaxImageWidth: MaxImageSide}
}

// VectorTileServer is a vector tile service's root document.
type VectorTileServer struct {
	CurrentVersion          float64        `json:"currentVersion"`
	Name                    string         `json:"name"`
	Capabilities            string         `json:"capabilities"`
	Type                    string         `json:"type"`
	DefaultStyles           string         `json:"defaultStyles"`
	Tiles                   []string       `json:"tiles"`
	ExportTilesAllowed      bool           `json:"exportTilesAllowed"`
	InitialExtent           Extent         `json:"initialExtent"`
	FullExtent              Extent         `json:"fullExtent"`
	MinScale                float64        `json:"minScale"`
	MaxScale                float64        `json:"maxScale"`
	TileInfo                TileInfo       `json:"tileInfo"`
	MaxZoom                 int            `json:"maxzoom"`
	MinLOD                  int            `json:"minLOD"`
	MaxLOD                  int            `json:"maxLOD"`
	ResourceInfo            map[string]any `json:"resourceInfo"`
	SupportsClientRendering bool           `json:"supportsClientRendering"`
}

// NewVectorTileServer is the root document of a vector tile service
// titled title over box (as NewMapServer's), its tiles made to level
// maxZoom.
func NewVectorTileServer(title string, box [4]float64, hasBox bool, maxZoom int) VectorTileServer {
	ext := MercatorExtent(box, hasBox)
	ti := VectorTileInfo(maxZoom)
	return VectorTileServer{CurrentVersion: CurrentVersion, Name: title, Capabilities: "TilesOnly", Type: "indexedVector",
		DefaultStyles: "resources/styles", Tiles: []string{"tile/{z}/{y}/{x}.pbf"}, InitialExtent: ext, FullExtent: ext,
		MinScale: ti.LODs[0].Scale, MaxScale: ti.LODs[len(ti.LODs)-1].Scale, TileInfo: ti, MaxZoom: maxZoom,
		MaxLOD: maxZoom, ResourceInfo: map[string]any{"styleVersion": 8, "tileCompression": "none"},
		SupportsClientRendering: true}
}
