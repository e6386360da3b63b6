package ogc

import (
	"net/http/httptest"
	"testing"
)

func TestBaseURL(t *testing.T) {
	r := httptest.NewRequest("GET", "http://geopub.example:8080/services/ogc/features/", nil)
	if got := baseURL("", r); got != "http://geopub.example:8080/services/ogc/features" {
		t.Errorf("from the request: %s", got)
	}
	if got := baseURL("https://data.example", r); got != "https://data.example/services/ogc/features" {
		t.Errorf("from the configured origin: %s", got)
	}
}
