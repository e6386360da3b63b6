package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5/middleware"
)

// Request IDs: the client's X-Request-Id is kept; otherwise each request
// gets a new one under the process's prefix, readable through chi's
// middleware.GetReqID as the logs read it.
func TestRequestIDs(t *testing.T) {
	var got []string
	h := newRequestIDs().middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, middleware.GetReqID(r.Context()))
	}))
	for range 2 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	}
	r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	r.Header.Set("X-Request-Id", "client-chosen-7")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got[0] == "" || got[0] == got[1] {
		t.Fatalf("generated IDs %q and %q: want two different, non-empty", got[0], got[1])
	}
	prefix := got[0][:strings.LastIndex(got[0], "-")+1]
	if !strings.HasPrefix(got[1], prefix) || !strings.HasSuffix(got[0], "-1") || !strings.HasSuffix(got[1], "-2") {
		t.Fatalf("generated IDs %q, %q: want one prefix, numbered 1 and 2", got[0], got[1])
	}
	if got[2] != "client-chosen-7" {
		t.Fatalf("the client's X-Request-Id became %q", got[2])
	}
}
