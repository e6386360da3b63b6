package queryapi

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"strconv"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"

	"github.com/geopub/geopub/internal/featureindex"
	"github.com/geopub/geopub/internal/featurerows"
)

// layerResult is one layer's answer to a vector query: its hits, or an
// error message.
type layerResult struct {
	id    int
	layer *Layer
	ix    *featureindex.Index
	hits  []Hit
	err   string
}

// The gmaps format's zoom levels: every vertex is given the top level, so
// every vertex shows at every zoom.
const (
	polyNumLevels  = 18
	polyZoomFactor = 2
)

// propertyPairs reads an orderedProperties object back into names and
// values, in order (for the XML format).
func propertyPairs(obj []byte) ([]string, []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var names []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		names, vals = append(names, name), append(vals, v)
	}
	return names, vals
}

// formatDistance renders metres with centimetre precision.
func formatDistance(d float64) string {
	return strconv.FormatFloat(math.Round(d*100)/100, 'f', -1, 64)
}

// appendDistance writes formatDistance(d) without allocating.
func appendDistance(b *bytes.Buffer, d float64) {
	var scratch [32]byte
	b.Write(strconv.AppendFloat(scratch[:0], math.Round(d*100)/100, 'f', -1, 64))
}

// appendInt writes n without allocating.
func appendInt(b *bytes.Buffer, n int64) {
	var scratch [20]byte
	b.Write(strconv.AppendInt(scratch[:0], n, 10))
}

// writeProperties writes a feature's attributes as a JSON object in the
// layer's field order, those of date fields as dates.
func writeProperties(b *bytes.Buffer, r layerResult, item int) {
	b.Write(r.attrs(item))
}

// attrs are a hit's stored attributes as served: date fields as dates
// (older imports stored them as midnight UTC).
func (r layerResult) attrs(item int) []byte {
	return featurerows.ServeDates(r.ix.Attrs(item), r.layer.Dates)
}

// writeLayerKey writes a layer's key in the layers object and, for a
// layer that failed, its error object; it reports whether it did.
func writeLayerKey(b *bytes.Buffer, r layerResult) bool {
	b.WriteString(`"` + strconv.Itoa(r.id) + `":`)
	if r.err == "" {
		return false
	}
	b.WriteString(`{"error":`)
	featureindex.WriteJSONString(b, r.err)
	b.WriteByte('}')
	return true
}

// writeFieldNames adds the ordered field names when asked for (1.1).
func writeFieldNames(b *bytes.Buffer, r layerResult, p vectorParams) {
	if p.withFieldNames {
		b.WriteString(`,"field_names":`)
		enc, _ := json.Marshal(r.layer.Fields)
		b.Write(enc)
	}
}

// encodeVectorJSON writes the json format: vectorQuery.layers.<id> with a
// GeoJSON FeatureCollection per layer.
func encodeVectorJSON(b *bytes.Buffer, results []layerResult, p vectorParams) {
	b.WriteString(`{"vectorQuery":{"layers":{`)
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		if writeLayerKey(b, r) {
			continue
		}
		writeFeatureCollection(b, r, p)
	}
	b.WriteString(`}}}`)
}

// writeFeatureCollection writes one layer's hits as a GeoJSON
// FeatureCollection with distances (and field names when asked for).
func writeFeatureCollection(b *bytes.Buffer, r layerResult, p vectorParams) {
	b.WriteString(`{"crs":{"type":"name","properties":{"name":"EPSG:4326"}},"type":"FeatureCollection","features":[`)
	for j, h := range r.hits {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"distance":`)
		appendDistance(b, h.Distance)
		b.WriteString(`,"type":"Feature","id":`)
		appendInt(b, r.ix.FID(h.Item))
		b.WriteString(`,"properties":`)
		writeProperties(b, r, h.Item)
		if p.geometry {
			b.WriteString(`,"geometry":`)
			if g, err := geometry(r.ix, h.Item); err == nil {
				if enc, err := geojson.Marshal(g); err == nil {
					b.Write(enc)
				} else {
					b.WriteString("null")
				}
			} else {
				b.WriteString("null")
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	writeFieldNames(b, r, p)
	b.WriteByte('}')
}

// encodeVectorGmaps writes the json-gmaps format: each feature's
// geometries as [points, levels] encoded polylines.
func encodeVectorGmaps(b *bytes.Buffer, results []layerResult, p vectorParams) {
	b.WriteString(`{"vectorQuery":{"polyNumLevels":` + strconv.Itoa(polyNumLevels) + `,"polyZoomFactor":` + strconv.Itoa(polyZoomFactor) + `,"layers":{`)
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		if writeLayerKey(b, r) {
			continue
		}
		b.WriteString(`{"geometryType":`)
		featureindex.WriteJSONString(b, r.layer.GeometryType)
		b.WriteString(`,"features":[`)
		for j, h := range r.hits {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"distance":` + formatDistance(h.Distance) + `,"id":` + strconv.FormatInt(r.ix.FID(h.Item), 10) + `,"properties":`)
			writeProperties(b, r, h.Item)
			b.WriteString(`,"geometries":[`)
			if g, err := geometry(r.ix, h.Item); err == nil {
				for k, part := range polylineParts(g) {
					if k > 0 {
						b.WriteByte(',')
					}
					b.WriteByte('[')
					featureindex.WriteJSONString(b, EncodePolyline(part))
					b.WriteByte(',')
					featureindex.WriteJSONString(b, encodeLevels(len(part)/2))
					b.WriteByte(']')
				}
			}
			b.WriteString(`]}`)
		}
		b.WriteString(`]`)
		writeFieldNames(b, r, p)
		b.WriteString(`}`)
	}
	b.WriteString(`}}}`)
}

// polylineParts splits a geometry into flat lon, lat coordinate runs: a
// point, each line, each polygon ring.
func polylineParts(g geom.T) [][]float64 {
	flat, stride := g.FlatCoords(), g.Stride()
	xy := func(part []float64) []float64 {
		out := make([]float64, 0, len(part)/stride*2)
		for i := 0; i+1 < len(part); i += stride {
			out = append(out, part[i], part[i+1])
		}
		return out
	}
	var out [][]float64
	switch g := g.(type) {
	case *geom.Point, *geom.LineString:
		out = append(out, xy(flat))
	case *geom.MultiPoint:
		for i := 0; i+1 < len(flat); i += stride {
			out = append(out, []float64{flat[i], flat[i+1]})
		}
	case *geom.Polygon, *geom.MultiLineString:
		start := 0
		for _, end := range g.Ends() {
			out = append(out, xy(flat[start:end]))
			start = end
		}
	case *geom.MultiPolygon:
		start := 0
		for _, ends := range g.Endss() {
			for _, end := range ends {
				out = append(out, xy(flat[start:end]))
				start = end
			}
		}
	case *geom.GeometryCollection:
		for _, c := range g.Geoms() {
			out = append(out, polylineParts(c)...)
		}
	}
	return out
}

// EncodePolyline encodes lon, lat pairs as a Google encoded polyline:
// latitude then longitude, 1e-5 degree precision, delta-encoded.
func EncodePolyline(lonlat []float64) string {
	var b []byte
	var prevLat, prevLon int64
	for i := 0; i+1 < len(lonlat); i += 2 {
		lat, lon := int64(math.Round(lonlat[i+1]*1e5)), int64(math.Round(lonlat[i]*1e5))
		b = appendSigned(b, lat-prevLat)
		b = appendSigned(b, lon-prevLon)
		prevLat, prevLon = lat, lon
	}
	return string(b)
}

func appendSigned(b []byte, v int64) []byte {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return appendUnsigned(b, u)
}

func appendUnsigned(b []byte, u uint64) []byte {
	for u >= 0x20 {
		b = append(b, byte((0x20|(u&0x1f))+63))
		u >>= 5
	}
	return append(b, byte(u+63))
}

// encodeLevels gives n vertices the top zoom level.
func encodeLevels(n int) string {
	b := make([]byte, 0, n)
	for range n {
		b = appendUnsigned(b, polyNumLevels-1)
	}
	return string(b)
}

// DecodePolyline decodes a Google encoded polyline into lon, lat pairs.
func DecodePolyline(s string) ([]float64, bool) {
	var out []float64
	var lat, lon int64
	for i := 0; i < len(s); {
		var ok bool
		var dLat, dLon int64
		if dLat, i, ok = readSigned(s, i); !ok {
			return nil, false
		}
		if dLon, i, ok = readSigned(s, i); !ok {
			return nil, false
		}
		lat, lon = lat+dLat, lon+dLon
		out = append(out, float64(lon)/1e5, float64(lat)/1e5)
	}
	return out, true
}

func readSigned(s string, i int) (int64, int, bool) {
	var u uint64
	var shift uint
	for {
		if i >= len(s) || s[i] < 63 || shift > 60 {
			return 0, i, false
		}
		c := uint64(s[i] - 63)
		i++
		u |= (c & 0x1f) << shift
		shift += 5
		if c < 0x20 {
			break
		}
	}
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v, i, true
}

// encodeVectorXML writes the xml format: vectorQuery > layers > layer >
// featureMember > feature, geometries in GML 3.
func encodeVectorXML(b *bytes.Buffer, results []layerResult, p vectorParams) {
	b.WriteString(xml.Header)
	b.WriteString(`<vectorQuery xmlns:gml="http://www.opengis.net/gml"><layers>`)
	for _, r := range results {
		b.WriteString(`<layer id="` + strconv.Itoa(r.id) + `">`)
		if r.err != "" {
			b.WriteString(`<error>`)
			_ = xml.EscapeText(b, []byte(r.err))
			b.WriteString(`</error></layer>`)
			continue
		}
		if p.withFieldNames {
			b.WriteString(`<fieldNames>`)
			for _, f := range r.layer.Fields {
				b.WriteString(`<fieldName>`)
				_ = xml.EscapeText(b, []byte(f))
				b.WriteString(`</fieldName>`)
			}
			b.WriteString(`</fieldNames>`)
		}
		for _, h := range r.hits {
			b.WriteString(`<featureMember><feature distance="` + formatDistance(h.Distance) + `" id="` + strconv.FormatInt(r.ix.FID(h.Item), 10) + `">`)
			if p.geometry {
				if g, err := geometry(r.ix, h.Item); err == nil {
					b.WriteString(`<geometry>`)
					writeGML(b, g, true)
					b.WriteString(`</geometry>`)
				}
			}
			b.WriteString(`<attributes>`)
			names, vals := propertyPairs(r.attrs(h.Item))
			for k, n := range names {
				el := xmlName(n)
				b.WriteString(`<` + el)
				if el != n {
					b.WriteString(` name="`)
					_ = xml.EscapeText(b, []byte(n))
					b.WriteString(`"`)
				}
				v := vals[k]
				if len(v) == 0 || string(v) == "null" {
					b.WriteString(`/>`)
					continue
				}
				b.WriteString(`>`)
				var s string
				if json.Unmarshal(v, &s) != nil {
					s = string(v)
				}
				_ = xml.EscapeText(b, []byte(s))
				b.WriteString(`</` + el + `>`)
			}
			b.WriteString(`</attributes></feature></featureMember>`)
		}
		b.WriteString(`</layer>`)
	}
	b.WriteString(`</layers></vectorQuery>`)
}

// xmlName turns an attribute name into an XML element name: characters
// outside [A-Za-z0-9_.-] become _, and a name not starting with a letter
// or _ gains a leading _. The original name is then kept in a name
// attribute.
func xmlName(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			out[i] = '_'
		}
	}
	if len(out) == 0 || !(out[0] == '_' || 'a' <= out[0] && out[0] <= 'z' || 'A' <= out[0] && out[0] <= 'Z') {
		out = append([]byte{'_'}, out...)
	}
	if len(out) >= 3 && (out[0] == 'x' || out[0] == 'X') && (out[1] == 'm' || out[1] == 'M') && (out[2] == 'l' || out[2] == 'L') {
		out = append([]byte{'_'}, out...)
	}
	return string(out)
}

// writeGML writes a geometry as GML 3 in EPSG:4326, longitude first.
func writeGML(b *bytes.Buffer, g geom.T, top bool) {
	srs := ""
	if top {
		srs = ` srsName="EPSG:4326"`
	}
	flat, stride := g.FlatCoords(), g.Stride()
	posList := func(part []float64) {
		b.WriteString(`<gml:posList srsDimension="2">`)
		for i := 0; i+1 < len(part); i += stride {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(part[i], 'f', -1, 64) + " " + strconv.FormatFloat(part[i+1], 'f', -1, 64))
		}
		b.WriteString(`</gml:posList>`)
	}
	polygon := func(rings [][]float64) {
		b.WriteString(`<gml:Polygon` + srs + `>`)
		for i, ring := range rings {
			tag := "gml:interior"
			if i == 0 {
				tag = "gml:exterior"
			}
			b.WriteString(`<` + tag + `><gml:LinearRing>`)
			posList(ring)
			b.WriteString(`</gml:LinearRing></` + tag + `>`)
		}
		b.WriteString(`</gml:Polygon>`)
	}
	split := func(part []float64, ends []int) [][]float64 {
		var out [][]float64
		start := 0
		for _, e := range ends {
			out = append(out, part[start:e])
			start = e
		}
		return out
	}
	switch g := g.(type) {
	case *geom.Point:
		b.WriteString(`<gml:Point` + srs + `><gml:pos>` + strconv.FormatFloat(flat[0], 'f', -1, 64) + " " + strconv.FormatFloat(flat[1], 'f', -1, 64) + `</gml:pos></gml:Point>`)
	case *geom.LineString:
		b.WriteString(`<gml:LineString` + srs + `>`)
		posList(flat)
		b.WriteString(`</gml:LineString>`)
	case *geom.Polygon:
		polygon(split(flat, g.Ends()))
	case *geom.MultiPoint:
		b.WriteString(`<gml:MultiPoint` + srs + `>`)
		for i := 0; i < g.NumPoints(); i++ {
			b.WriteString(`<gml:pointMember>`)
			writeGML(b, g.Point(i), false)
			b.WriteString(`</gml:pointMember>`)
		}
		b.WriteString(`</gml:MultiPoint>`)
	case *geom.MultiLineString:
		b.WriteString(`<gml:MultiCurve` + srs + `>`)
		for i := 0; i < g.NumLineStrings(); i++ {
			b.WriteString(`<gml:curveMember>`)
			writeGML(b, g.LineString(i), false)
			b.WriteString(`</gml:curveMember>`)
		}
		b.WriteString(`</gml:MultiCurve>`)
	case *geom.MultiPolygon:
		b.WriteString(`<gml:MultiSurface` + srs + `>`)
		for i := 0; i < g.NumPolygons(); i++ {
			b.WriteString(`<gml:surfaceMember>`)
			writeGML(b, g.Polygon(i), false)
			b.WriteString(`</gml:surfaceMember>`)
		}
		b.WriteString(`</gml:MultiSurface>`)
	}
}
