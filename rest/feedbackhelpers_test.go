package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/geopub/geopub/internal/access"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
)

// seedFeedbackLayer stores a layer or table of owner, published or a
// draft only, with the permissions creation gives.
func seedFeedbackLayer(t *testing.T, e *env, owner *user, typ layer.Type, published bool) int {
	t.Helper()
	return seedLayer(t, e, owner.User, typ, "Roads", !published).ID
}

// seedDocument stores a document of owner with one version.
func seedDocument(t testing.TB, e *env, owner *user, name string, published bool) int {
	t.Helper()
	ctx := context.Background()
	c := e.Store.Client
	d := c.Document.Create().SetName(name).SetUserID(owner.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindDocument, d.ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	v := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(name).SetDatasourceID(1).SetFileKey("documents/x").
		SetFileName(name + ".pdf").SetExtension("pdf").SetFileSize(2048).SetCreatedBy(owner.ID).SaveX(ctx)
	if published {
		now := time.Now().UTC()
		c.DocumentVersion.UpdateOne(v).SetState("published").SetPublishedAt(now).ExecX(ctx)
		c.Document.UpdateOne(d).SetPublishedVersionID(v.ID).SetPublishedAt(now).ExecX(ctx)
	}
	return d.ID
}

type person struct {
	ID        int     `json:"id"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	AvatarURL *string `json:"avatar_url"`
}

type attachment struct {
	ID                int    `json:"id"`
	Title             string `json:"title"`
	HTMLURL           string `json:"html_url"`
	DownloadURL       string `json:"download_url"`
	Extension         string `json:"extension"`
	FileSize          int64  `json:"file_size"`
	FileSizeFormatted string `json:"file_size_formatted"`
}

type feedbackRecord struct {
	ID              int             `json:"id"`
	CreatedBy       *person         `json:"created_by"`
	Description     string          `json:"description"`
	DescriptionHTML string          `json:"description_html"`
	Changes         json.RawMessage `json:"changes"`
	Attachments     []attachment    `json:"attachments"`
	PermalinkURL    *string         `json:"permalink_url"`
	IsInternal      bool            `json:"is_internal"`
}

type feedbackItem struct {
	ID              int     `json:"id"`
	URL             string  `json:"url"`
	CreatedBy       *person `json:"created_by"`
	Title           string  `json:"title"`
	Description     string  `json:"description"`
	DescriptionHTML string  `json:"description_html"`
	Status          string  `json:"status"`
	SubStatus       string  `json:"sub_status"`
	HTMLURL         string  `json:"html_url"`
	Assignee        *person `json:"assignee"`
	TicketedObject  *struct {
		Type    string `json:"type"`
		HTMLURL string `json:"html_url"`
		ID      any    `json:"id"` // a number, or a catalog item's c12
	} `json:"ticketed_object"`
	Tags         string            `json:"tags"`
	Attachments  []attachment      `json:"attachments"`
	PermalinkURL string            `json:"permalink_url"`
	Updates      *[]feedbackRecord `json:"updates"`
}

// postFeedback creates a feedback item as key and returns it.
func postFeedback(t *testing.T, e *env, key string, body map[string]any) feedbackItem {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/comments/", Key: key, Body: body})
	expectStatus(t, r, http.StatusCreated)
	var f feedbackItem
	r.JSON(t, &f)
	return f
}

// putFeedback sends a PUT as key and returns the new update record.
func putFeedback(t *testing.T, e *env, key string, id int, body map[string]any) feedbackRecord {
	t.Helper()
	r := e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/comments/%d/", id), Key: key, Body: body})
	expectStatus(t, r, http.StatusOK)
	var u feedbackRecord
	r.JSON(t, &u)
	return u
}

// getFeedback reads an item's detail as key.
func getFeedback(t *testing.T, e *env, key string, id int) feedbackItem {
	t.Helper()
	r := e.Do(t, req{Path: fmt.Sprintf("/comments/%d/", id), Key: key})
	expectStatus(t, r, http.StatusOK)
	var f feedbackItem
	r.JSON(t, &f)
	return f
}

// expectChanges compares an update record's changes with want, exactly.
func expectChanges(t *testing.T, u feedbackRecord, want string) {
	t.Helper()
	var got, w any
	if err := json.Unmarshal(u.Changes, &got); err != nil {
		t.Fatalf("changes %s: %v", u.Changes, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Fatalf("changes = %s, want %s", u.Changes, want)
	}
}

// listFeedback lists /comments/ with a query as key and returns the ids.
func listFeedback(t *testing.T, e *env, key, query string) ([]int, *http.Response) {
	t.Helper()
	r := e.Do(t, req{Path: "/comments/" + query, Key: key})
	expectStatus(t, r, http.StatusOK)
	var items []map[string]any
	r.JSON(t, &items)
	ids := []int{}
	for _, it := range items {
		if _, ok := it["updates"]; ok {
			t.Fatalf("list items carry no updates: %s", r.Body)
		}
		if _, ok := it["attachments"]; ok {
			t.Fatalf("list items carry no attachments: %s", r.Body)
		}
		ids = append(ids, int(it["id"].(float64)))
	}
	return ids, &http.Response{Header: r.Header}
}

// expectField checks a 400 whose body names field with a message
// mentioning want.
func expectField(t *testing.T, r *servertest.Response, field, want string) {
	t.Helper()
	expectStatus(t, r, http.StatusBadRequest)
	var fields map[string][]string
	r.JSON(t, &fields)
	if len(fields[field]) == 0 || !strings.Contains(fields[field][0], want) {
		t.Fatalf("body %s, want %s: %q", r.Body, field, want)
	}
}
