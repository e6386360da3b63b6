package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
)

// spoolProbe passes a body through and, every few MiB sent, records the
// most bytes found in dir: what the server has spooled so far.
type spoolProbe struct {
	r        io.Reader
	dir      string
	sent     int64
	most     int64
	nextPeek int64
}

func (p *spoolProbe) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.sent += int64(n)
	if p.sent >= p.nextPeek {
		p.nextPeek += 4 << 20
		var total int64
		_ = filepath.WalkDir(p.dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					total += info.Size()
				}
			}
			return nil
		})
		p.most = max(p.most, total)
	}
	return n, err
}

// send makes one request with a streamed body (length -1: chunked) and
// returns the status and the body's detail; it must finish within 10 s.
func send(t *testing.T, e *env, method, path, key, contentType string, body io.Reader, length int64) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, method, e.API+path, body)
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = length
	r.Header.Set("Content-Type", contentType)
	if key != "" {
		r.Header.Set("Authorization", "key "+key)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out struct{ Detail string }
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out.Detail
}

const boundary = "geopubtestboundary"

// multipartUpload is an upload source whose one file holds size bytes.
func multipartUpload(size int64) (io.Reader, int64) {
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"source\"\r\n\r\n" +
		`{"type": "upload", "title": "Big"}` + "\r\n--" + boundary +
		"\r\nContent-Disposition: form-data; name=\"file0\"; filename=\"big.csv\"\r\nContent-Type: text/csv\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	return io.MultiReader(strings.NewReader(head), servertest.Filler(size), strings.NewReader(tail)), int64(len(head)) + size + int64(len(tail))
}

// An upload is authorized before a byte of it is read: an anonymous or
// under-scoped 50 MB upload is refused and nothing is spooled to disk.
func TestUploadRefusedUnread(t *testing.T) {
	eachSerial(t, func(t *testing.T, e *env) {
		// Multipart parsing spools to os.TempDir(): watch an empty one.
		tmp, err := os.MkdirTemp(t.TempDir(), "spool")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
		u := e.NewUser(t, "Uma")
		readOnly := e.Token(t, u.User, "sources:read")
		for _, c := range []struct {
			name, key string
			status    int
		}{{"anonymous", "", http.StatusUnauthorized}, {"sources:read", readOnly, http.StatusUnauthorized}} {
			body, length := multipartUpload(50 << 20)
			probe := &spoolProbe{r: body, dir: tmp}
			status, detail := send(t, e, http.MethodPost, "/sources/", c.key, "multipart/form-data; boundary="+boundary, probe, length)
			if status != c.status {
				t.Fatalf("%s: status %d (%s)", c.name, status, detail)
			}
			if probe.most > 0 {
				t.Errorf("%s: %d bytes were spooled to %s before the refusal", c.name, probe.most, tmp)
			}
		}
		r := e.Do(t, req{Path: "/sources/", Key: u.Key})
		expectStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), "Big") {
			t.Fatalf("a refused upload made a source: %s", r.Body)
		}
	})
}

// Bodies over a route's cap get 413 with a detail naming the limit, at
// once when they announce their length and as soon as the cap is passed
// when they are chunked: JSON (1 MiB), metadata XML (10 MiB), uploads
// (--max-upload-mb, 2048 MiB by default).
func TestBodyLimits(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Bea")
		const head, tail = `{"name": "Big", "description": "`, `"}`
		jsonBody := func() io.Reader {
			return io.MultiReader(strings.NewReader(head), servertest.Filler(2<<20), strings.NewReader(tail))
		}
		for _, length := range []int64{int64(len(head)+len(tail)) + 2<<20, -1} {
			status, detail := send(t, e, http.MethodPost, "/group/", u.Key, "application/json", jsonBody(), length)
			if status != http.StatusRequestEntityTooLarge || !strings.Contains(detail, "1 MiB") {
				t.Errorf("JSON body, length %d: %d %q", length, status, detail)
			}
		}
		status, detail := send(t, e, http.MethodPost, "/layers/1/versions/1/metadata/", u.Key, "text/xml", servertest.Filler(11<<20), -1)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(detail, "10 MiB") {
			t.Errorf("metadata XML: %d %q", status, detail)
		}
		body, length := multipartUpload(3 << 30)
		status, detail = send(t, e, http.MethodPost, "/sources/", u.Key, "multipart/form-data; boundary="+boundary, body, length)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(detail, "2048 MiB") {
			t.Errorf("upload over the cap: %d %q", status, detail)
		}
	})
}

// Lists of ids in a body are capped (graph.MaxListInput) whichever front
// door they come through: 33,000 version URLs fit in a 1 MiB body and
// used to reach SQLite as one IN (...) past its 32,766 parameters, a 500.
func TestIDListLimits(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		u := e.NewUser(t, "Pia")
		items := make([]string, 33000)
		for i := range items {
			items[i] = fmt.Sprintf("/layers/1/versions/%d", i+1)
		}
		r := e.Do(t, req{Method: "POST", Path: "/publish/", Key: u.Key, Body: map[string]any{"items": items}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "1000") {
			t.Fatalf("publish: body %s", r.Body)
		}
		ids := make([]int, 33000)
		for i := range ids {
			ids[i] = i + 1
		}
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: u.Key, Body: map[string]any{"name": "Many", "data": map[string]any{"datasources": ids}}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "1000") {
			t.Fatalf("layer datasources: body %s", r.Body)
		}
	})
}
