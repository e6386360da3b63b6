package wfs_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/wfs"
)

// Untrusted answers become clear errors, never panics.
func TestWFSHostileAnswers(t *testing.T) {
	caps := `<wfs:WFS_Capabilities xmlns:wfs="http://www.opengis.net/wfs/2.0" version="2.0.0"><FeatureTypeList><FeatureType><Name>x:a</Name></FeatureType></FeatureTypeList></wfs:WFS_Capabilities>`
	for _, tc := range []struct {
		name, want string
		handler    http.HandlerFunc
	}{
		{"not XML", "not readable XML", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<<<garbage")) }},
		{"HTML", "did not answer with WFS capabilities", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html><body>hi</body></html>")) }},
		{"exception", "TYPENAME is wrong", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`<ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1"><ows:Exception exceptionCode="X"><ows:ExceptionText>TYPENAME is wrong</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`))
		}},
		{"500", "500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }},
		{"too large", "larger than allowed", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat(" ", 17<<20)))
		}},
		{"bad schema", "not readable XML", func(w http.ResponseWriter, r *http.Request) {
			if strings.EqualFold(r.URL.Query().Get("REQUEST"), "GetCapabilities") {
				w.Write([]byte(caps))
				return
			}
			w.Write([]byte("<schema><complexType"))
		}},
		{"bad hits", "GetFeature", func(w http.ResponseWriter, r *http.Request) {
			switch strings.ToLower(r.URL.Query().Get("REQUEST")) {
			case "getcapabilities":
				w.Write([]byte(caps))
			case "describefeaturetype":
				w.Write([]byte(`<schema><element name="a" type="x:aType"/><complexType name="aType"><sequence><element name="g" type="gml:PointPropertyType"/><element name="n" type="int"/></sequence></complexType></schema>`))
			default:
				w.Write([]byte("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}"))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c := remote.Conn{URL: srv.URL, SSLVerify: true, Fetch: loopback()}
			_, err := wfs.Kind{}.Discover(context.Background(), c, func(string) {})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Discover: %v, want an error with %q", err, tc.want)
			}
			if _, _, err := (wfs.Kind{}).Fetch(context.Background(), c, "x:a", t.TempDir(), func(float64) {}); err == nil {
				t.Fatal("Fetch succeeded")
			}
		})
	}
}

// A closed port and a private address are clear errors; the guard refuses
// loopback unless allowed.
func TestWFSUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := remote.Conn{URL: "http://" + addr + "/wfs", SSLVerify: true, Fetch: loopback()}
	if _, err := (wfs.Kind{}).Discover(context.Background(), c, func(string) {}); err == nil || !strings.Contains(err.Error(), "cannot reach the server") {
		t.Errorf("closed port: %v", err)
	}
	c.Fetch = &fetch.Client{Guard: &fetch.Guard{}}
	if _, err := (wfs.Kind{}).Discover(context.Background(), c, func(string) {}); !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Errorf("private address: %v", err)
	}
}
