package arcgis

import (
	"net/url"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://example.com/arcgis/rest/services": true, "https://example.com/server/rest/services/": true,
		"https://example.com/arcgis/rest/services/Folder": false, "https://example.com/arcgis": false, "ftp://example.com/rest/services": false,
	} {
		u, _ := url.Parse(raw)
		if err := (Kind{}).CheckURL(u); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
