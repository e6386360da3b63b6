package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
)

// Issue 26.3: "Restore: create a draft from any earlier version (data,
// schema and metadata), which then publishes normally", for sets (their
// members) and catalog items (their metadata) as for layers: POST
// …/versions/{vid}/restore/ answers 201 with the new draft, which starts
// as the version it restores, publishes, and is what the published set or
// item then is; a second restore while the draft exists is 409.
func TestRestoreSetsAndItems(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		roads := seedLayer(t, e, pub.User, layer.TypeLayer, "Roads", false)
		rivers := seedLayer(t, e, pub.User, layer.TypeLayer, "Rivers", false)

		s := doJSON[setRecord](t, e, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Water", "items": []string{memberURL(e, roads)}}}, http.StatusCreated)
		v1 := s.ThisVersion
		expectStatus(t, e.Do(t, req{Method: "POST", Path: v1 + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusCreated)
		d := doJSON[setRecord](t, e, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{
			"title": "Water and more", "items": []string{memberURL(e, roads), memberURL(e, rivers)}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusCreated)

		r := e.Do(t, req{Method: "POST", Path: v1 + "restore/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var rs setRecord
		r.JSON(t, &rs)
		if r.Header.Get("Location") != rs.ThisVersion || rs.Version.State != "draft" || rs.ThisVersion == v1 || rs.Title != "Water" ||
			!slices.Equal(rs.itemURLs(t), []string{memberURL(e, roads)}) {
			t.Fatalf("restored set draft %s (Location %q)", r.Body, r.Header.Get("Location"))
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: v1 + "restore/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: rs.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusCreated)
		if got := getSet(t, e, pub.Key, s.URL, nil); got.PublishedVersion == nil || *got.PublishedVersion != rs.ThisVersion ||
			got.Title != "Water" || !slices.Equal(got.itemURLs(t), []string{memberURL(e, roads)}) {
			t.Fatalf("published after the restore %+v", got)
		}

		it := createItem(t, e, pub, map[string]any{"title": "Tide gauges", "link_url": "https://example.org/tides", "tags": []string{"sea"}})
		i1 := it.ThisVersion
		publishItem(t, e, pub, i1)
		di := doJSON[itemRecord](t, e, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: di.ThisVersion, Key: pub.Key, Body: map[string]any{
			"title": "Tide gauges (new)", "link_url": "https://example.org/tides2", "tags": []string{"sea", "tide"}}}), http.StatusOK)
		publishItem(t, e, pub, di.ThisVersion)

		ri := doJSON[itemRecord](t, e, req{Method: "POST", Path: i1 + "restore/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		if ri.Version.State != "draft" || ri.Title != "Tide gauges" || ri.LinkURL != "https://example.org/tides" || !slices.Equal(ri.Tags, []string{"sea"}) {
			t.Fatalf("restored item draft %+v", ri)
		}
		if got := publishItem(t, e, pub, ri.ThisVersion); got.Title != "Tide gauges" || got.LinkURL != "https://example.org/tides" {
			t.Fatalf("published after the restore %+v", got)
		}
		// A version never published cannot be restored; nor one of
		// another dataset.
		d2 := doJSON[itemRecord](t, e, req{Method: "POST", Path: it.URL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d2.ThisVersion + "restore/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: it.URL + "versions/999999/restore/", Key: pub.Key, Body: map[string]any{}}), http.StatusNotFound)
	})
}

// Restoring a document's earlier version brings back its file and name:
// published after a version with another file, the restored draft
// downloads the first file again.
func TestRestoreDocument(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		files := map[string]string{"a.pdf": fixtureFiles["readme.pdf"], "b.pdf": strings.Replace(fixtureFiles["readme.pdf"], "%%EOF", "% second\n%%EOF", 1)}
		src := upload(t, e, pub.Key, map[string][]byte{"docs.zip": zipOf(t, files)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		dsURL := func(name string) string {
			return fmt.Sprintf("%s/sources/%d/datasources/%d/", e.API, src.ID, ds[name].ID)
		}
		type version struct{ URL, State string }
		v1 := doJSON[version](t, e, req{Method: "POST", Path: "/documents/", Key: pub.Key, Body: map[string]any{
			"name": "Report", "data": map[string]any{"datasources": dsURL("a.pdf")}}}, http.StatusCreated)
		docURL := v1.URL[:strings.Index(v1.URL, "versions/")]
		expectStatus(t, e.Do(t, req{Method: "POST", Path: v1.URL + "import/", Key: pub.Key, Body: map[string]any{}}), http.StatusOK)
		d := doJSON[version](t, e, req{Method: "POST", Path: docURL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: d.URL, Key: pub.Key, Body: map[string]any{
			"name": "Report, revised", "data": map[string]any{"datasources": dsURL("b.pdf")}}}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.URL + "import/", Key: pub.Key, Body: map[string]any{}}), http.StatusOK)
		download := func(want string) {
			t.Helper()
			var doc struct {
				Name        string `json:"name"`
				URLDownload string `json:"url_download"`
			}
			r := e.Do(t, req{Path: docURL, Key: pub.Key})
			expectStatus(t, r, http.StatusOK)
			r.JSON(t, &doc)
			if f := e.Do(t, req{Path: doc.URLDownload, Key: pub.Key}); f.Status != http.StatusOK || string(f.Body) != files[want] {
				t.Fatalf("%s downloads %d %q, want %s", doc.Name, f.Status, f.Body, want)
			}
		}
		download("b.pdf")

		rv := doJSON[version](t, e, req{Method: "POST", Path: v1.URL + "restore/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		if rv.State != "draft" || rv.URL == v1.URL {
			t.Fatalf("restored draft %+v", rv)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: rv.URL + "import/", Key: pub.Key, Body: map[string]any{}}), http.StatusOK)
		download("a.pdf")
	})
}
