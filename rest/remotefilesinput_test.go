package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Object-store and file-share sources: their URLs, endpoint and region are
// checked on create and update (400 field errors, nothing written); the
// endpoint and region are rendered in options, the keys never.
func TestRemoteFileSourceInput(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		other := e.NewUser(t, "Other")
		closed := "http://127.0.0.1:1"
		s3 := func(url string, opts map[string]any) map[string]any {
			return map[string]any{"type": "s3", "title": "Bucket", "url_remote": url, "options": opts}
		}
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: s3("s3://geodata/wellington",
			map[string]any{"endpoint": closed, "region": "eu-west-2", "username": "AKIAEXAMPLE", "password": "s3cr3t-key"})})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		if src.Type != "s3" || src.Options["endpoint"] != closed || src.Options["region"] != "eu-west-2" ||
			strings.Contains(string(r.Body), "s3cr3t-key") || strings.Contains(string(r.Body), "AKIAEXAMPLE") {
			t.Fatalf("created %s", r.Body)
		}
		one := fmt.Sprintf("/sources/%d/", src.ID)
		r = e.Do(t, req{Method: "PUT", Path: one, Key: pub.Key, Body: map[string]any{"options": map[string]any{"region": "ap-southeast-2"}}})
		expectStatus(t, r, http.StatusOK)
		if r.JSON(t, &src); src.Options["region"] != "ap-southeast-2" || src.Options["endpoint"] != closed {
			t.Fatalf("after PUT %s", r.Body)
		}
		for name, body := range map[string]map[string]any{
			"Endpoint": {"options": map[string]any{"endpoint": "ftp://s3.example.com"}},
			"Region":   {"options": map[string]any{"region": "Not A Region"}},
			"URL":      {"url_remote": "s3://No_Such/"},
		} {
			r := e.Do(t, req{Method: "PUT", Path: one, Key: pub.Key, Body: body})
			expectStatus(t, r, http.StatusBadRequest)
			if name != "URL" && !strings.Contains(string(r.Body), `"options.`+strings.ToLower(name)+`"`) {
				t.Fatalf("%s: %s", name, r.Body)
			}
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: one, Key: other.Key, Body: map[string]any{"options": map[string]any{"region": "x"}}}), http.StatusNotFound)
		r = e.Do(t, req{Path: one, Key: pub.Key})
		if r.JSON(t, &src); src.Options["region"] != "ap-southeast-2" {
			t.Fatalf("a refused PUT changed the source: %s", r.Body)
		}

		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "cifs", "title": "Share", "url_remote": "cifs://127.0.0.1:1/data/maps", "options": map[string]any{"username": "u", "password": "smb-pw-1"}}})
		expectStatus(t, r, http.StatusCreated)
		if r.JSON(t, &src); src.Type != "cifs" || *src.URLRemote != "cifs://127.0.0.1:1/data/maps" || strings.Contains(string(r.Body), "smb-pw-1") {
			t.Fatalf("created %s", r.Body)
		}

		for name, tc := range map[string]struct {
			body  map[string]any
			field string
		}{
			"S3Bucket":       {s3("s3://Bad_Bucket/x", nil), "url_remote"},
			"S3NoBucket":     {s3("s3:///x", nil), "url_remote"},
			"S3Scheme":       {s3("https://s3.example.com/b", nil), "url_remote"},
			"S3Credentials":  {s3("s3://key:secret@bucket/x", nil), "url_remote"},
			"S3Query":        {s3("s3://bucket/x?versionId=1", nil), "url_remote"},
			"EndpointScheme": {s3("s3://bucket/x", map[string]any{"endpoint": "ftp://s3.example.com"}), "options.endpoint"},
			"EndpointURL":    {s3("s3://bucket/x", map[string]any{"endpoint": "not a url"}), "options.endpoint"},
			"EndpointCreds":  {s3("s3://bucket/x", map[string]any{"endpoint": "http://k:s@127.0.0.1:9000"}), "options.endpoint"},
			"EndpointPriv":   {s3("s3://bucket/x", map[string]any{"endpoint": "http://10.1.2.3:9000"}), "options.endpoint"},
			"Region":         {s3("s3://bucket/x", map[string]any{"region": "us east 1"}), "options.region"},
			"CifsNoShare":    {map[string]any{"type": "cifs", "title": "x", "url_remote": "cifs://files.example/"}, "url_remote"},
			"CifsPort":       {map[string]any{"type": "cifs", "title": "x", "url_remote": "cifs://files.example:99999/s"}, "url_remote"},
			"CifsScheme":     {map[string]any{"type": "cifs", "title": "x", "url_remote": "smb://files.example/s"}, "url_remote"},
			"CifsDotDot":     {map[string]any{"type": "cifs", "title": "x", "url_remote": "cifs://files.example/s/../t"}, "url_remote"},
			"CifsEndpoint":   {map[string]any{"type": "cifs", "title": "x", "url_remote": "cifs://files.example/s", "options": map[string]any{"endpoint": closed}}, "options.endpoint"},
			"URLRegion":      {map[string]any{"type": "url", "title": "x", "url_remote": "https://93.184.216.34/a.zip", "options": map[string]any{"region": "us-east-1"}}, "options.region"},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.Store.Client.Source.Query().CountX(t.Context())
				r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: tc.body})
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), `"`+tc.field+`"`) {
					t.Fatalf("body %s does not name %s", r.Body, tc.field)
				}
				if e.Store.Client.Source.Query().CountX(t.Context()) != before {
					t.Fatal("a refused create wrote a source")
				}
			})
		}
		authMatrix(t, e, req{Method: "POST", Path: "/sources/", Body: s3("s3://bucket/x", map[string]any{"endpoint": closed})}, "sources:write", nil)

		// GraphQL takes the same options.
		create := `mutation($in: CreateSourceInput!) { createSource(input: $in) { type urlRemote endpoint region } }`
		in := map[string]any{"type": "s3", "title": "Bucket", "urlRemote": "s3://geodata/x",
			"options": map[string]any{"endpoint": closed, "region": "eu-west-2", "username": "AKIAEXAMPLE", "password": "s3cr3t-key"}}
		g := e.GraphQL(t, pub.Key, create, map[string]any{"in": in})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"endpoint":"`+closed+`"`) || !strings.Contains(string(g.Data), `"region":"eu-west-2"`) {
			t.Fatalf("GraphQL create %s %+v", g.Data, g.Errors)
		}
		in["options"] = map[string]any{"endpoint": "gopher://x"}
		if g := e.GraphQL(t, pub.Key, create, map[string]any{"in": in}); gqlStatus(g.Errors) != http.StatusBadRequest {
			t.Fatalf("GraphQL bad endpoint %+v", g.Errors)
		}
	})
}

// Without the loopback allow-list the guard refuses a loopback endpoint
// on create and a loopback file server when the scan connects.
func TestRemoteFileSourceGuard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.NewWith(t, st, func(c *server.Config) { c.FetchAllow = nil })
		pub := e.NewUser(t, "Publisher")
		r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "s3", "title": "Bucket", "url_remote": "s3://geodata/", "options": map[string]any{"endpoint": "http://127.0.0.1:9000"}}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), `"options.endpoint"`) || !strings.Contains(string(r.Body), "private or internal") {
			t.Fatalf("loopback endpoint: %s", r.Body)
		}
		r = e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
			"type": "cifs", "title": "Share", "url_remote": "cifs://127.0.0.1:445/data"}})
		expectStatus(t, r, http.StatusCreated)
		var src sourceRecord
		r.JSON(t, &src)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "private or internal") {
			t.Fatalf("scan of a loopback share %+v", sc)
		}
	})
}
