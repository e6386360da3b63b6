package wfs

import "testing"

// Date, date-time and time-of-day types are fields of their own type
// (issue 24, 10), whatever prefix the schema gives XML Schema.
func TestXSDTypes(t *testing.T) {
	for in, want := range map[string]string{"xsd:date": "date", "xs:dateTime": "datetime", "xsd:time": "time", "time": "time",
		"xsd:string": "string", "xsd:long": "integer"} {
		if got := xsdType(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
