package frontpage_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/geopub/geopub/web/frontpage"
)

func TestFrontPageLinksEverywhere(t *testing.T) {
	srv := httptest.NewServer(frontpage.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, l := range frontpage.Links {
		if !strings.Contains(string(body), `href="`+l.Href+`"`) {
			t.Errorf("the page does not link %s", l.Href)
		}
	}
	if strings.Contains(string(body), "http://") || strings.Contains(string(body), "https://") {
		t.Errorf("the page names an outside address:\n%s", body)
	}
}
