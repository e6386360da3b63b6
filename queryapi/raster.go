package queryapi

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/usage"
)

// rasterAPI is the raster query: version 1, JSON only.
var rasterAPI = api{name: "rasterQuery", versions: []string{"1.0"}}

// pointParams are the layers and point of a raster query.
type pointParams struct {
	layers []int
	x, y   float64
}

// parseRaster reads a raster query's parameters: layer (required,
// repeatable, at most maxLayers), x and y (required, EPSG:4326 degrees).
func parseRaster(q url.Values) (pointParams, error) {
	var p pointParams
	var err error
	if p.layers, err = layerIDs(q); err != nil {
		return p, err
	}
	if p.x, err = coordinate(q, "x", 180); err != nil {
		return p, err
	}
	p.y, err = coordinate(q, "y", 90)
	return p, err
}

// gridResult is one layer's answer to a raster query.
type gridResult struct {
	id     int
	layer  *Layer
	sample grids.Sample
	err    string
}

// raster serves the raster query for a URL suffix ("" or "json").
//
// Response (rasterQuery version 1), one entry per layer asked for, keyed
// by layer id:
//
//	{"rasterQuery": {"layers": {"<id>": {
//	    "id": 7, "title": "Elevation", "type": "grid",      // or "raster"
//	    "crs": {"type": "name", "properties": {"name": "EPSG:2193"}},
//	    "inside": true,                                     // the point is on the grid
//	    "cell": {"column": 120, "row": 48},                 // when inside
//	    "bands": [{"band": 1, "name": "height", "type": "Float32",
//	               "nodata": -9999, "value": 12.5}]         // value null: nodata or outside
//	}}}}
//
// A layer that does not exist, is not published, is not a grid or
// raster, or whose spatial-query-grid service the caller may not use
// answers {"error": "..."} alike; when no layer could be answered the
// status is 404.
func (s *Service) raster(suffix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rp, ok := s.start(w, r, rasterAPI, suffix)
		if !ok {
			return
		}
		p, err := parseRaster(rp.query)
		if err != nil {
			rp.fail(http.StatusBadRequest, err.Error())
			return
		}
		v, err := s.viewer(r)
		if err != nil {
			s.internal(rp, r, err)
			return
		}
		results := make([]gridResult, len(p.layers))
		answered := 0
		for i, id := range p.layers {
			l, err := s.queryable(r, v, id, serviceGrid)
			if err != nil {
				s.internal(rp, r, err)
				return
			}
			if results[i], err = s.sampleLayer(r.Context(), id, l, p.x, p.y); err != nil {
				s.internal(rp, r, err)
				return
			}
			if results[i].err == "" {
				answered++
				usage.Served(w, usage.Layer, id, usage.QueryGrid, usage.Amounts{})
			}
		}
		if answered == 0 && len(results) == 1 {
			rp.fail(http.StatusNotFound, results[0].err)
			return
		}
		var b bytes.Buffer
		b.WriteString(`{"rasterQuery":{"layers":{`)
		for i, res := range results {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strconv.Itoa(res.id) + `":`)
			writeGridResult(&b, res)
		}
		b.WriteString(`}}}`)
		status := http.StatusOK
		if answered == 0 {
			status = http.StatusNotFound
		}
		rp.send(status, b.Bytes())
	}
}

// sampleLayer samples one grid layer (nil: not available to the caller).
func (s *Service) sampleLayer(ctx context.Context, id int, l *Layer, x, y float64) (gridResult, error) {
	res := gridResult{id: id, layer: l}
	if l == nil {
		res.err = "Layer " + strconv.Itoa(id) + " was not found or is not available for raster queries."
		return res, nil
	}
	smp, err := s.grids.At(ctx, l.VersionID, x, y)
	res.sample = smp
	return res, err
}

// writeGridResult writes one layer's raster-query answer.
func writeGridResult(b *bytes.Buffer, res gridResult) {
	if res.err != "" {
		b.WriteString(`{"error":`)
		featureindex.WriteJSONString(b, res.err)
		b.WriteByte('}')
		return
	}
	l := res.layer
	b.WriteString(`{"id":` + strconv.Itoa(l.ID) + `,"title":`)
	featureindex.WriteJSONString(b, l.Title)
	b.WriteString(`,"type":`)
	featureindex.WriteJSONString(b, string(l.Kind))
	b.WriteString(`,"crs":{"type":"name","properties":{"name":`)
	featureindex.WriteJSONString(b, l.CRS)
	b.WriteString(`}},"inside":` + strconv.FormatBool(res.sample.Inside))
	if res.sample.Inside {
		b.WriteString(`,"cell":{"column":` + strconv.Itoa(res.sample.Column) + `,"row":` + strconv.Itoa(res.sample.Row) + `}`)
	}
	b.WriteString(`,"bands":[`)
	for i, band := range l.Bands {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"band":` + strconv.Itoa(band.Index) + `,"name":`)
		featureindex.WriteJSONString(b, band.Name)
		b.WriteString(`,"type":`)
		featureindex.WriteJSONString(b, band.DataType)
		if band.NoData != nil {
			b.WriteString(`,"nodata":` + formatCell(*band.NoData, band.DataType))
		}
		b.WriteString(`,"value":`)
		if i < len(res.sample.Values) && res.sample.Values[i] != nil {
			b.WriteString(formatCell(*res.sample.Values[i], band.DataType))
		} else {
			b.WriteString("null")
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
}

// formatCell writes a cell value as a JSON number at its band's
// precision: integers as integers, Float32 with the digits a float32
// holds (12.3, not 12.300000190734863). Non-finite values are null.
func formatCell(v float64, dataType string) string {
	if v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308 {
		return "null"
	}
	switch dataType {
	case "Float32", "CFloat32":
		return strconv.FormatFloat(v, 'g', -1, 32)
	case "Float64", "CFloat64":
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
