package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/fetch"
)

func TestAllowed(t *testing.T) {
	g := &fetch.Guard{}
	for addr, want := range map[string]bool{
		"93.184.216.34":   true,
		"2606:4700::1111": true,
		"127.0.0.1":       false,
		"10.1.2.3":        false,
		"172.16.0.1":      false,
		"192.168.1.1":     false,
		"169.254.169.254": false, // cloud metadata
		"100.64.0.1":      false,
		"0.0.0.0":         false,
		"::1":             false,
		"fe80::1":         false,
		"fd00::1":         false,
		"::ffff:10.0.0.1": false,
		"224.0.0.1":       false,
	} {
		if got := g.Allowed(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", addr, got, want)
		}
	}
	allow, err := fetch.ParseAllowList("127.0.0.1, 10.1.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	g = &fetch.Guard{Allow: allow}
	if !g.Allowed(netip.MustParseAddr("127.0.0.1")) || !g.Allowed(netip.MustParseAddr("10.1.9.9")) || g.Allowed(netip.MustParseAddr("10.2.0.1")) {
		t.Fatal("allow-list not applied")
	}
	if _, err := fetch.ParseAllowList("not-an-ip"); err == nil {
		t.Fatal("bad allow-list accepted")
	}
}

func TestCheckURL(t *testing.T) {
	g := &fetch.Guard{}
	ctx := context.Background()
	schemes := []string{"http", "https", "ftp"}
	for raw, wantOK := range map[string]bool{
		"https://93.184.216.34/data.zip":          true,
		"https://user:secret@example.com/a.zip":   false, // credentials
		"https://user@example.com/a.zip":          false,
		"file:///etc/passwd":                      false,
		"gopher://example.com/":                   false,
		"not a url":                               false,
		"https://127.0.0.1/a.zip":                 false,
		"http://[::1]:8080/a.zip":                 false,
		"http://169.254.169.254/latest/meta-data": false,
		"https:///nohost":                         false,
	} {
		_, err := g.CheckURL(ctx, "url_remote", raw, schemes, true)
		if (err == nil) != wantOK {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", raw, err, wantOK)
		}
		if err != nil && len(apperr.As(err).Fields["url_remote"]) != 1 {
			t.Errorf("CheckURL(%q): error does not name url_remote: %v", raw, err)
		}
	}
}

func TestDownload(t *testing.T) {
	payload := bytes.Repeat([]byte("geopub "), 1000)
	mux := http.NewServeMux()
	mux.HandleFunc("/data.zip", func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "reader" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Disposition", `attachment; filename="parcels.zip"`)
		w.Write(payload)
	})
	mux.HandleFunc("/plain/roads.geojson", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	mux.HandleFunc("/escape", func(w http.ResponseWriter, r *http.Request) {
		// 127.0.0.2 is loopback too, and not on the allow-list.
		http.Redirect(w, r, strings.Replace("http://"+r.Host+"/plain/roads.geojson", "127.0.0.1", "127.0.0.2", 1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	allow, _ := fetch.ParseAllowList("127.0.0.1")
	c := &fetch.Client{Guard: &fetch.Guard{Allow: allow}, MaxBytes: int64(len(payload))}
	ctx := context.Background()
	get := func(c *fetch.Client, path string, opts fetch.Options) (fetch.Info, []byte, error) {
		var buf bytes.Buffer
		u, _ := url.Parse(srv.URL + path)
		info, err := c.Download(ctx, u, opts, &buf)
		return info, buf.Bytes(), err
	}

	info, body, err := get(c, "/data.zip", fetch.Options{Username: "reader", Password: "s3cret", SSLVerify: true})
	if err != nil || info.Name != "parcels.zip" || info.Size != int64(len(payload)) || !bytes.Equal(body, payload) {
		t.Fatalf("download: %+v %v", info, err)
	}
	if _, _, err := get(c, "/data.zip", fetch.Options{}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without credentials: %v", err)
	}
	if info, _, err := get(c, "/plain/roads.geojson", fetch.Options{}); err != nil || info.Name != "roads.geojson" {
		t.Fatalf("name from path: %+v %v", info, err)
	}
	if _, _, err := get(c, "/escape", fetch.Options{}); !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Fatalf("redirect to a refused address: %v", err)
	}
	small := &fetch.Client{Guard: c.Guard, MaxBytes: 100}
	if _, _, err := get(small, "/data.zip", fetch.Options{Username: "reader", Password: "s3cret"}); !errors.Is(err, fetch.ErrTooLarge) {
		t.Fatalf("size limit: %v", err)
	}
	strict := &fetch.Client{Guard: &fetch.Guard{}}
	if _, _, err := get(strict, "/plain/roads.geojson", fetch.Options{}); !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Fatalf("loopback without allow-list: %v", err)
	}
}
