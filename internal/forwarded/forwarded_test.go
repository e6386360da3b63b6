package forwarded

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Issue 24, point 21: behind a proxy every client had the proxy's address.
// Proxy headers count from the operator's proxies only, read from the
// right, so a client cannot choose its own address by sending them.
func TestMiddleware(t *testing.T) {
	p, err := Parse("10.0.0.0/8, 192.0.2.7, ::1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer string
		header     map[string]string
		addr, org  string
	}{
		{"untrusted peer: headers ignored", "203.0.113.5:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.1", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"},
			"203.0.113.5:4000", "http://geopub.test"},
		{"one proxy", "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.1", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "data.example.com"},
			"198.51.100.1:4000", "https://data.example.com"},
		{"client-sent entries on the left are not believed", "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "127.0.0.1, 198.51.100.1"},
			"198.51.100.1:4000", "http://geopub.test"},
		{"chain of trusted proxies", "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.1, 10.9.9.9, 192.0.2.7"},
			"198.51.100.1:4000", "http://geopub.test"},
		{"garbage stops the walk", "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.1, garbage, 10.9.9.9"},
			"10.9.9.9:4000", "http://geopub.test"},
		{"RFC 7239 Forwarded", "[::1]:4000",
			map[string]string{"Forwarded": `for="[2001:db8::9]:5555";proto=https;host=maps.example.org`},
			"[2001:db8::9]:4000", "https://maps.example.org"},
		{"Forwarded wins over X-Forwarded-For", "10.1.2.3:4000",
			map[string]string{"Forwarded": "for=198.51.100.2", "X-Forwarded-For": "198.51.100.3"},
			"198.51.100.2:4000", "http://geopub.test"},
		{"a host with a path is refused", "10.1.2.3:4000",
			map[string]string{"X-Forwarded-Host": "evil.example/x"},
			"10.1.2.3:4000", "http://geopub.test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var addr, org string
			h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				addr, org = r.RemoteAddr, Origin(r)
			}))
			req := httptest.NewRequest(http.MethodGet, "http://geopub.test/x", nil)
			req.RemoteAddr = c.peer
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if addr != c.addr || org != c.org {
				t.Errorf("RemoteAddr %q, Origin %q; want %q, %q", addr, org, c.addr, c.org)
			}
		})
	}
	if _, err := Parse("10.0.0.0/8, nonsense"); err == nil {
		t.Error("Parse accepted a list with nonsense in it")
	}
}
