package queryapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Issue 12, point 10: "under JSONP an invalid key must also be a 200 with
// a string message, as the README already promises". Spec, vector query
// parameters: callback "selects JSONP with that callback name; most
// errors are then returned with status 200 and a string message".
func TestJSONPInvalidKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bad := strings.Repeat("x", 32)
		q := func(extra ...string) url.Values {
			v := url.Values{"key": {bad}, "layer": {"1"}, "x": {"174.7"}, "y": {"-41.2"}, "set": {"1"}}
			for i := 0; i+1 < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			return v
		}
		for _, path := range []string{"/services/query/v1/vector.json", "/services/query/v1/vector", "/api/vectorQuery.json",
			"/api/vectorQuery/", "/services/query/v1/raster.json", "/services/query/v1/set"} {
			resp, body := get(t, e, path, q("callback", "app.show"), nil)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/javascript") {
				t.Fatalf("%s JSONP with an invalid key: %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			s := string(body)
			if !strings.HasPrefix(s, `/**/app.show("`) || !strings.HasSuffix(s, `");`) || !strings.Contains(s, "Invalid token.") {
				t.Fatalf("%s JSONP body %s, want /**/app.show(\"message\");", path, body)
			}
			var msg string
			if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(s, "/**/app.show("), ");")), &msg); err != nil {
				t.Fatalf("%s: the callback's argument is not a JSON string: %s", path, body)
			}
			if resp.Header.Get("Accepted-OAuth-Scopes") != "query" {
				t.Fatalf("%s: Accepted-OAuth-Scopes %q", path, resp.Header.Get("Accepted-OAuth-Scopes"))
			}
		}
		// Without a callback the refusal stays a 401.
		resp, body := get(t, e, "/services/query/v1/vector.json", q(), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "Invalid token.") {
			t.Fatalf("invalid key: %d %s", resp.StatusCode, body)
		}
		// XML is never wrapped: the .xml suffix, or XML by Accept.
		resp, _ = get(t, e, "/services/query/v1/vector.xml", q("callback", "show"), nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("xml with callback and an invalid key: %d", resp.StatusCode)
		}
		resp, _ = get(t, e, "/services/query/v1/vector", q("callback", "show"), map[string]string{"Accept": "application/vnd.geopub.vectorQuery+xml"})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("Accept xml with callback and an invalid key: %d", resp.StatusCode)
		}
		// A callback that is not an identifier is refused, never echoed.
		resp, body = get(t, e, "/services/query/v1/vector.json", q("callback", "alert(1)//"), nil)
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "alert(1)") {
			t.Fatalf("bad callback with an invalid key: %d %s", resp.StatusCode, body)
		}
	})
}
