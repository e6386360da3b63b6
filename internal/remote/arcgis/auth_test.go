package arcgis_test

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
	"github.com/geopub/geopub/internal/remote/arcgis"
)

// Token security: the user and password buy a token from the server's
// own token service; a wrong password is a clear error without it.
func TestArcGISToken(t *testing.T) {
	files, services := testServices()
	koop := startKoop(t, files)
	front := frontServer(t, koop, services, true)
	ctx := context.Background()
	c := remote.Conn{URL: front.URL + "/arcgis/rest/services", SSLVerify: true, Fetch: loopback()}
	if _, err := (arcgis.Kind{}).Discover(ctx, c, func(string) {}); err == nil || !strings.Contains(err.Error(), "Token Required") {
		t.Errorf("without credentials: %v", err)
	}
	c.Username, c.Password = "reader", "s3cret-pass"
	ds, err := arcgis.Kind{}.Discover(ctx, c, func(string) {})
	if err != nil || len(ds) != 3 {
		t.Fatalf("with a token: %v, %d datasources", err, len(ds))
	}
	if _, _, err := (arcgis.Kind{}).Fetch(ctx, c, "towns/FeatureServer/0", t.TempDir(), func(float64) {}); err != nil {
		t.Errorf("Fetch with a token: %v", err)
	}
	c.Password = "wrong-pass-xyz"
	_, err = arcgis.Kind{}.Discover(ctx, c, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "sign-in failed") || strings.Contains(err.Error(), "wrong-pass-xyz") {
		t.Errorf("wrong password: %v", err)
	}
}

// Untrusted answers become clear errors, never panics; unreachable and
// private addresses are clear errors.
func TestArcGISHostile(t *testing.T) {
	layer := `{"id":0,"name":"x","type":"Feature Layer","geometryType":"esriGeometryPoint","extent":{"xmin":1,"ymin":1,"xmax":2,"ymax":2,"spatialReference":{"wkid":4326}},"advancedQueryCapabilities":{"supportsPagination":true},"fields":[{"name":"a","type":"esriFieldTypeInteger"}]}`
	for _, tc := range []struct {
		name, want string
		answer     func(path, query string) string
	}{
		{"not JSON", "not the JSON expected", func(string, string) string { return "<html>" }},
		{"error", "error 403: You do not have permissions", func(string, string) string {
			return `{"error":{"code":403,"message":"You do not have permissions","details":[]}}`
		}},
		{"bad count", "count: the server's answer is not the JSON expected", func(p, q string) string {
			switch {
			case strings.HasSuffix(p, "/services"):
				return `{"services":[{"name":"s","type":"FeatureServer"}]}`
			case strings.HasSuffix(p, "/FeatureServer"):
				return `{"layers":[{"id":0,"name":"x"}]}`
			case strings.HasSuffix(p, "/0"):
				return layer
			}
			return `{"count":"many"}`
		}},
		{"bad page", "query", func(p, q string) string {
			switch {
			case strings.HasSuffix(p, "/services"):
				return `{"services":[{"name":"s","type":"FeatureServer"}]}`
			case strings.HasSuffix(p, "/FeatureServer"):
				return `{"layers":[{"id":0,"name":"x"}]}`
			case strings.HasSuffix(p, "/0"):
				return layer
			case strings.Contains(q, "returnCountOnly"):
				return `{"count":3}`
			}
			return `{"features":[{"attributes":{"a":1},"geometry":{"x":`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tc.answer(r.URL.Path, r.URL.RawQuery)))
			}))
			defer srv.Close()
			c := remote.Conn{URL: srv.URL + "/arcgis/rest/services", SSLVerify: true, Fetch: loopback()}
			ds, err := arcgis.Kind{}.Discover(context.Background(), c, func(string) {})
			_, _, ferr := arcgis.Kind{}.Fetch(context.Background(), c, "s/FeatureServer/0", t.TempDir(), func(float64) {})
			if tc.name == "bad page" {
				if err != nil || len(ds) != 1 {
					t.Errorf("Discover: %v %+v", err, ds)
				}
				err = ferr
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
			if ferr == nil {
				t.Error("Fetch succeeded")
			}
		})
	}
	if _, err := (arcgis.Kind{}).Discover(context.Background(), remote.Conn{URL: "http://127.0.0.1/arcgis", Fetch: loopback()}, func(string) {}); err == nil || !strings.Contains(err.Error(), "/rest/services") {
		t.Errorf("URL without /rest/services: %v", err)
	}
	if _, _, err := (arcgis.Kind{}).Fetch(context.Background(), remote.Conn{URL: "http://127.0.0.1/rest/services", Fetch: loopback()}, "../x/FeatureServer/0", t.TempDir(), func(float64) {}); err == nil {
		t.Error("Fetch of a path climbing out of /rest/services succeeded")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := remote.Conn{URL: "http://" + addr + "/rest/services", SSLVerify: true, Fetch: loopback()}
	if _, err := (arcgis.Kind{}).Discover(context.Background(), c, func(string) {}); err == nil || !strings.Contains(err.Error(), "cannot reach the server") {
		t.Errorf("closed port: %v", err)
	}
	c.Fetch = &fetch.Client{Guard: &fetch.Guard{}}
	if _, err := (arcgis.Kind{}).Discover(context.Background(), c, func(string) {}); !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Errorf("private address: %v", err)
	}
}
