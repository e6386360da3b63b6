package geoservices

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Export is a MapServer export request, checked: its box in ImageSR
// (ToFrame), the picture's size and format, and which layers it shows.
type Export struct {
	// Box is [xmin, ymin, xmax, ymax] in ImageSR (4326 or 3857).
	Box           [4]float64
	ImageSR       int
	Width, Height int
	// Format is "png" or "jpg".
	Format      string
	Transparent bool
	DPI         float64
	Layers      LayerChoice
	// F is "image", "json" or "pjson".
	F string
}

// LayerChoice is the layers parameter: Op show, hide, include or exclude
// with ids, or Op "" for the layers visible by default.
type LayerChoice struct {
	Op  string
	IDs []int
}

// Shows reports whether the picture shows layer id (every map layer is
// visible by default).
func (c LayerChoice) Shows(id int) bool {
	in := false
	for _, x := range c.IDs {
		in = in || x == id
	}
	switch c.Op {
	case "show":
		return in
	case "hide", "exclude":
		return !in
	}
	return true
}

// acceptedSRs names the spatial references accepted, for messages.
const acceptedSRs = "4326 (WGS 84 longitude, latitude), 3857, 102100, 102113 and 900913 (Web Mercator)"

// parseMapSR reads a map picture's spatial reference parameter: a well-known id or
// {"wkid": ..., "latestWkid": ...}; it returns 4326 or 3857, or an error
// naming what is accepted. Empty gives def.
func parseMapSR(name, s string, def int) (int, *Error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	var wkid int
	if strings.HasPrefix(s, "{") {
		var sr struct {
			WKID       int `json:"wkid"`
			LatestWKID int `json:"latestWkid"`
		}
		if err := json.Unmarshal([]byte(s), &sr); err != nil {
			return 0, BadRequest("Invalid "+name+".", name+" must be a well-known id or {\"wkid\": id}.")
		}
		wkid = sr.WKID
		if wkid == 0 {
			wkid = sr.LatestWKID
		}
	} else {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, BadRequest("Invalid "+name+".", name+" must be a well-known id or {\"wkid\": id}.")
		}
		wkid = n
	}
	switch wkid {
	case 4326:
		return WKIDLonLat, nil
	case 3857, 102100, 102113, 900913:
		return WKIDLatest, nil
	}
	return 0, BadRequest("Unsupported "+name+" "+strconv.Itoa(wkid)+".", name+": accepted are "+acceptedSRs+".")
}

// ParseExport reads an export request's parameters (get returns one, ""
// when absent).
func ParseExport(get func(string) string) (*Export, *Error) {
	e := &Export{Width: DefaultImageSide, Height: DefaultImageSide, Format: "png", DPI: 96, F: "json"}
	switch f := strings.ToLower(strings.TrimSpace(get("f"))); f {
	case "", "json":
	case "image", "pjson":
		e.F = f
	default:
		return nil, BadRequest("Unsupported f "+strconv.Quote(f)+".", "f: accepted are image, json and pjson.")
	}
	bboxSR, perr := parseMapSR("bboxSR", get("bboxSR"), 0)
	if perr != nil {
		return nil, perr
	}
	box, envSR, perr := parseBox(get("bbox"))
	if perr != nil {
		return nil, perr
	}
	if bboxSR == 0 {
		bboxSR = envSR
	}
	if bboxSR == 0 {
		bboxSR = WKIDLatest
	}
	if e.ImageSR, perr = parseMapSR("imageSR", get("imageSR"), bboxSR); perr != nil {
		return nil, perr
	}
	if perr := checkBox(box, bboxSR); perr != nil {
		return nil, perr
	}
	e.Box = convertBox(box, bboxSR, e.ImageSR)
	if s := strings.TrimSpace(get("size")); s != "" {
		w, h, ok := strings.Cut(s, ",")
		wi, err1 := strconv.Atoi(strings.TrimSpace(w))
		hi, err2 := strconv.Atoi(strings.TrimSpace(h))
		if !ok || err1 != nil || err2 != nil || wi < 1 || hi < 1 || wi > MaxImageSide || hi > MaxImageSide {
			return nil, BadRequest("Invalid size "+strconv.Quote(s)+".",
				"size: width,height in pixels, each from 1 to "+strconv.Itoa(MaxImageSide)+".")
		}
		e.Width, e.Height = wi, hi
	}
	switch f := strings.ToLower(strings.TrimSpace(get("format"))); f {
	case "", "png", "png32", "png24", "png8":
	case "jpg", "jpeg":
		e.Format = "jpg"
	default:
		return nil, BadRequest("Unsupported format "+strconv.Quote(f)+".", "format: accepted are png, png32, png24, png8 and jpg.")
	}
	switch t := strings.ToLower(strings.TrimSpace(get("transparent"))); t {
	case "", "false":
	case "true":
		e.Transparent = true
	default:
		return nil, BadRequest("Invalid transparent "+strconv.Quote(t)+".", "transparent: true or false.")
	}
	if s := strings.TrimSpace(get("dpi")); s != "" {
		d, err := strconv.ParseFloat(s, 64)
		if err != nil || !(d >= 1 && d <= 1000) {
			return nil, BadRequest("Invalid dpi "+strconv.Quote(s)+".", "dpi: a number from 1 to 1000.")
		}
		e.DPI = d
	}
	var err *Error
	if e.Layers, err = parseLayers(get("layers")); err != nil {
		return nil, err
	}
	return e, nil
}

// parseBox reads bbox: "xmin,ymin,xmax,ymax" or a JSON envelope (whose
// spatialReference is the box's when bboxSR is absent).
func parseBox(s string) (box [4]float64, sr int, perr *Error) {
	s = strings.TrimSpace(s)
	bad := BadRequest("Invalid bbox.", "bbox: xmin,ymin,xmax,ymax or {\"xmin\": ..., \"ymin\": ..., \"xmax\": ..., \"ymax\": ...}, the minimum below the maximum on both axes.")
	if s == "" {
		return box, 0, BadRequest("bbox is required.", bad.Details...)
	}
	if strings.HasPrefix(s, "{") {
		var env struct {
			XMin, YMin, XMax, YMax *float64
			SpatialReference       json.RawMessage `json:"spatialReference"`
		}
		if err := json.Unmarshal([]byte(s), &env); err != nil || env.XMin == nil || env.YMin == nil || env.XMax == nil || env.YMax == nil {
			return box, 0, bad
		}
		box = [4]float64{*env.XMin, *env.YMin, *env.XMax, *env.YMax}
		if len(env.SpatialReference) > 0 {
			if sr, perr = parseMapSR("bbox spatialReference", string(env.SpatialReference), 0); perr != nil {
				return box, 0, perr
			}
		}
	} else {
		parts := strings.Split(s, ",")
		if len(parts) != 4 {
			return box, 0, bad
		}
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return box, 0, bad
			}
			box[i] = v
		}
	}
	for _, v := range box {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return box, 0, bad
		}
	}
	if !(box[0] < box[2] && box[1] < box[3]) {
		return box, 0, bad
	}
	return box, sr, nil
}

// checkBox refuses a box outside its CRS's range.
func checkBox(b [4]float64, sr int) *Error {
	lim := [2]float64{360, 90}
	if sr == WKIDLatest {
		lim = [2]float64{2 * mercatorHalf, 2 * mercatorHalf}
	}
	if math.Abs(b[0]) > lim[0] || math.Abs(b[2]) > lim[0] || math.Abs(b[1]) > lim[1] || math.Abs(b[3]) > lim[1] {
		return BadRequest("Invalid bbox: outside the range of its spatial reference.",
			"bbox: within -180 to 180 (-360 to 360 across the antimeridian) and -90 to 90 in 4326, within ±40075016.69 in 3857.")
	}
	return nil
}

// convertBox is box (in from) in to: its corners projected.
func convertBox(b [4]float64, from, to int) [4]float64 {
	switch {
	case from == to:
		return b
	case to == WKIDLatest:
		x0, y0 := toMercator(b[0], b[1])
		x1, y1 := toMercator(b[2], b[3])
		return [4]float64{x0, y0, x1, y1}
	default:
		w, s := toLonLat(b[0], b[1])
		e, n := toLonLat(b[2], b[3])
		return [4]float64{w, s, e, n}
	}
}

func toLonLat(x, y float64) (float64, float64) {
	return x / mercatorHalf * 180, (2*math.Atan(math.Exp(y/6378137)) - math.Pi/2) * 180 / math.Pi
}

// parseLayers reads "show:0,1" (also hide, include, exclude).
func parseLayers(s string) (LayerChoice, *Error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return LayerChoice{}, nil
	}
	bad := BadRequest("Invalid layers "+strconv.Quote(s)+".", "layers: show:, hide:, include: or exclude: followed by layer ids separated by commas.")
	op, list, ok := strings.Cut(s, ":")
	op = strings.ToLower(strings.TrimSpace(op))
	if !ok || (op != "show" && op != "hide" && op != "include" && op != "exclude") {
		return LayerChoice{}, bad
	}
	c := LayerChoice{Op: op, IDs: []int{}}
	for p := range strings.SplitSeq(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return LayerChoice{}, bad
		}
		c.IDs = append(c.IDs, n)
	}
	return c, nil
}

// Scale is the map scale of an export's picture at its dpi: its pixel
// size on the ground (Web Mercator metres; degrees at the equator in
// 4326) over the size of a printed pixel.
func (e *Export) Scale() float64 {
	res := (e.Box[2] - e.Box[0]) / float64(e.Width)
	if e.ImageSR == WKIDLonLat {
		res *= math.Pi * 6378137 / 180
	}
	return res * e.DPI / 0.0254
}

// ExportResult is an export's f=json answer: where the picture is, its
// size, extent and scale.
type ExportResult struct {
	Href   string  `json:"href"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Extent Extent  `json:"extent"`
	Scale  float64 `json:"scale"`
}

// Result is the f=json answer whose picture is at href.
func (e *Export) Result(href string) ExportResult {
	sr := WebMercatorSR
	if e.ImageSR == WKIDLonLat {
		sr = LonLatSR
	}
	return ExportResult{Href: href, Width: e.Width, Height: e.Height, Scale: e.Scale(),
		Extent: Extent{e.Box[0], e.Box[1], e.Box[2], e.Box[3], sr}}
}
