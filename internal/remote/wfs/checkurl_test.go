package wfs

import (
	"net/url"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://example.com/geoserver/wfs": true, "http://example.com/cgi-bin/mapserv?map=x.map&VERSION=1.1.0": true,
		"https://example.com/wfs?version=1.0.0": false, "ftp://example.com/wfs": false, "https:///wfs": false,
	} {
		u, _ := url.Parse(raw)
		if err := (Kind{}).CheckURL(u); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
