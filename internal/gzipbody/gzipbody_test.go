package gzipbody

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Compressed bodies decompress to the original, also when compressors
// are reused by concurrent callers.
func TestCompressRoundTrip(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := bytes.Repeat([]byte(strings.Repeat("tile ", i+1)), 200*i+1)
			zr, err := gzip.NewReader(bytes.NewReader(Compress(body)))
			if err != nil {
				t.Error(err)
				return
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("body %d: %v, %d bytes back of %d", i, err, len(got), len(body))
			}
		}()
	}
	wg.Wait()
}

// RFC 9110 §12.5.3: a coding with q=0 is "not acceptable".
func TestAccepted(t *testing.T) {
	for ae, want := range map[string]bool{
		"": false, "gzip": true, "br, GZIP;q=0.5": true, "gzip;q=0": false, "gzip; q=0.000": false,
		"deflate": false, "identity, gzip ;q=1": true,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", ae)
		if got := Accepted(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", ae, got, want)
		}
	}
}

// An empty body is a valid gzip stream of nothing, and a body that does
// not compress (random bytes) still fits libdeflate's bound.
func TestCompressEdges(t *testing.T) {
	random := make([]byte, 70000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for name, body := range map[string][]byte{"empty": nil, "one byte": {7}, "incompressible": random} {
		zr, err := gzip.NewReader(bytes.NewReader(Compress(body)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: %v, %d bytes back of %d", name, err, len(got), len(body))
		}
	}
}
