package rest_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/server"
)

// seedFileDocument stores a published document of u whose file (body) is
// in blob storage, and returns its id.
func seedFileDocument(t *testing.T, e *env, u *user, name, fileName string, body []byte) int {
	t.Helper()
	ctx := t.Context()
	c := e.Store.Client
	d := c.Document.Create().SetName(name).SetUserID(u.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindDocument, d.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("documents/smalldata-%d", d.ID)
	if _, err := e.Server.Resolver.Blobs.Put(ctx, key, bytes.NewReader(body), "text/csv"); err != nil {
		t.Fatal(err)
	}
	v := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(name).SetDatasourceID(0).SetFileKey(key).
		SetFileName(fileName).SetExtension("csv").SetContentType("text/csv").SetFileSize(int64(len(body))).SetCreatedBy(u.ID).
		SetState(documentversion.StatePublished).SaveX(ctx)
	d.Update().SetPublishedVersionID(v.ID).ExecX(ctx)
	return d.ID
}

// smallDataList is the small-data list answer.
type smallDataList struct {
	Item         string `json:"item"`
	MaxFileBytes int64  `json:"max_file_bytes"`
	Files        []struct {
		Document         int     `json:"document"`
		Name             string  `json:"name"`
		Size             int64   `json:"size"`
		MediaType        string  `json:"media_type"`
		URL              *string `json:"url"`
		TooLarge         bool    `json:"too_large"`
		Downloadable     bool    `json:"downloadable"`
		DocumentDownload string  `json:"document_download"`
	} `json:"files"`
}

// get fetches an absolute URL with a key and headers.
func rawGet(t *testing.T, key, u string, header ...string) (*http.Response, []byte) {
	t.Helper()
	rq, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		rq.Header.Set("Authorization", "key "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		rq.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Issue 28.5: a published catalog item's attached files, listed and
// downloaded directly (Range, ETag) up to the size limit.
func TestSmallData(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.SmallDataMaxFileBytes = 64 }, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		body := []byte("bore,depth\r\nA,12\r\nB,40\r\n")
		small := seedFileDocument(t, e, pub, "Bore depths", "bore depths.csv", body)
		large := seedFileDocument(t, e, pub, "Bore logs", "logs.csv", bytes.Repeat([]byte("x"), 65))
		hidden := seedFileDocument(t, e, pub, "Working notes", "notes.csv", []byte("secret"))
		for _, d := range []int{small, large, hidden} {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: it.Attachments, Key: pub.Key, Body: map[string]any{"document": d}}), http.StatusCreated)
		}
		// The hidden document: its owner only.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/documents/%d/permissions/", hidden), Key: pub.Key,
			Body: []map[string]any{{"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		cid := strings.TrimSuffix(it.URL[strings.LastIndex(strings.TrimSuffix(it.URL, "/"), "/")+1:], "/")
		list := e.HTTP.URL + "/services/small-data/v1/item=" + cid + "/"

		var l smallDataList
		e.Do(t, req{Path: list, Key: reader.Key}).JSON(t, &l)
		if l.Item != cid || l.MaxFileBytes != 64 || len(l.Files) != 2 {
			t.Fatalf("list %+v", l)
		}
		f, big := l.Files[0], l.Files[1]
		if f.Document != small || f.Name != "bore depths.csv" || f.Size != int64(len(body)) || f.MediaType != "text/csv" ||
			f.URL == nil || f.TooLarge || !f.Downloadable {
			t.Errorf("small file %+v", f)
		}
		if big.Document != large || !big.TooLarge || big.URL != nil || !strings.HasSuffix(big.DocumentDownload, fmt.Sprintf("/documents/%d/download/", large)) {
			t.Errorf("large file %+v", big)
		}
		var lo smallDataList
		e.Do(t, req{Path: list, Key: pub.Key}).JSON(t, &lo)
		if len(lo.Files) != 3 {
			t.Errorf("the owner sees %d files", len(lo.Files))
		}

		// The file, whole, ranged and revalidated.
		resp, got := rawGet(t, reader.Key, *f.URL)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) || resp.Header.Get("Content-Type") != "text/csv" ||
			!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") || resp.Header.Get("ETag") == "" ||
			resp.Header.Get("Accept-Ranges") != "bytes" || resp.Header.Get("Accepted-OAuth-Scopes") != "catalog" {
			t.Fatalf("file: %d %v %q", resp.StatusCode, resp.Header, got)
		}
		etag := resp.Header.Get("ETag")
		if resp, got = rawGet(t, reader.Key, *f.URL, "Range", "bytes=4-9"); resp.StatusCode != http.StatusPartialContent || string(got) != string(body[4:10]) {
			t.Errorf("range: %d %q", resp.StatusCode, got)
		}
		if resp, _ = rawGet(t, reader.Key, *f.URL, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match: %d", resp.StatusCode)
		}
		if resp, _ = rawGet(t, "", *f.URL+"?key="+reader.Key); resp.StatusCode != http.StatusOK {
			t.Errorf("key parameter: %d", resp.StatusCode)
		}

		// Refusals.
		base := e.HTTP.URL + "/services/small-data/v1/item=" + cid
		for _, c := range []struct {
			key, url string
			want     int
		}{
			{reader.Key, base + fmt.Sprintf("/%d/logs.csv", large), http.StatusForbidden},
			{reader.Key, base + fmt.Sprintf("/%d/notes.csv", hidden), http.StatusNotFound},
			{pub.Key, base + fmt.Sprintf("/%d/notes.csv", hidden), http.StatusOK},
			{reader.Key, base + fmt.Sprintf("/%d/other.csv", small), http.StatusNotFound},
			{reader.Key, base + "/x/other.csv", http.StatusNotFound},
			{reader.Key, e.HTTP.URL + "/services/small-data/v1/item=cx/", http.StatusNotFound},
			{reader.Key, e.HTTP.URL + "/services/small-data/v1/layer=1/", http.StatusNotFound},
			{reader.Key, e.HTTP.URL + "/services/small-data/v1/item=c99999/", http.StatusNotFound},
			{e.Token(t, reader.User, "query"), list, http.StatusUnauthorized},
			{e.Token(t, reader.User, "catalog"), list, http.StatusOK},
		} {
			if resp, b := rawGet(t, c.key, c.url); resp.StatusCode != c.want {
				t.Errorf("%s: %d, want %d: %s", c.url, resp.StatusCode, c.want, b)
			}
		}
		// A private item: 401 to anonymous callers, 404 to others.
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: it.URL + "permissions/", Key: pub.Key,
			Body: []map[string]any{{"permission": "admin", "user": pub.ID}}}), http.StatusOK)
		if resp, _ := rawGet(t, "", list); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("private item, anonymous: %d", resp.StatusCode)
		}
		if resp, _ := rawGet(t, reader.Key, list); resp.StatusCode != http.StatusNotFound {
			t.Errorf("private item, reader: %d", resp.StatusCode)
		}
	})
}
