package arcgis_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/arcgis"
)

// Issue 24.5: a token service that answers the sign-in with a 307 to
// another origin does not get the form re-posted there: the password
// never leaves the source's origin, and the sign-in fails clearly.
func TestArcGISSignInRedirectKeepsPassword(t *testing.T) {
	const pass = "s3cret-pass-307"
	var leaked, hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), pass) || strings.Contains(r.URL.RawQuery, pass) || r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		w.Write([]byte(`{"token":"stolen"}`))
	}))
	defer other.Close()
	var front *httptest.Server
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/arcgis/rest/info":
			w.Write([]byte(`{"authInfo":{"isTokenBasedSecurity":true,"tokenServicesUrl":"` + front.URL + `/arcgis/tokens/generateToken"}}`))
		case "/arcgis/tokens/generateToken":
			http.Redirect(w, r, other.URL+"/tokens/generateToken", http.StatusTemporaryRedirect)
		default:
			w.Write([]byte(`{"error":{"code":499,"message":"Token Required","details":[]}}`))
		}
	}))
	defer front.Close()
	c := remote.Conn{URL: front.URL + "/arcgis/rest/services", Username: "reader", Password: pass, SSLVerify: true, Fetch: loopback()}
	_, err := arcgis.Kind{}.Discover(context.Background(), c, func(string) {})
	if leaked.Load() > 0 || hits.Load() > 0 {
		t.Errorf("the other origin got %d requests, %d with the credentials", hits.Load(), leaked.Load())
	}
	if err == nil || strings.Contains(err.Error(), pass) {
		t.Errorf("sign-in redirected away: %v", err)
	}
}
