package wfs

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/geopub/geopub/internal/ingest"
)

// xsdSchema is what Geopub reads of a DescribeFeatureType answer.
type xsdSchema struct {
	XMLName  xml.Name
	Elements []xsdElement `xml:"element"`
	Types    []struct {
		Name     string       `xml:"name,attr"`
		Extended []xsdElement `xml:"complexContent>extension>sequence>element"`
		Plain    []xsdElement `xml:"sequence>element"`
	} `xml:"complexType"`
}

type xsdElement struct {
	Name   string `xml:"name,attr"`
	Type   string `xml:"type,attr"`
	Ref    string `xml:"ref,attr"`
	Simple *struct {
		Restriction struct {
			Base string `xml:"base,attr"`
		} `xml:"restriction"`
	} `xml:"simpleType"`
}

// schema is a feature type's attributes and geometry column.
type schema struct {
	Fields        []ingest.Field // attributes, in order
	GeometryField string
	// GeometryType is Geopub's name of the declared geometry type, "" for
	// a generic geometry (or none, when GeometryField is "").
	GeometryType string
}

func parseSchema(body []byte, typeName string) (schema, error) {
	if err := owsError(body); err != nil {
		return schema{}, err
	}
	var x xsdSchema
	if err := xml.Unmarshal(body, &x); err != nil {
		return schema{}, fmt.Errorf("the server's feature type schema is not readable XML: %s", clip(err.Error(), 200))
	}
	if x.XMLName.Local != "schema" || len(x.Types) == 0 {
		return schema{}, fmt.Errorf("the server's description of %s holds no schema", clip(typeName, 100))
	}
	want := local(typeName)
	ct := x.Types[0]
	for _, e := range x.Elements {
		if e.Name != want {
			continue
		}
		for _, t := range x.Types {
			if t.Name == local(e.Type) {
				ct = t
			}
		}
	}
	var s schema
	for _, e := range append(ct.Extended, ct.Plain...) {
		name := e.Name
		if name == "" {
			name = local(e.Ref)
		}
		typ := e.Type
		if typ == "" && e.Simple != nil {
			typ = e.Simple.Restriction.Base
		}
		if g, ok := gmlGeometry(typ); ok {
			if s.GeometryField == "" {
				s.GeometryField, s.GeometryType = name, g
			}
			continue
		}
		if name == "" {
			continue
		}
		s.Fields = append(s.Fields, ingest.Field{Name: name, Type: xsdType(typ)})
	}
	return s, nil
}

// local drops a name's namespace prefix.
func local(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// gmlGeometry names the geometry type of a GML property type; ok is false
// for types that are not geometries.
func gmlGeometry(typ string) (string, bool) {
	t := local(typ)
	if !strings.HasSuffix(t, "PropertyType") {
		return "", false
	}
	switch strings.TrimSuffix(t, "PropertyType") {
	case "Point":
		return "point", true
	case "MultiPoint":
		return "multipoint", true
	case "LineString", "Curve":
		return "linestring", true
	case "MultiLineString", "MultiCurve":
		return "multilinestring", true
	case "Polygon", "Surface":
		return "polygon", true
	case "MultiPolygon", "MultiSurface":
		return "multipolygon", true
	case "Geometry", "MultiGeometry", "GeometryCollection", "AbstractGeometry":
		return "", true
	}
	return "", false
}

// xsdType maps an XML Schema type to a field type.
func xsdType(typ string) string {
	switch strings.ToLower(local(typ)) {
	case "int", "integer", "long", "short", "byte", "nonnegativeinteger", "positiveinteger",
		"negativeinteger", "nonpositiveinteger", "unsignedint", "unsignedlong", "unsignedshort", "unsignedbyte":
		return "integer"
	case "double", "float", "decimal":
		return "double"
	case "boolean":
		return "boolean"
	case "date":
		return "date"
	case "datetime":
		return "datetime"
	case "time":
		return "time"
	}
	return "string"
}
