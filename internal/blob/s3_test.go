package blob_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/blob"
)

// Issue 24, point 25: S3-compatible servers (gofakes3 here; versitygw,
// MinIO and Ceph in the field) do not know the checksums newer AWS SDKs
// send and expect, so a store URL with endpoint= and nothing else failed
// every upload until the operator found the two checksum parameters. With
// an endpoint they default to when_required: no request carries a
// checksum the server did not ask for.
func TestS3CompatibleStoreNeedsNoChecksumParameters(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range r.Header {
				if k = strings.ToLower(k); strings.HasPrefix(k, "x-amz-checksum-") || k == "x-amz-sdk-checksum-algorithm" || k == "x-amz-trailer" {
					mu.Lock()
					sent = append(sent, r.Method+" "+k+": "+strings.Join(v, ","))
					mu.Unlock()
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	s, err := blob.Open(t.Context(), fakeS3(t, record), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Past the transfer manager's 16 MiB threshold: a multipart upload,
	// streamed from a reader of unknown length.
	body := bytes.Repeat([]byte("0123456789abcdef"), 18<<16)
	if _, err := s.Put(t.Context(), "a/b.bin", io.MultiReader(bytes.NewReader(body)), "application/octet-stream"); err != nil {
		t.Fatalf("upload to an S3-compatible store with only endpoint, region and use_path_style: %v", err)
	}
	r, _, err := s.Open(t.Context(), "a/b.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); !bytes.Equal(b, body) {
		t.Fatalf("read back %d bytes of %d", len(b), len(body))
	}
	if len(sent) > 0 {
		t.Fatalf("requests carried checksums an S3-compatible server may refuse: %q", sent)
	}
}

// Issue 24, point 25: the AWS SDK wrote its warnings as plain-text lines
// on stderr, into the middle of the JSON log. They are records of the
// service's logger now. Asking for response checksums the fake server
// does not send makes the SDK warn on every read.
func TestS3SDKLogsAreRecords(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, nil))
	s, err := blob.OpenLogged(t.Context(), fakeS3(t)+"&response_checksum_validation=when_supported", "", logger)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(t.Context(), "k", strings.NewReader("payload"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	r, _, err := s.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(r)
	r.Close()
	var sdk int
	for line := range strings.Lines(out.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		if rec["component"] == "aws-sdk" {
			sdk++
			t.Logf("SDK record: %s", strings.TrimSpace(line))
		}
	}
	if sdk == 0 {
		t.Fatalf("no SDK record reached the logger; its output: %q", out.String())
	}
}
