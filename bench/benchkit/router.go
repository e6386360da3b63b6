package benchkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// ServeLoop is an in-process benchmark of a server's handler: it sends
// paths through h in turn from one loopback address with the header
// fields of header (nil for none), first each once
// outside the timing (indexes, caches and the key cache warm), and fails
// on any answer but 200. Without sockets or a client in the measurement,
// its ns/op and allocs/op compare two commits where loopback load is
// noisy on a small machine.
func ServeLoop(b *testing.B, h http.Handler, paths []string, header http.Header) {
	do := func(i int) {
		p := paths[i%len(paths)]
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.RemoteAddr = "127.0.0.1:5555"
		for k, v := range header {
			req.Header[k] = v
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", p, w.Code, w.Body)
		}
	}
	for i := range paths {
		do(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		do(i)
		i++
	}
}
