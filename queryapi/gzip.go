package queryapi

import (
	"net/http"
	"strconv"

	"github.com/geopub/geopub/internal/gzipbody"
)

// writeGzip sends body gzip-compressed.
func writeGzip(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	gz := gzipbody.Compress(body)
	h.Set("Content-Length", strconv.Itoa(len(gz)))
	w.WriteHeader(status)
	_, _ = w.Write(gz)
}
