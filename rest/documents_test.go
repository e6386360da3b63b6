package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Spec, Documents: create from exactly one document datasource (201 with
// Location), publish through the version's import/ path, and DELETE of a
// version: 405 {error} when not a draft, 409 {error} when already deleted.
func TestDocuments(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		src := upload(t, e, pub.Key, map[string][]byte{"data.zip": zipOf(t, fixtureFiles)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		pdf, roads := ds["readme.pdf"], ds["roads.geojson"]
		dsURL := fmt.Sprintf("%s/sources/%d/datasources/%d/", e.API, src.ID, pdf.ID)

		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/documents/", Key: pub.Key, Body: map[string]any{
			"name": "Roads", "data": map[string]any{"datasources": fmt.Sprintf("%s/sources/%d/datasources/%d/", e.API, src.ID, roads.ID)}}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/documents/", Key: pub.Key, Body: map[string]any{
			"name": "Two", "data": map[string]any{"datasources": []int{pdf.ID, pdf.ID}}}}), http.StatusBadRequest)
		authMatrix(t, e, req{Method: "POST", Path: "/documents/", Body: map[string]any{"name": "x"}}, "documents:write", nil)

		r := e.Do(t, req{Method: "POST", Path: "/documents/", Key: pub.Key, Body: map[string]any{
			"name": "Read me", "user": fmt.Sprintf("%s/users/%d/", e.API, pub.ID), "data": map[string]any{"datasources": dsURL}}})
		expectStatus(t, r, http.StatusCreated)
		var v struct {
			ID        int              `json:"id"`
			URL       string           `json:"url"`
			State     string           `json:"state"`
			CreatedBy struct{ ID int } `json:"created_by"`
		}
		r.JSON(t, &v)
		if r.Header.Get("Location") != v.URL || v.State != "draft" || v.CreatedBy.ID != pub.ID {
			t.Fatalf("created %s (Location %s)", r.Body, r.Header.Get("Location"))
		}
		docURL := v.URL[:strings.Index(v.URL, "versions/")]

		var doc struct {
			ID               int     `json:"id"`
			Name             string  `json:"name"`
			Extension        string  `json:"extension"`
			FileSize         int64   `json:"file_size"`
			URLDownload      string  `json:"url_download"`
			PublishedVersion *string `json:"published_version"`
			ThisVersion      string  `json:"this_version"`
			Data             struct{ Datasource string }
		}
		r = e.Do(t, req{Path: docURL, Key: pub.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &doc)
		if doc.Extension != "pdf" || doc.FileSize != int64(len(fixtureFiles["readme.pdf"])) || doc.PublishedVersion != nil || doc.Data.Datasource != dsURL {
			t.Fatalf("document %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: docURL, Key: reader.Key}), http.StatusNotFound)

		// Publish through the version's import/ path.
		r = e.Do(t, req{Method: "POST", Path: v.URL + "import/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &v)
		if v.State != "published" {
			t.Fatalf("published %s", r.Body)
		}
		r = e.Do(t, req{Path: docURL, Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &doc)
		if doc.PublishedVersion == nil || *doc.PublishedVersion != v.URL {
			t.Fatalf("reader sees %s", r.Body)
		}
		r = e.Do(t, req{Path: doc.URLDownload, Key: reader.Key})
		if r.Status != http.StatusOK || string(r.Body) != fixtureFiles["readme.pdf"] ||
			r.Header.Get("Content-Disposition") != `attachment; filename="readme.pdf"` || r.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("download %d %v", r.Status, r.Header)
		}

		// Deleting a version that is not a draft: 405 {error}.
		r = e.Do(t, req{Method: "DELETE", Path: v.URL, Key: pub.Key})
		expectStatus(t, r, http.StatusMethodNotAllowed)
		var eb map[string]string
		r.JSON(t, &eb)
		if eb["error"] == "" {
			t.Fatalf("405 body %s", r.Body)
		}
		// A draft, deleted twice: 204 then 409 {error}.
		r = e.Do(t, req{Method: "POST", Path: docURL + "versions/", Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		var draft struct{ URL string }
		r.JSON(t, &draft)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: docURL + "versions/", Key: pub.Key}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: draft.URL, Key: pub.Key, Body: map[string]any{"name": "Read me v2"}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft.URL, Key: pub.Key}), http.StatusNoContent)
		r = e.Do(t, req{Method: "DELETE", Path: draft.URL, Key: pub.Key})
		expectStatus(t, r, http.StatusConflict)
		r.JSON(t, &eb)
		if eb["error"] == "" {
			t.Fatalf("409 body %s", r.Body)
		}
		// The published version stays what readers see.
		r = e.Do(t, req{Path: docURL, Key: reader.Key})
		r.JSON(t, &doc)
		if doc.Name != "Read me" {
			t.Fatalf("after the draft: %s", r.Body)
		}
		r = e.Do(t, req{Path: "/documents/", Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		if r.Header.Get("Accepted-OAuth-Scopes") != "documents:read" || !strings.Contains(string(r.Body), `"file_size_formatted"`) {
			t.Fatalf("list %v %s", r.Header, r.Body)
		}
		wrong := e.Token(t, reader.User, "query")
		expectDetail(t, e.Do(t, req{Path: "/documents/", Key: wrong}), http.StatusUnauthorized, "documents:read")
		// The reader sees the document but may not delete it: 403.
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: docURL, Key: reader.Key}), http.StatusForbidden)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: docURL, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Path: docURL, Key: pub.Key}), http.StatusNotFound)
	})
}
