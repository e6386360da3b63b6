package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// changeEvent is what the tests read of an event.
type changeEvent struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	Dataset struct {
		Type  string `json:"type"`
		ID    any    `json:"id"`
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"dataset"`
	Version         *struct{ ID int } `json:"version"`
	PreviousVersion *struct{ ID int } `json:"previous_version"`
	Detail          map[string]any    `json:"detail"`
	URL             string            `json:"url"`
}

func eventTypes(es []changeEvent) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
	}
	return out
}

// readChanges reads a feed page and the cursor its page-next link names.
func readChanges(t *testing.T, e *env, r req) ([]changeEvent, string) {
	t.Helper()
	resp := e.Do(t, r)
	expectStatus(t, resp, http.StatusOK)
	var es []changeEvent
	resp.JSON(t, &es)
	link := resp.Header.Get("Link")
	_, nextLink, ok := strings.Cut(link, `rel="page-first", `)
	i := strings.Index(nextLink, "after=")
	if !ok || i < 0 || !strings.HasSuffix(nextLink, `rel="page-next"`) {
		t.Fatalf("Link %q: want page-first, then a page-next link with the cursor", link)
	}
	after := nextLink[i+len("after="):]
	return es, after[:strings.IndexAny(after, "&>")]
}

// Issue 26.4: "per dataset and for the whole catalogue, an ordered,
// resumable feed of events (published, new version with its diff counts,
// schema changed, permission changed, ... deleted), readable by REST
// (cursor) ... and Atom for feed readers."
func TestChangeFeed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		outsider := e.NewUser(t, "Otto")
		admin := e.NewUser(t, "Ada", servertest.SiteAdmin)
		layerURL, v1, v2 := twoVersions(t, e, pub,
			parcelCollection(parcelFeature(10, "a", 174.70), parcelFeature(20, "b", 174.71), parcelFeature(30, "c", 174.72)),
			parcelCollection(parcelFeature(10, "a", 174.80), parcelFeature(20, "b2", 174.71), parcelFeature(40, "d", 174.73)))
		feed := "/changes/"

		// The new version's counts come from a job shortly after the publish.
		var es []changeEvent
		var next string
		waitFor(t, "the new version's event", func() bool {
			es, next = readChanges(t, e, req{Path: feed})
			return len(es) == 2
		})
		if got := eventTypes(es); !slices.Equal(got, []string{"dataset.published", "dataset.new_version"}) {
			t.Fatalf("events %v", got)
		}
		nv := es[1]
		if nv.Dataset.Type != "layer" || nv.Dataset.Title != "Parcels" || nv.Dataset.URL != layerURL ||
			nv.Version == nil || nv.Version.ID != v2 || nv.PreviousVersion == nil || nv.PreviousVersion.ID != v1 {
			t.Fatalf("new version event %+v", nv)
		}
		if c := fmt.Sprint(nv.Detail["counts"]); c != "map[deletes:1 inserts:1 updates:2]" || fmt.Sprint(nv.Detail["matched_by"]) != "[code]" {
			t.Fatalf("new version detail %v: want the diff's counts, matched by code", nv.Detail)
		}
		if es[0].Version == nil || es[0].Version.ID != v1 || es[0].PreviousVersion != nil {
			t.Fatalf("published event %+v", es[0])
		}
		if next != fmt.Sprint(nv.ID) {
			t.Fatalf("page-next cursor %s, want the last event's id %d", next, nv.ID)
		}

		// Resuming: after the first event, the second; after the last,
		// nothing, with the cursor kept.
		if rest, _ := readChanges(t, e, req{Path: feed + "?after=" + fmt.Sprint(es[0].ID)}); len(rest) != 1 || rest[0].ID != nv.ID {
			t.Fatalf("after the first event: %v", eventTypes(rest))
		}
		if none, cur := readChanges(t, e, req{Path: feed + "?after=" + next}); len(none) != 0 || cur != next {
			t.Fatalf("after the last event: %v, cursor %s", eventTypes(none), cur)
		}
		// The layer's own feed, and a type filter.
		if own, _ := readChanges(t, e, req{Path: layerURL + "changes/"}); len(own) != 2 {
			t.Fatalf("the layer's feed: %v", eventTypes(own))
		}
		if nvs, _ := readChanges(t, e, req{Path: feed + "?types=dataset.new_version"}); len(nvs) != 1 {
			t.Fatalf("new versions only: %v", eventTypes(nvs))
		}

		// Revoking everyone's view: a permissions event its owner sees,
		// and the layer's whole history gone for anonymous callers.
		r := e.Do(t, req{Method: "DELETE", Path: layerURL + "permissions/group.everyone/", Key: pub.Key})
		if r.Status != http.StatusNoContent {
			t.Fatalf("revoking everyone: %d %s", r.Status, r.Body)
		}
		if owner, _ := readChanges(t, e, req{Path: feed + "?after=" + next, Key: pub.Key}); !slices.Equal(eventTypes(owner), []string{"dataset.permissions_changed"}) {
			t.Fatalf("the owner after the revocation: %v", eventTypes(owner))
		}
		if anon, cur := readChanges(t, e, req{Path: feed}); len(anon) != 0 || cur == "0" {
			t.Fatalf("anonymous after the revocation: %v, cursor %s (want none, and the cursor past them)", eventTypes(anon), cur)
		}
		expectStatus(t, e.Do(t, req{Path: layerURL + "changes/", Key: outsider.Key}), http.StatusNotFound)

		// Deleting it: a deletion its owner's feed shows; anonymous
		// callers still see nothing (it was private by then).
		if r := e.Do(t, req{Method: "DELETE", Path: layerURL, Key: pub.Key}); r.Status != http.StatusNoContent {
			t.Fatalf("deleting the layer: %d %s", r.Status, r.Body)
		}
		all, _ := readChanges(t, e, req{Path: feed, Key: admin.Key})
		if got := eventTypes(all); !slices.Equal(got, []string{"dataset.published", "dataset.new_version", "dataset.permissions_changed", "dataset.deleted"}) {
			t.Fatalf("a site administrator's feed: %v", got)
		}
		if anon, _ := readChanges(t, e, req{Path: feed}); len(anon) != 0 {
			t.Fatalf("anonymous sees %v of a layer deleted while private", eventTypes(anon))
		}
	})
}

// Bad input is a 400 naming the parameter; a dataset the caller may not
// see is a 404.
func TestChangeFeedRefusals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		feed := "/changes/"
		for q, field := range map[string]string{
			"?after=yesterday": "after", "?after=-3": "after", "?page_size=0": "page_size", "?page_size=201": "page_size",
			"?types=dataset.renamed": "types", "?format=rss": "format",
		} {
			r := e.Do(t, req{Path: feed + q})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), field) {
				t.Errorf("%s: %s does not name %s", q, r.Body, field)
			}
		}
		expectStatus(t, e.Do(t, req{Path: "/layers/999/changes/"}), http.StatusNotFound)
		// A token without the catalog scope.
		u := e.NewUser(t, "Scoped")
		r := e.Do(t, req{Path: feed, Key: e.Token(t, u.User, "query")})
		expectDetail(t, r, http.StatusUnauthorized, "catalog")
	})
}

// Atom, read by feedparser (Python's feed reader library): the newest
// events first, each with its id, title, date and link.
func TestChangeFeedAtom(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		python := requirePython(t, "feedparser", "python3-feedparser")
		pub := e.NewUser(t, "Petra")
		layerURL, _, _ := twoVersions(t, e, pub,
			parcelCollection(parcelFeature(10, "a", 174.70)),
			parcelCollection(parcelFeature(10, "a", 174.80), parcelFeature(20, "b", 174.71)))
		feed := "/changes/"
		waitFor(t, "the new version's event", func() bool {
			es, _ := readChanges(t, e, req{Path: feed})
			return len(es) == 2
		})
		for _, rq := range []req{{Path: feed + "?format=atom"}, {Path: layerURL + "changes/", Header: map[string]string{"Accept": "application/atom+xml"}}} {
			r := e.Do(t, rq)
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/atom+xml") {
				t.Fatalf("%s: %d %s", rq.Path, r.Status, r.Header.Get("Content-Type"))
			}
			script := `
import sys, feedparser
d = feedparser.parse(sys.stdin.buffer.read())
if d.bozo:
    print("not well-formed:", d.bozo_exception); sys.exit(1)
print(d.version)
print(d.feed.title)
for x in d.entries:
    print(x.id, "|", x.title, "|", x.updated_parsed is not None, "|", x.link, "|", x.tags[0].term, "|", x.summary)
`
			cmd := exec.Command(python, "-c", script)
			cmd.Stdin = strings.NewReader(string(r.Body))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("feedparser: %v\n%s\n%s", err, out, r.Body)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 4 || lines[0] != "atom10" {
				t.Fatalf("feedparser read:\n%s", out)
			}
			first, second := lines[2], lines[3]
			if !strings.Contains(first, "Parcels has a new version") || !strings.Contains(first, "dataset.new_version") ||
				!strings.Contains(first, "1 inserted, 1 updated, 0 deleted") || !strings.Contains(first, "| True |") ||
				!strings.Contains(first, strings.Replace(layerURL, "/services/api/v1.x/", "/", 1)+" |") {
				t.Errorf("newest entry: %s", first)
			}
			if !strings.Contains(second, "Parcels published") {
				t.Errorf("second entry: %s", second)
			}
		}
	})
}

// requirePython returns /usr/bin/python3 when it can import module,
// failing in CI (GEOPUB_REQUIRE_TOOLS) and skipping elsewhere otherwise.
func requirePython(t *testing.T, module, pkg string) string {
	t.Helper()
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import "+module).Run(); err != nil {
		msg := python + " cannot import " + module + " (" + pkg + "): make deps"
		if os.Getenv("CI") != "" || os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return python
}

// The feed through GraphQL: the changes query (a dataset's, paged) and
// the changes subscription, which gives only new events by default and
// each as it commits.
func TestChangeFeedGraphQL(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelCollection(parcelFeature(1, "a", 174.7))},
			"parcels.geojson", "Parcels")
		publishLayerDraft(t, e, pub, draft)
		layerID := versionNumber(t, strings.Split(draft, "versions/")[0])

		const q = `query($id: ID!) { changes(first: 1, dataset: {type: LAYER, id: $id}) {
			events { cursor type datasetType datasetId title versionId previousVersionId at } next totalCount } }`
		g := e.GraphQL(t, "", q, map[string]any{"id": layerID})
		if len(g.Errors) > 0 {
			t.Fatalf("changes: %+v", g.Errors)
		}
		var page struct {
			Changes struct {
				Events []struct {
					Cursor, Type, DatasetType, Title string
					DatasetID                        string `json:"datasetId"`
					VersionID                        *int
				}
				Next       string
				TotalCount int
			}
		}
		if err := json.Unmarshal(g.Data, &page); err != nil {
			t.Fatal(err)
		}
		ev := page.Changes.Events
		if len(ev) != 1 || ev[0].Type != "dataset.published" || ev[0].DatasetType != "LAYER" || ev[0].DatasetID != fmt.Sprint(layerID) ||
			ev[0].Title != "Parcels" || ev[0].VersionID == nil || page.Changes.TotalCount != 1 || page.Changes.Next != ev[0].Cursor {
			t.Fatalf("changes page %+v", page.Changes)
		}
		bad := e.GraphQL(t, "", `{ changes(first: 0) { next } }`, nil)
		if len(bad.Errors) != 1 || bad.Errors[0].Code() != "BAD_REQUEST" {
			t.Fatalf("first: 0 answered %+v", bad.Errors)
		}

		// The subscription: nothing old, then the second layer's publish.
		sub := subscribeWSTo(t, e, pub.Key, `subscription { changes { type datasetType datasetId title } }`, map[string]any{})
		d2 := importedDraft(t, e, pub.Key, map[string]string{"roads.geojson": parcelCollection(parcelFeature(2, "b", 174.8))},
			"roads.geojson", "Roads")
		publishLayerDraft(t, e, pub, d2)
		m := sub.read()
		b, _ := json.Marshal(m["payload"])
		if m["type"] != "next" || !strings.Contains(string(b), `"type":"dataset.published"`) || !strings.Contains(string(b), `"title":"Roads"`) {
			t.Fatalf("subscription message %v", m)
		}
	})
}
