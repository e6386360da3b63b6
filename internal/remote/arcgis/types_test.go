package arcgis

import "testing"

// Esri's date, date-only and time-only fields are fields of their own
// type (issue 24, 10).
func TestFieldTypes(t *testing.T) {
	for in, want := range map[string]string{"esriFieldTypeDate": "datetime", "esriFieldTypeDateOnly": "date",
		"esriFieldTypeTimeOnly": "time", "esriFieldTypeString": "string"} {
		if got, ok := fieldType(in); !ok || got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
