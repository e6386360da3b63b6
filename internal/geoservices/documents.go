package geoservices

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/ogcfeatures"
)

// CurrentVersion is the GeoServices REST version the documents follow.
const CurrentVersion = 11.3

// QueryFormats are the formats every query answers in.
const QueryFormats = "JSON, geoJSON, PBF"

// GeometryType is the Esri geometry type of a layer, "" for a table.
func GeometryType(c *ogcfeatures.Collection) string {
	if c.Table {
		return ""
	}
	switch strings.ToLower(strings.TrimPrefix(strings.ToLower(c.GeometryType), "multi")) {
	case "point":
		if strings.HasPrefix(strings.ToLower(c.GeometryType), "multi") {
			return "esriGeometryMultipoint"
		}
		return "esriGeometryPoint"
	case "linestring", "curve", "line":
		return "esriGeometryPolyline"
	case "polygon", "surface":
		return "esriGeometryPolygon"
	}
	// Mixed or unknown: polygons are the most general ArcGIS layers
	// read; features of other kinds keep their own geometry.
	return "esriGeometryPolygon"
}

// FieldDoc is one field of a layer or a query answer.
type FieldDoc struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Alias    string  `json:"alias"`
	SQLType  string  `json:"sqlType"`
	Length   int     `json:"length,omitempty"`
	Nullable bool    `json:"nullable"`
	Editable bool    `json:"editable"`
	Domain   *string `json:"domain"`
	Default  *string `json:"defaultValue"`
}

// esriType maps Geopub field types to Esri's.
func esriType(t string) (typ, sqlType string, length int) {
	switch t {
	case "oid":
		return "esriFieldTypeOID", "sqlTypeInteger", 0
	case "integer":
		return "esriFieldTypeInteger", "sqlTypeInteger", 0
	case "smallinteger":
		return "esriFieldTypeSmallInteger", "sqlTypeSmallInt", 0
	case "double", "float", "real":
		return "esriFieldTypeDouble", "sqlTypeDouble", 0
	case "date", "datetime":
		return "esriFieldTypeDate", "sqlTypeTimestamp2", 8
	case "boolean":
		// Esri has no boolean field: 0 and 1.
		return "esriFieldTypeSmallInteger", "sqlTypeSmallInt", 0
	}
	return "esriFieldTypeString", "sqlTypeNVarchar", 2147483647
}

// FieldDocs are OBJECTID and fields, as Esri describes them.
func FieldDocs(fields []schematype.Field) []FieldDoc {
	out := []FieldDoc{fieldDoc(schematype.Field{Name: ObjectIDField, Type: "oid"})}
	for _, f := range fields {
		out = append(out, fieldDoc(f))
	}
	return out
}

func fieldDoc(f schematype.Field) FieldDoc {
	typ, sqlType, length := esriType(f.Type)
	return FieldDoc{Name: f.Name, Type: typ, Alias: f.Name, SQLType: sqlType, Length: length, Nullable: f.Type != "oid"}
}

// ExtentDoc is an envelope with its spatial reference.
func ExtentDoc(b []float64, sr SR) map[string]any {
	if len(b) != 4 {
		return nil
	}
	return map[string]any{"xmin": b[0], "ymin": b[1], "xmax": b[2], "ymax": b[3], "spatialReference": sr.Doc()}
}

// LayerDoc is the layer (or table) resource of layer id of a service.
func LayerDoc(c *ogcfeatures.Collection, id int) map[string]any {
	typ := "Feature Layer"
	if c.Table {
		typ = "Table"
	}
	d := map[string]any{
		"currentVersion": CurrentVersion, "id": id, "name": c.Title, "type": typ, "description": c.Description,
		"copyrightText": "", "defaultVisibility": true, "isDataVersioned": false, "supportsRollbackOnFailureParameter": false,
		"hasAttachments": false, "htmlPopupType": "esriServerHTMLPopupTypeNone", "displayField": displayField(c),
		"objectIdField": ObjectIDField, "globalIdField": "", "typeIdField": "", "types": []any{}, "templates": []any{},
		"fields": FieldDocs(c.Fields), "relationships": []any{}, "hasZ": false, "hasM": false,
		"maxRecordCount": MaxRecordCount, "standardMaxRecordCount": MaxRecordCount, "tileMaxRecordCount": MaxRecordCount,
		"maxRecordCountFactor": 1, "supportsPagination": true, "supportsStatistics": true, "supportsAdvancedQueries": true,
		"supportedQueryFormats": QueryFormats, "capabilities": "Query", "useStandardizedQueries": true,
		"supportsCoordinatesQuantization": true, "supportsDatumTransformation": false,
		"advancedQueryCapabilities": map[string]any{
			"supportsPagination": true, "supportsPaginationOnAggregatedQueries": false, "supportsQueryRelatedPagination": false,
			"supportsQueryWithDistance": false, "supportsReturningQueryExtent": true, "supportsStatistics": true,
			"supportsOrderBy": true, "supportsDistinct": false, "supportsQueryWithResultType": false,
			"supportsSqlExpression": false, "supportsAdvancedQueryRelated": false, "supportsCountDistinct": false,
			"supportsReturningGeometryCentroid": false, "supportsQueryWithDatumTransformation": false,
			"supportsHavingClause": false, "supportsOutFieldSQLExpression": false, "supportsTopFeaturesQuery": false,
			"supportsQueryAttachments": false, "supportsPercentileStatistics": false,
		},
	}
	if !c.Table {
		d["geometryType"] = GeometryType(c)
		d["extent"] = ExtentDoc(c.Extent, WGS84)
		d["sourceSpatialReference"] = WGS84.Doc()
		d["drawingInfo"] = map[string]any{"renderer": nil}
		d["minScale"], d["maxScale"] = 0, 0
	}
	return d
}

// displayField is the first string field, else the first field.
func displayField(c *ogcfeatures.Collection) string {
	for _, f := range c.Fields {
		if f.Type == "string" {
			return f.Name
		}
	}
	if len(c.Fields) > 0 {
		return c.Fields[0].Name
	}
	return ObjectIDField
}

// Ref is a layer or table in a service document.
type Ref struct {
	ID           int     `json:"id"`
	Name         string  `json:"name"`
	ParentLayer  int     `json:"parentLayerId"`
	DefaultVis   bool    `json:"defaultVisibility"`
	SubLayerIDs  *[]int  `json:"subLayerIds"`
	MinScale     float64 `json:"minScale"`
	MaxScale     float64 `json:"maxScale"`
	Type         string  `json:"type"`
	GeometryType string  `json:"geometryType,omitempty"`
}

// ServiceDoc is the FeatureServer resource of layers (numbered by index).
func ServiceDoc(name string, cs []*ogcfeatures.Collection) map[string]any {
	layers, tables := []Ref{}, []Ref{}
	var ext []float64
	for i, c := range cs {
		r := Ref{ID: i, Name: c.Title, ParentLayer: -1, DefaultVis: true}
		if c.Table {
			r.Type = "Table"
			tables = append(tables, r)
			continue
		}
		r.Type, r.GeometryType = "Feature Layer", GeometryType(c)
		layers = append(layers, r)
		if len(c.Extent) == 4 {
			if ext == nil {
				ext = append([]float64(nil), c.Extent...)
			} else {
				ext = []float64{min(ext[0], c.Extent[0]), min(ext[1], c.Extent[1]), max(ext[2], c.Extent[2]), max(ext[3], c.Extent[3])}
			}
		}
	}
	desc := ""
	if len(cs) == 1 {
		desc = cs[0].Description
	}
	return map[string]any{
		"currentVersion": CurrentVersion, "serviceDescription": desc, "description": desc, "copyrightText": "",
		"hasVersionedData": false, "supportsDisconnectedEditing": false, "supportsRelationshipsResource": false,
		"maxRecordCount": MaxRecordCount, "supportedQueryFormats": QueryFormats, "capabilities": "Query",
		"spatialReference": WGS84.Doc(), "initialExtent": ExtentDoc(ext, WGS84), "fullExtent": ExtentDoc(ext, WGS84),
		"allowGeometryUpdates": false, "units": "esriDecimalDegrees", "syncEnabled": false,
		"supportsApplyEditsWithGlobalIds": false, "serviceItemId": name, "layers": layers, "tables": tables,
		"enableZDefaults": false, "hasStaticData": true,
	}
}

// attributes decodes stored attributes for the out fields: OBJECTID
// first, dates as epoch milliseconds, booleans as 0 and 1.
func attributes(it ogcfeatures.Item, fields []schematype.Field) map[string]any {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(it.Attrs))
	d.UseNumber()
	_ = d.Decode(&m)
	out := make(map[string]any, len(fields)+1)
	out[ObjectIDField] = it.FID
	for _, f := range fields {
		v := m[f.Name]
		switch f.Type {
		case "date", "datetime":
			if s, ok := v.(string); ok {
				v = epochMillis(s)
			}
		case "boolean":
			if b, ok := v.(bool); ok {
				v = 0
				if b {
					v = 1
				}
			}
		}
		out[f.Name] = v
	}
	return out
}

// epochMillis reads an RFC 3339 time or a date; nil when neither.
func epochMillis(s string) any {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli()
		}
	}
	return nil
}

// WriteJSON writes a page of features as an Esri JSON feature set.
func WriteJSON(w io.Writer, c *ogcfeatures.Collection, q *Query, p Page, pretty bool) error {
	proj, err := q.OutSR.Projector()
	if err != nil {
		return err
	}
	defer proj.Close()
	type feature struct {
		Attributes map[string]any `json:"attributes"`
		Geometry   map[string]any `json:"geometry,omitempty"`
	}
	feats := make([]feature, 0, len(p.Items))
	for _, it := range p.Items {
		f := feature{Attributes: attributes(it, q.OutFields)}
		if q.ReturnGeometry {
			g, err := ogcfeatures.Geometry(it.Geom, nil)
			if err == nil && g != nil {
				if err := proj.Forward(g); err == nil {
					f.Geometry = EsriGeometry(g)
				}
			}
		}
		feats = append(feats, f)
	}
	doc := map[string]any{
		"objectIdFieldName": ObjectIDField, "uniqueIdField": map[string]any{"name": ObjectIDField, "isSystemMaintained": true},
		"globalIdFieldName": "", "fields": FieldDocs(q.OutFields), "features": feats,
	}
	if !c.Table {
		doc["geometryType"] = GeometryType(c)
		doc["spatialReference"] = q.OutSR.Doc()
		doc["hasZ"], doc["hasM"] = false, false
	}
	if p.Exceeded {
		doc["exceededTransferLimit"] = true
	}
	return encode(w, doc, pretty)
}

// WriteGeoJSON writes a page as GeoJSON (in outSR, as ArcGIS does, though
// RFC 7946 says WGS 84), exceededTransferLimit among the collection's
// properties.
func WriteGeoJSON(w io.Writer, c *ogcfeatures.Collection, q *Query, p Page, pretty bool) error {
	proj, err := q.OutSR.Projector()
	if err != nil {
		return err
	}
	defer proj.Close()
	type feature struct {
		Type       string         `json:"type"`
		ID         int64          `json:"id"`
		Geometry   any            `json:"geometry"`
		Properties map[string]any `json:"properties"`
	}
	feats := make([]feature, 0, len(p.Items))
	for _, it := range p.Items {
		f := feature{Type: "Feature", ID: it.FID, Properties: attributes(it, q.OutFields)}
		if q.ReturnGeometry {
			g, err := ogcfeatures.Geometry(it.Geom, nil)
			if err == nil && g != nil {
				if err := proj.Forward(g); err == nil {
					f.Geometry = geoJSONGeometry(g)
				}
			}
		}
		feats = append(feats, f)
	}
	doc := map[string]any{"type": "FeatureCollection", "features": feats}
	if p.Exceeded {
		doc["properties"] = map[string]any{"exceededTransferLimit": true}
	}
	return encode(w, doc, pretty)
}

func encode(w io.Writer, v any, pretty bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}
