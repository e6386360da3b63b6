package wfs

import (
	"strings"
	"testing"
)

func TestLocalSchema(t *testing.T) {
	in := `<schema xmlns="http://www.w3.org/2001/XMLSchema"><import namespace="http://www.opengis.net/gml/3.2" schemaLocation="http://schemas.opengis.net/gml/3.2.1/gml.xsd" />
<xsd:include schemaLocation="http://169.254.169.254/latest"></xsd:include><xs:redefine schemaLocation="x.xsd">
<a/></xs:redefine><element name="towns" type="ms:townsType"/></schema>`
	out := string(localSchema([]byte(in)))
	if strings.Contains(out, "schemaLocation") || !strings.Contains(out, `<element name="towns"`) {
		t.Errorf("localSchema = %s", out)
	}
}
