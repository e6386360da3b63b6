package wfsserver

import (
	"context"
	"io"
	"strings"
)

// xsdTypes maps stored field types to XML Schema types.
var xsdTypes = map[string]string{"integer": "xsd:long", "double": "xsd:double", "boolean": "xsd:boolean",
	"date": "xsd:date", "datetime": "xsd:dateTime", "time": "xsd:time"}

// geometryPropertyType is the GML property type of a layer's geometry,
// as GDAL's GML writer declares it: the type of the element the features
// are written as (gml:Polygon, gml:LineString, gml:MultiSurface,
// gml:MultiCurve...). GML 3.1.1 also has the Polygon and LineString
// property types, which more clients know; GML 3.2 has the Surface and
// Curve ones only. Mixed layers are any geometry.
func geometryPropertyType(geometryType string, gml32 bool) string {
	switch strings.ToLower(geometryType) {
	case "point":
		return "gml:PointPropertyType"
	case "multipoint":
		return "gml:MultiPointPropertyType"
	case "linestring":
		if gml32 {
			return "gml:CurvePropertyType"
		}
		return "gml:LineStringPropertyType"
	case "multilinestring":
		return "gml:MultiCurvePropertyType"
	case "polygon":
		if gml32 {
			return "gml:SurfacePropertyType"
		}
		return "gml:PolygonPropertyType"
	case "multipolygon":
		return "gml:MultiSurfacePropertyType"
	}
	return "gml:GeometryPropertyType"
}

// linearTypes name the simple feature type each geometry type restricts
// its property type to.
var linearTypes = map[string]string{"point": "Point", "multipoint": "MultiPoint", "linestring": "LineString",
	"multilinestring": "MultiLineString", "polygon": "Polygon", "multipolygon": "MultiPolygon"}

// gmlFormats are the GML output formats by normalised name: true for
// GML 3.2.
var gmlFormats = map[string]bool{}

func init() {
	for _, f := range []string{FormatGML32, "gml32", "application/gml+xml", "text/xml; subtype=gml/3.2", "text/xml; subtype=gml/3.2.1"} {
		gmlFormats[normFormat(f)] = true
	}
	for _, f := range []string{FormatGML311, "gml3", "gml311", "text/xml", "text/xml; subtype=gml/3.1", "application/gml+xml; version=3.1"} {
		gmlFormats[normFormat(f)] = false
	}
}

// gmlVersion32 picks GML 3.2 or 3.1.1 from an output format, else from
// the WFS version; ok is false for a format that is not GML.
func gmlVersion32(format string, v2 bool) (gml32, ok bool) {
	if format == "" {
		return v2, true
	}
	gml32, ok = gmlFormats[normFormat(format)]
	return gml32, ok
}

func (s *Service) describe(ctx context.Context, c Call) (*Result, error) {
	r := c.Request
	gml32, ok := gmlVersion32(r.OutputFormat, r.V2())
	if !ok {
		return nil, invalid("outputFormat", "outputFormat must be %s or %s", FormatGML32, FormatGML311)
	}
	var types []*featureType
	if len(r.TypeNames) == 0 {
		cs, err := s.f.Collections(ctx, c.Viewer)
		if err != nil {
			return nil, err
		}
		for _, col := range cs {
			types = append(types, newFeatureType(col))
		}
	}
	for _, name := range r.TypeNames {
		t, err := s.lookup(ctx, c.Viewer, name, r.typeNamesParam())
		if err != nil {
			return nil, err
		}
		types = append(types, t)
	}
	ct := "application/gml+xml; version=3.2"
	if !gml32 {
		ct = "text/xml; subtype=gml/3.1.1"
	}
	return &Result{ContentType: ct, Write: func(w io.Writer) error { return writeSchema(w, types, gml32) }}, nil
}

func writeSchema(w io.Writer, types []*featureType, gml32 bool) error {
	gmlNS, gmlLoc, feature := "http://www.opengis.net/gml", "http://schemas.opengis.net/gml/3.1.1/base/gml.xsd", "gml:_Feature"
	if gml32 {
		gmlNS, gmlLoc, feature = "http://www.opengis.net/gml/3.2", "http://schemas.opengis.net/gml/3.2.1/gml.xsd", "gml:AbstractFeature"
	}
	x := newXW(w)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("xsd:schema", "xmlns:xsd", "http://www.w3.org/2001/XMLSchema", "xmlns:gml", gmlNS, "xmlns:"+Prefix, Namespace,
		"targetNamespace", Namespace, "elementFormDefault", "qualified", "version", "1.0")
	x.empty("xsd:import", "namespace", gmlNS, "schemaLocation", gmlLoc)
	for _, t := range types {
		x.open("xsd:complexType", "name", t.name+"Type")
		x.raw(`<xsd:complexContent><xsd:extension base="gml:AbstractFeatureType"><xsd:sequence>`)
		if t.geomElement != "" {
			x.empty("xsd:element", "name", t.geomElement, "type", geometryPropertyType(t.c.GeometryType, gml32),
				"minOccurs", "0", "maxOccurs", "1", "nillable", "true")
			if r, ok := linearTypes[strings.ToLower(t.c.GeometryType)]; ok {
				// GDAL's convention (its GML writer's): without it, GDAL
				// reads a Surface as a CurvePolygon, a Curve as a
				// CompoundCurve.
				x.raw("<!-- restricted to " + r + " -->")
			}
		}
		for _, f := range t.fields {
			typ, ok := xsdTypes[f.Type]
			if !ok {
				typ = "xsd:string"
			}
			x.empty("xsd:element", "name", f.Element, "type", typ, "minOccurs", "0", "maxOccurs", "1", "nillable", "true")
		}
		x.raw(`</xsd:sequence></xsd:extension></xsd:complexContent>`)
		x.close("xsd:complexType")
		x.empty("xsd:element", "name", t.name, "type", Prefix+":"+t.name+"Type", "substitutionGroup", feature)
	}
	x.close("xsd:schema")
	return x.flush()
}
