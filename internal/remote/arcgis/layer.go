package arcgis

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// serviceInfo lists a service's layers and tables.
type serviceInfo struct {
	Layers []struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	} `json:"layers"`
	Tables []struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	} `json:"tables"`
}

type spatialRef struct {
	WKID       int    `json:"wkid"`
	LatestWKID int    `json:"latestWkid"`
	WKT        string `json:"wkt"`
}

type extent struct {
	XMin, YMin, XMax, YMax *float64
	SpatialRef             *spatialRef `json:"spatialReference"`
}

// layerInfo is what Geopub reads of a layer's or table's JSON.
type layerInfo struct {
	ID           int         `json:"id"`
	Name         string      `json:"name"`
	Type         string      `json:"type"`
	GeometryType string      `json:"geometryType"`
	ObjectID     string      `json:"objectIdField"`
	MaxRecords   int         `json:"maxRecordCount"`
	Capabilities string      `json:"capabilities"`
	Extent       *extent     `json:"extent"`
	SourceSR     *spatialRef `json:"sourceSpatialReference"`
	Advanced     *struct {
		Pagination bool `json:"supportsPagination"`
	} `json:"advancedQueryCapabilities"`
	Editing *struct {
		LastEdit int64 `json:"lastEditDate"`
	} `json:"editingInfo"`
	Fields []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"fields"`
}

// layerRef is a layer's place: service path and id.
type layerRef struct {
	service string // "Folder/Name/FeatureServer"
	id      int
}

func (r layerRef) path() string { return r.service + "/" + strconv.Itoa(r.id) }

// parseRef reads a datasource path back.
func parseRef(p string) (layerRef, error) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return layerRef{}, fmt.Errorf("not an ArcGIS layer path: %s", clip(p, 200))
	}
	id, err := strconv.Atoi(p[i+1:])
	svc := p[:i]
	if err != nil || id < 0 || !validName(svc) || !(strings.HasSuffix(svc, "/MapServer") || strings.HasSuffix(svc, "/FeatureServer")) {
		return layerRef{}, fmt.Errorf("not an ArcGIS layer path: %s", clip(p, 200))
	}
	return layerRef{service: svc, id: id}, nil
}

func (s *server) layer(ctx context.Context, r layerRef) (*layerInfo, error) {
	var li layerInfo
	if err := s.getJSON(ctx, s.at(r.path(), nil), &li); err != nil {
		return nil, err
	}
	return &li, nil
}

// count asks for the number of features.
func (s *server) count(ctx context.Context, r layerRef) (int64, error) {
	var c struct {
		Count *int64 `json:"count"`
	}
	q := url.Values{"where": {"1=1"}, "returnCountOnly": {"true"}}
	if err := s.getJSON(ctx, s.at(r.path()+"/query", q), &c); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	if c.Count == nil || *c.Count < 0 {
		return 0, fmt.Errorf("count: the server's answer holds no count")
	}
	return *c.Count, nil
}

// queryable says whether a layer is one Geopub copies: a feature layer or
// table that allows queries.
func (li *layerInfo) queryable() bool {
	if li.Type != "Feature Layer" && li.Type != "Table" {
		return false
	}
	return li.Capabilities == "" || strings.Contains(strings.ToLower(li.Capabilities), "query")
}

// crs is the layer's CRS: the source spatial reference, else the
// extent's.
func (li *layerInfo) crs() string {
	sr := li.SourceSR
	if sr == nil && li.Extent != nil {
		sr = li.Extent.SpatialRef
	}
	return crsOf(sr)
}

// crsOf names a spatial reference: "EPSG:n", Esri's Web Mercator codes
// as EPSG:3857, other Esri codes as "ESRI:n", else the WKT.
func crsOf(sr *spatialRef) string {
	if sr == nil {
		return ""
	}
	id := sr.LatestWKID
	if id == 0 {
		id = sr.WKID
	}
	switch {
	case id == 102100 || id == 102113 || id == 900913:
		return "EPSG:3857"
	case id > 0 && id < 100000:
		return "EPSG:" + strconv.Itoa(id)
	case id > 0:
		return "ESRI:" + strconv.Itoa(id)
	}
	return strings.TrimSpace(sr.WKT)
}

var geometryTypes = map[string]string{
	"esriGeometryPoint": "point", "esriGeometryMultipoint": "multipoint", "esriGeometryPolyline": "multilinestring",
	"esriGeometryPolygon": "multipolygon", "esriGeometryEnvelope": "polygon", "esriGeometryMultiPatch": "multipolygon",
}

// fieldType maps an Esri field type.
func fieldType(t string) (string, bool) {
	switch t {
	case "esriFieldTypeOID", "esriFieldTypeSmallInteger", "esriFieldTypeInteger", "esriFieldTypeBigInteger":
		return "integer", true
	case "esriFieldTypeSingle", "esriFieldTypeDouble":
		return "double", true
	case "esriFieldTypeDate", "esriFieldTypeTimestampOffset":
		return "datetime", true
	case "esriFieldTypeDateOnly":
		return "date", true
	case "esriFieldTypeTimeOnly":
		return "time", true
	case "esriFieldTypeGeometry", "esriFieldTypeRaster", "esriFieldTypeBlob":
		return "", false
	}
	return "string", true
}

// datasource describes a layer.
func (li *layerInfo) datasource(r layerRef, count int64) ingest.Datasource {
	d := ingest.Datasource{
		Path: r.path(), Title: strings.TrimSpace(li.Name), DataType: ingest.TypeTable, Format: Format, Driver: "ESRIJSON",
		FeatureCount: count,
	}
	if d.Title == "" {
		d.Title = r.path()
	}
	if g, ok := geometryTypes[li.GeometryType]; ok && li.Type == "Feature Layer" {
		d.DataType, d.GeometryType, d.NumDims, d.CRS = ingest.TypeVector, g, 2, li.crs()
		d.GeometryField = "SHAPE"
		for _, f := range li.Fields {
			if f.Type == "esriFieldTypeGeometry" {
				d.GeometryField = f.Name
			}
		}
		d.Fields = append(d.Fields, ingest.Field{Name: d.GeometryField, Type: "geometry"})
		d.Extent = li.lonLatExtent(d.CRS)
	}
	for _, f := range li.Fields {
		if t, ok := fieldType(f.Type); ok && f.Name != "" {
			d.Fields = append(d.Fields, ingest.Field{Name: f.Name, Type: t})
		}
	}
	return d
}

// lonLatExtent is the layer's extent in EPSG:4326, nil when unknown.
func (li *layerInfo) lonLatExtent(crs string) *[4]float64 {
	e := li.Extent
	if e == nil || e.XMin == nil || e.YMin == nil || e.XMax == nil || e.YMax == nil || crs == "" || strings.HasPrefix(crs, "ESRI:") {
		return nil
	}
	b := [4]float64{*e.XMin, *e.YMin, *e.XMax, *e.YMax}
	if b[0] > b[2] || b[1] > b[3] {
		return nil
	}
	if crs != ingest.EPSG4326 {
		t, err := ingest.NewTransformer(crs, ingest.EPSG4326)
		if err != nil {
			return nil
		}
		defer t.Close()
		if b, err = t.Bounds(b); err != nil {
			return nil
		}
	}
	return &b
}

// Fingerprint is what says a layer changed: its last edit (when the
// server tracks edits), count, schema and CRS.
func Fingerprint(d ingest.Datasource, lastEdit int64) string {
	return pagefile.Fingerprint("arcgis", lastEdit, d.FeatureCount, d.Fields, d.GeometryType, d.CRS)
}
