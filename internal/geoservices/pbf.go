package geoservices

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/ogcfeatures"
)

// The Esri FeatureCollection protocol buffer (esriPBuffer.
// FeatureCollectionPBuffer, Esri's arcgis-pbf FeatureCollection.proto),
// written by hand: a few messages, no generated code.
//
// Coordinates are quantized by a transform with the upper-left origin
// (x = translate + q*scale, y = translate - q*scale), as ArcGIS writes
// them and as Esri's decoders (arcgis-rest-js, arcgis-pbf-parser) read
// them whatever the message says; each part (ring, path) starts with
// its first vertex whole, the others as differences from the one
// before. Without quantizationParameters the transform is chosen per
// page: translate at the page's upper left, a scale of 1e-9 units (far
// below any stored precision) or the smallest that keeps every value
// in 32 bits.

// pbufWriter appends protobuf fields.
type pbufWriter struct{ b []byte }

func (w *pbufWriter) tag(field, wire int) { w.b = binary.AppendUvarint(w.b, uint64(field<<3|wire)) }
func (w *pbufWriter) varint(field int, v uint64) {
	w.tag(field, 0)
	w.b = binary.AppendUvarint(w.b, v)
}
func (w *pbufWriter) bytes(field int, p []byte) {
	w.tag(field, 2)
	w.b = binary.AppendUvarint(w.b, uint64(len(p)))
	w.b = append(w.b, p...)
}
func (w *pbufWriter) str(field int, s string) { w.bytes(field, []byte(s)) }
func (w *pbufWriter) double(field int, f float64) {
	w.tag(field, 1)
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(f))
}
func zigzag(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }

// Esri's enums.
var pbfGeometryTypes = map[string]uint64{"esriGeometryPoint": 0, "esriGeometryMultipoint": 1, "esriGeometryPolyline": 2, "esriGeometryPolygon": 3}
var pbfFieldTypes = map[string]uint64{"esriFieldTypeSmallInteger": 0, "esriFieldTypeInteger": 1, "esriFieldTypeDouble": 3, "esriFieldTypeString": 4, "esriFieldTypeDate": 5, "esriFieldTypeOID": 6}
var pbfSQLTypes = map[string]uint64{"sqlTypeInteger": 10, "sqlTypeSmallInt": 18, "sqlTypeDouble": 6, "sqlTypeNVarchar": 15, "sqlTypeTimestamp2": 22}

// pbfVersion is the version string of the messages written.
const pbfVersion = "1.0.0"

func writeQueryResult(w io.Writer, field int, msg []byte) error {
	var qr, top pbufWriter
	qr.bytes(field, msg)
	top.str(1, pbfVersion)
	top.bytes(2, qr.b)
	_, err := w.Write(top.b)
	return err
}

// WritePBFCount writes a count as a CountResult.
func WritePBFCount(w io.Writer, n int64) error {
	var c pbufWriter
	c.varint(1, uint64(n))
	return writeQueryResult(w, 2, c.b)
}

// WritePBFIDs writes object ids as an ObjectIdsResult.
func WritePBFIDs(w io.Writer, ids []int64) error {
	var r, packed pbufWriter
	r.str(1, ObjectIDField)
	for _, id := range ids {
		packed.b = binary.AppendUvarint(packed.b, uint64(id))
	}
	r.bytes(3, packed.b)
	return writeQueryResult(w, 3, r.b)
}

// Quantization is what quantizationParameters ask for: a tolerance (the
// scale) and the extent whose upper left is the origin.
type Quantization struct {
	Tolerance float64
	Extent    [4]float64
}

// parseQuantization reads quantizationParameters ({"mode": "view",
// "originPosition": "upperLeft", "tolerance": 1.2, "extent": {...}}).
func parseQuantization(s string) (*Quantization, error) {
	var d struct {
		Tolerance      float64
		OriginPosition string
		Extent         *struct{ XMin, YMin, XMax, YMax float64 }
	}
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return nil, errors.New("not a quantizationParameters object")
	}
	if d.Extent == nil || !(d.Tolerance > 0) || math.IsInf(d.Tolerance, 0) {
		return nil, errors.New("quantizationParameters need an extent and a tolerance above 0")
	}
	if d.OriginPosition != "" && d.OriginPosition != "upperLeft" {
		return nil, errors.New("quantizationParameters: only originPosition upperLeft is served")
	}
	return &Quantization{Tolerance: d.Tolerance, Extent: [4]float64{d.Extent.XMin, d.Extent.YMin, d.Extent.XMax, d.Extent.YMax}}, nil
}

// WritePBF writes a page of features as a FeatureResult.
func WritePBF(w io.Writer, c *ogcfeatures.Collection, q *Query, p Page) error {
	proj, err := q.OutSR.Projector()
	if err != nil {
		return err
	}
	defer proj.Close()
	geoms := make([]geom.T, len(p.Items))
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	if q.ReturnGeometry {
		for i, it := range p.Items {
			g, err := ogcfeatures.Geometry(it.Geom, nil)
			if err != nil || g == nil || g.Empty() || proj.Forward(g) != nil {
				continue
			}
			geoms[i] = g
			b := g.Bounds()
			box = [4]float64{min(box[0], b.Min(0)), min(box[1], b.Min(1)), max(box[2], b.Max(0)), max(box[3], b.Max(1))}
		}
	}
	scale, tx, ty := 1e-9, 0.0, 0.0
	if q.Quantize != nil {
		scale, tx, ty = q.Quantize.Tolerance, q.Quantize.Extent[0], q.Quantize.Extent[3]
	} else if box[0] <= box[2] {
		tx, ty = box[0], box[3]
		scale = max(scale, (box[2]-box[0])/(1<<30), (box[3]-box[1])/(1<<30))
	}
	var r pbufWriter
	r.str(1, ObjectIDField)
	var uid pbufWriter
	uid.str(1, ObjectIDField)
	uid.varint(2, 1)
	r.bytes(2, uid.b)
	if !c.Table {
		r.varint(7, pbfGeometryTypes[GeometryType(c)])
		var sr pbufWriter
		d := q.OutSR.Doc()
		sr.varint(1, uint64(d["wkid"]))
		sr.varint(2, uint64(d["latestWkid"]))
		r.bytes(8, sr.b)
	}
	if p.Exceeded {
		r.varint(9, 1)
	}
	var tr, sc, tl pbufWriter
	tr.varint(1, 0) // upperLeft
	sc.double(1, scale)
	sc.double(2, scale)
	tr.bytes(2, sc.b)
	tl.double(1, tx)
	tl.double(2, ty)
	tr.bytes(3, tl.b)
	r.bytes(12, tr.b)
	fields := append([]schematype.Field{{Name: ObjectIDField, Type: "oid"}}, q.OutFields...)
	for _, f := range fields {
		d := fieldDoc(f)
		var fw pbufWriter
		fw.str(1, d.Name)
		fw.varint(2, pbfFieldTypes[d.Type])
		fw.str(3, d.Alias)
		fw.varint(4, pbfSQLTypes[d.SQLType])
		r.bytes(13, fw.b)
	}
	for i, it := range p.Items {
		var fw pbufWriter
		attrs := attributes(it, q.OutFields)
		for _, f := range fields {
			fw.bytes(1, pbfValue(attrs[f.Name]))
		}
		if g := geoms[i]; g != nil {
			gb, err := pbfGeometry(g, scale, tx, ty)
			if err != nil {
				return err
			}
			fw.bytes(2, gb)
		}
		r.bytes(15, fw.b)
	}
	return writeQueryResult(w, 1, r.b)
}

// pbfValue is a Value message: strings, doubles, 64-bit integers; an
// empty message for null.
func pbfValue(v any) []byte {
	var w pbufWriter
	switch v := v.(type) {
	case string:
		w.str(1, v)
	case int64:
		w.tag(8, 0)
		w.b = binary.AppendUvarint(w.b, zigzag(v))
	case int:
		w.tag(8, 0)
		w.b = binary.AppendUvarint(w.b, zigzag(int64(v)))
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			w.tag(8, 0)
			w.b = binary.AppendUvarint(w.b, zigzag(n))
		} else if f, err := v.Float64(); err == nil {
			w.double(3, f)
		}
	case float64:
		w.double(3, v)
	case bool:
		b := uint64(0)
		if v {
			b = 1
		}
		w.varint(9, b)
	case nil:
	default:
		b, _ := json.Marshal(v)
		w.str(1, string(b))
	}
	return w.b
}

// errQuantization is a feature too far outside the quantization extent.
var errQuantization = BadRequest("Unable to complete operation.", "quantizationParameters: features lie too far outside the extent for its tolerance")

// pbfGeometry is a Geometry message of g's Esri parts.
func pbfGeometry(g geom.T, scale, tx, ty float64) ([]byte, error) {
	var parts [][][2]float64
	typ := uint64(0)
	e := EsriGeometry(g)
	switch {
	case e["x"] != nil:
		parts = [][][2]float64{{{e["x"].(float64), e["y"].(float64)}}}
	case e["points"] != nil:
		typ, parts = 1, [][][2]float64{e["points"].([][2]float64)}
	case e["paths"] != nil:
		typ, parts = 2, e["paths"].([][][2]float64)
	case e["rings"] != nil:
		typ, parts = 3, e["rings"].([][][2]float64)
	}
	var w, lengths, coords pbufWriter
	for _, part := range parts {
		lengths.b = binary.AppendUvarint(lengths.b, uint64(len(part)))
		var px, py int64
		for j, pt := range part {
			x := math.Round((pt[0] - tx) / scale)
			y := math.Round((ty - pt[1]) / scale)
			if math.Abs(x) > math.MaxInt32 || math.Abs(y) > math.MaxInt32 {
				return nil, errQuantization
			}
			qx, qy := int64(x), int64(y)
			dx, dy := qx, qy
			if j > 0 {
				dx, dy = qx-px, qy-py
			}
			coords.b = binary.AppendUvarint(coords.b, zigzag(dx))
			coords.b = binary.AppendUvarint(coords.b, zigzag(dy))
			px, py = qx, qy
		}
	}
	w.varint(1, typ)
	if typ != 0 {
		w.bytes(2, lengths.b)
	}
	w.bytes(3, coords.b)
	return w.b, nil
}
