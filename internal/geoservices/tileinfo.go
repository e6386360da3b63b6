package geoservices

import "math"

// Web Mercator as GeoServices names it: 102100 is Esri's well-known id,
// 3857 the EPSG one it stands for.
const (
	WKIDWebMercator = 102100
	WKIDLatest      = 3857
	WKIDLonLat      = 4326
)

// SpatialReference is a GeoServices spatial reference.
type SpatialReference struct {
	WKID       int `json:"wkid"`
	LatestWKID int `json:"latestWkid,omitempty"`
}

// WebMercatorSR is the spatial reference of every map and tile service.
var WebMercatorSR = SpatialReference{WKID: WKIDWebMercator, LatestWKID: WKIDLatest}

// LonLatSR is WGS 84 longitude and latitude.
var LonLatSR = SpatialReference{WKID: WKIDLonLat, LatestWKID: WKIDLonLat}

// Extent is a GeoServices envelope.
type Extent struct {
	XMin             float64          `json:"xmin"`
	YMin             float64          `json:"ymin"`
	XMax             float64          `json:"xmax"`
	YMax             float64          `json:"ymax"`
	SpatialReference SpatialReference `json:"spatialReference"`
}

// mercatorHalf is half the width of the Web Mercator world in metres.
const mercatorHalf = 20037508.342789244

// maxLat is Web Mercator's latitude limit.
const maxLat = 85.0511287798066

// MercatorExtent is a [west, south, east, north] box in degrees as a Web
// Mercator extent (latitudes clamped to the projection's range); the
// whole world when ok is false.
func MercatorExtent(box [4]float64, ok bool) Extent {
	if !ok {
		return Extent{-mercatorHalf, -mercatorHalf, mercatorHalf, mercatorHalf, WebMercatorSR}
	}
	x0, y0 := toMercator(box[0], box[1])
	x1, y1 := toMercator(box[2], box[3])
	return Extent{x0, y0, x1, y1, WebMercatorSR}
}

func toMercator(lon, lat float64) (float64, float64) {
	lat = math.Max(-maxLat, math.Min(maxLat, lat))
	return lon * mercatorHalf / 180, 6378137 * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
}

// LOD is one level of a tiling scheme.
type LOD struct {
	Level      int     `json:"level"`
	Resolution float64 `json:"resolution"`
	Scale      float64 `json:"scale"`
}

// The level-0 resolution (metres per pixel) and scale ArcGIS Online's
// Web Mercator tiling scheme gives (96 dpi); each level halves them.
const (
	resolution0 = 156543.03392800014
	scale0      = 591657527.591555
)

// LODs are the levels 0 to maxZoom of ArcGIS Online's Web Mercator
// tiling scheme, which Geopub's XYZ tiles follow.
func LODs(maxZoom int) []LOD {
	out := make([]LOD, maxZoom+1)
	for z := range out {
		f := math.Exp2(float64(z))
		out[z] = LOD{Level: z, Resolution: resolution0 / f, Scale: scale0 / f}
	}
	return out
}

// Point is a GeoServices point (the tiling scheme's origin).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// TileInfo is a service's tiling scheme.
type TileInfo struct {
	Rows               int              `json:"rows"`
	Cols               int              `json:"cols"`
	DPI                int              `json:"dpi"`
	Format             string           `json:"format"`
	CompressionQuality int              `json:"compressionQuality"`
	Origin             Point            `json:"origin"`
	SpatialReference   SpatialReference `json:"spatialReference"`
	LODs               []LOD            `json:"lods"`
}

// TileOrigin is the top left corner of the Web Mercator tiling scheme as
// ArcGIS writes it.
var TileOrigin = Point{X: -20037508.342787, Y: 20037508.342787}

// WebMercatorTileInfo is the 256-pixel Web Mercator tiling scheme, levels
// 0 to maxZoom, of tiles in format (PNG32, JPEG, ...).
func WebMercatorTileInfo(format string, maxZoom int) TileInfo {
	return TileInfo{Rows: 256, Cols: 256, DPI: 96, Format: format, Origin: TileOrigin,
		SpatialReference: WebMercatorSR, LODs: LODs(maxZoom)}
}

// VectorTileInfo is the tiling scheme of vector tiles as Esri's vector
// tile services give it: 512-pixel tiles, so each level's resolution is
// half the 256-pixel scheme's, and tile z/y/x covers what XYZ tile z/x/y
// does.
func VectorTileInfo(maxZoom int) TileInfo {
	ti := TileInfo{Rows: 512, Cols: 512, DPI: 96, Format: "pbf", Origin: TileOrigin,
		SpatialReference: WebMercatorSR, LODs: LODs(maxZoom)}
	for i := range ti.LODs {
		ti.LODs[i].Resolution /= 2
		ti.LODs[i].Scale /= 2
	}
	return ti
}
