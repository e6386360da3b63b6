package cswserver

import (
	_ "embed"
	"strings"
)

// recordSchema is the XML Schema of csw:Record's element sets as
// answered here (a profile of the CSW 2.0.2 record.xsd).
//
//go:embed record.xsd
var recordSchema string

func describeRecord(c Call) ([]byte, error) {
	for _, t := range c.Request.TypeName {
		if local(t) != "Record" {
			return nil, invalid("typeName", "the type described is csw:Record, not %s", clip(t))
		}
	}
	p := cswPrefix(c.Request.Version)
	x := &xw{}
	x.decl()
	x.open(p+":DescribeRecordResponse", rootNS(c.Request.Version)...)
	x.open(p+":SchemaComponent", "schemaLanguage", "http://www.w3.org/XML/Schema", "targetNamespace", map[string]string{V2: nsCSW, V3: nsCSW3}[c.Request.Version])
	x.b.WriteString(strings.ReplaceAll(recordSchema, "TARGET_NS", map[string]string{V2: nsCSW, V3: nsCSW3}[c.Request.Version]))
	x.close(p + ":SchemaComponent")
	x.close(p + ":DescribeRecordResponse")
	return x.b.Bytes(), nil
}
