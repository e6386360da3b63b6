package country_test

import (
	"testing"

	"github.com/geopub/geopub/internal/geo/country"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct {
		in       string
		required bool
		want     string
		ok       bool
	}{
		{"nz", true, "NZ", true},
		{" AU ", true, "AU", true},
		{"", false, "", true},
		{"", true, "", false},
		{"XX", false, "", false},
		{"NZL", false, "", false},
	} {
		got, err := country.Normalize(tt.in, tt.required)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Normalize(%q, %v) = %q, %v", tt.in, tt.required, got, err)
		}
	}
}
