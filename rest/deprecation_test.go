package rest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/webhooks/webhooktest"
)

// deprecatedRecord is what the tests read of a dataset's notice.
type deprecatedRecord struct {
	At          time.Time `json:"at"`
	Reason      string    `json:"reason"`
	Replacement *struct {
		Type string `json:"type"`
		ID   any    `json:"id"`
		URL  string `json:"url"`
	} `json:"replacement"`
}

// withDeprecation is any dataset's JSON, read for its notice.
type withDeprecation struct {
	URL        string            `json:"url"`
	Deprecated *deprecatedRecord `json:"deprecated"`
}

// notice reads the deprecation notice of the dataset at url, failing when
// the JSON has no deprecated key (null is a dataset not deprecated).
func notice(t *testing.T, e *env, key, url string) *deprecatedRecord {
	t.Helper()
	resp := e.Do(t, req{Path: url, Key: key})
	expectStatus(t, resp, http.StatusOK)
	var keys map[string]json.RawMessage
	resp.JSON(t, &keys)
	if _, ok := keys["deprecated"]; !ok {
		t.Fatalf("%s has no deprecated key", url)
	}
	var d withDeprecation
	resp.JSON(t, &d)
	return d.Deprecated
}

// deprecatedEvents reads the dataset.deprecated events of the catalogue's
// feed as key sees it.
func deprecatedEvents(t *testing.T, e *env, key string) []changeEvent {
	t.Helper()
	es, _ := readChanges(t, e, req{Path: "/changes/?types=dataset.deprecated", Key: key})
	return es
}

// Issue 26.4: the change feed carries "deprecated" among its events; a
// publisher marks a dataset deprecated with POST …/deprecate/ {reason,
// replacement} (200 with the dataset, whose JSON then shows the notice)
// and clears it with DELETE (204, as stars and follows answer). The
// first marking of a published dataset is one dataset.deprecated event.
func TestDeprecateThroughREST(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub, reader := e.NewUser(t, "Petra"), e.NewUser(t, "Rita")
		old := seedLayer(t, e, pub.User, layer.TypeLayer, "Old parcels", false)
		repl := seedLayer(t, e, pub.User, layer.TypeTable, "Parcel register", false)
		oldURL, replURL := memberURL(e, old), memberURL(e, repl)
		if n := notice(t, e, reader.Key, oldURL); n != nil {
			t.Fatalf("a dataset never deprecated shows %+v, want null", n)
		}

		body := map[string]any{"reason": "  Superseded by the register.  ", "replacement": map[string]any{"type": "table", "id": repl.ID}}
		got := doJSON[struct {
			ID         int               `json:"id"`
			Name       string            `json:"name"`
			Deprecated *deprecatedRecord `json:"deprecated"`
		}](t, e, req{Method: "POST", Path: oldURL + "deprecate/", Key: pub.Key, Body: body}, http.StatusOK)
		n := got.Deprecated
		if got.ID != old.ID || got.Name != "Old parcels" || n == nil || n.Reason != "Superseded by the register." ||
			n.At.IsZero() || n.Replacement == nil || n.Replacement.Type != "table" || n.Replacement.ID != float64(repl.ID) ||
			n.Replacement.URL != replURL {
			t.Fatalf("deprecated layer %+v (notice %+v): want the layer with the trimmed reason and table %d (%s) as its replacement",
				got, n, repl.ID, replURL)
		}
		// The data stays readable, to everyone who could read it, with
		// the notice.
		if r := notice(t, e, reader.Key, oldURL); r == nil || r.Reason != n.Reason || !r.At.Equal(n.At) {
			t.Fatalf("a reader sees the notice %+v, want %+v", r, n)
		}
		expectStatus(t, e.Do(t, req{Path: oldURL + "versions/", Key: reader.Key}), http.StatusOK)

		// A new reason replaces the old and drops the replacement; the
		// time of the first marking stays, and the feed tells it once.
		again := doJSON[withDeprecation](t, e, req{Method: "POST", Path: oldURL + "deprecate/", Key: pub.Key,
			Body: map[string]any{"reason": "Withdrawn."}}, http.StatusOK)
		if a := again.Deprecated; a == nil || a.Reason != "Withdrawn." || a.Replacement != nil || !a.At.Equal(n.At) {
			t.Fatalf("marked again: %+v, want the new reason, no replacement, marked at %v", a, n.At)
		}
		es := deprecatedEvents(t, e, reader.Key)
		if len(es) != 1 {
			t.Fatalf("%d dataset.deprecated events after marking twice, want exactly 1", len(es))
		}
		if ev := es[0]; ev.Dataset.URL != oldURL || ev.Dataset.Title != "Old parcels" || ev.Detail["reason"] != "Superseded by the register." {
			t.Fatalf("event %+v: want the layer and the first marking's reason", ev)
		}

		// The catalogue's summaries show it too.
		indexCatalog(t, e, nil)
		var entries []withDeprecation
		waitFor(t, "the layer in /data/", func() bool {
			entries = doJSON[[]withDeprecation](t, e, req{Path: "/data/", Key: reader.Key}, http.StatusOK)
			return len(entries) == 2
		})
		for _, en := range entries {
			if (en.URL == oldURL) != (en.Deprecated != nil) || en.Deprecated != nil && en.Deprecated.Reason != "Withdrawn." {
				t.Fatalf("/data/ entry %s shows %+v: want the notice on %s alone", en.URL, en.Deprecated, oldURL)
			}
		}

		// Feed readers see it in Atom, the reason as its summary.
		atom := e.Do(t, req{Path: "/changes/?format=atom&types=dataset.deprecated", Key: reader.Key})
		if atom.Status != http.StatusOK || !strings.Contains(string(atom.Body), "<title>Old parcels was deprecated</title>") ||
			!strings.Contains(string(atom.Body), "<summary>Superseded by the register.</summary>") {
			t.Fatalf("Atom %d: %s", atom.Status, atom.Body)
		}

		for range 2 {
			expectStatus(t, e.Do(t, req{Method: "DELETE", Path: oldURL + "deprecate/", Key: pub.Key}), http.StatusNoContent)
		}
		if r := notice(t, e, pub.Key, oldURL); r != nil {
			t.Fatalf("undeprecated, the layer shows %+v", r)
		}
		if es := deprecatedEvents(t, e, reader.Key); len(es) != 1 {
			t.Fatalf("undeprecating appended events: %d dataset.deprecated events, want still 1", len(es))
		}

		// The other dataset types take the same routes.
		it := createItem(t, e, pub, map[string]any{"title": "Bores", "link_url": "https://example.org/bores"})
		it = publishItem(t, e, pub, it.ThisVersion)
		doc := seedDocument(t, e, pub, "Survey report", true)
		for _, c := range []struct{ url, replType string }{
			{it.URL, "layer"},
			{e.API + "/documents/" + itoa(doc) + "/", "item"},
		} {
			// JSON numbers read back as float64; items are named c12.
			replID := any(float64(old.ID))
			if c.replType == "item" {
				replID = it.ID
			}
			d := doJSON[withDeprecation](t, e, req{Method: "POST", Path: c.url + "deprecate/", Key: pub.Key,
				Body: map[string]any{"reason": "Moved.", "replacement": map[string]any{"type": c.replType, "id": replID}}}, http.StatusOK)
			if d.URL != c.url || d.Deprecated == nil || d.Deprecated.Replacement == nil || d.Deprecated.Replacement.ID != replID {
				t.Fatalf("deprecated %s: %+v", c.url, d)
			}
		}
		if es := deprecatedEvents(t, e, reader.Key); len(es) != 3 {
			t.Fatalf("%d dataset.deprecated events, want 3 (a layer, an item, a document)", len(es))
		}
	})
}

// Bad input is a 400 naming what is wrong, and writes nothing; the
// routes take the dataset type's write scope and edit permission
// (Authentication spec: anonymous 401, a token without the scope 401
// naming it, a signed-in user without the permission 403), and a dataset
// the caller cannot see is 404.
// A deprecated dataset's web page says so, with the reason and a link to
// its replacement's page; a current one says nothing.
func TestDeprecatedDatasetPageShowsTheNotice(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		old := seedLayer(t, e, pub.User, layer.TypeLayer, "Old parcels", false)
		repl := seedLayer(t, e, pub.User, layer.TypeTable, "Parcel register", false)
		page := func() string {
			r := e.Do(t, req{Path: e.HTTP.URL + "/layers/" + strconv.Itoa(old.ID) + "/"})
			expectHTML(t, r, http.StatusOK)
			return string(r.Body)
		}
		if p := page(); strings.Contains(p, `class="deprecated"`) {
			t.Fatalf("a current layer's page shows a deprecation notice:\n%s", p)
		}
		body := map[string]any{"reason": "Superseded <by> the register.", "replacement": map[string]any{"type": "table", "id": repl.ID}}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: memberURL(e, old) + "deprecate/", Key: pub.Key, Body: body}), http.StatusOK)
		p := page()
		for _, want := range []string{`class="deprecated"`, "Superseded &lt;by&gt; the register.", `href="/tables/` + strconv.Itoa(repl.ID) + `/"`} {
			if !strings.Contains(p, want) {
				t.Errorf("the page has no %s:\n%s", want, p)
			}
		}
	})
}

func TestDeprecateRefusals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub, viewer, other := e.NewUser(t, "Petra"), e.NewUser(t, "Vera"), e.NewUser(t, "Otto")
		l := seedLayer(t, e, pub.User, layer.TypeLayer, "Parcels", false)
		hidden := seedLayer(t, e, other.User, layer.TypeLayer, "Private draft", true)
		url := memberURL(e, l) + "deprecate/"
		for _, c := range []struct {
			body any
			want string
		}{
			{map[string]any{}, "reason"},
			{map[string]any{"reason": "   "}, "reason"},
			{map[string]any{"reason": strings.Repeat("x", 1001)}, "1000"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "source", "id": 1}}, "replacement"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "layer", "id": "twelve"}}, "replacement"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "layer", "id": 999999}}, "replacement"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "layer", "id": hidden.ID}}, "replacement"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "table", "id": l.ID}}, "replacement"},
			{map[string]any{"reason": "Old.", "replacement": map[string]any{"type": "layer", "id": l.ID}}, "itself"},
		} {
			r := e.Do(t, req{Method: "POST", Path: url, Key: pub.Key, Body: c.body})
			expectStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), c.want) {
				t.Errorf("body %v: answer %s, want it to mention %q", c.body, r.Body, c.want)
			}
		}
		if n := notice(t, e, pub.Key, memberURL(e, l)); n != nil {
			t.Fatalf("refused requests left the notice %+v", n)
		}
		if es := deprecatedEvents(t, e, pub.Key); len(es) != 0 {
			t.Fatalf("refused requests appended %d events", len(es))
		}

		// viewer sees the public layer but may not edit it.
		for _, method := range []string{"POST", "DELETE"} {
			authMatrix(t, e, req{Method: method, Path: url, Body: map[string]any{"reason": "Old."}}, "layers:write", viewer)
		}
		for _, p := range []string{"/layers/999999/deprecate/", memberURL(e, hidden) + "deprecate/",
			strings.Replace(url, "/layers/", "/tables/", 1)} {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: p, Key: pub.Key, Body: map[string]any{"reason": "Old."}}), http.StatusNotFound)
		}
		readOnly := e.Token(t, pub.User, "layers:read")
		expectDetail(t, e.Do(t, req{Method: "POST", Path: url, Key: readOnly, Body: map[string]any{"reason": "Old."}}),
			http.StatusUnauthorized, "layers:write")
	})
}

// GraphQL: deprecateDataset and undeprecateDataset, and the deprecation
// field of every dataset type, as REST does them.
func TestDeprecateThroughGraphQL(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub, viewer := e.NewUser(t, "Petra"), e.NewUser(t, "Vera")
		old := seedLayer(t, e, pub.User, layer.TypeLayer, "Old parcels", false)
		repl := seedLayer(t, e, pub.User, layer.TypeLayer, "New parcels", false)
		const mark = `mutation($id: ID!, $repl: ID!) { deprecateDataset(input: {type: LAYER, id: $id, reason: "Superseded.",
			replacement: {type: LAYER, id: $repl}}) { reason at replacement { datasetType datasetId } } }`
		vars := map[string]any{"id": old.ID, "repl": repl.ID}
		if g := e.GraphQL(t, viewer.Key, mark, vars); len(g.Errors) == 0 || !strings.Contains(g.Errors[0].Message, "edit permission") {
			t.Fatalf("a viewer deprecated the layer: %s %+v", g.Data, g.Errors)
		}
		g := e.GraphQL(t, pub.Key, mark, vars)
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"reason":"Superseded."`) ||
			!strings.Contains(string(g.Data), `"replacement":{"datasetType":"LAYER","datasetId":"`+itoa(repl.ID)+`"}`) {
			t.Fatalf("deprecateDataset: %s %+v", g.Data, g.Errors)
		}
		const read = `query($id: ID!) { layer(id: $id) { deprecation { reason replacement { datasetId } } } }`
		if g := e.GraphQL(t, viewer.Key, read, map[string]any{"id": old.ID}); len(g.Errors) > 0 ||
			string(g.Data) != `{"layer":{"deprecation":{"reason":"Superseded.","replacement":{"datasetId":"`+itoa(repl.ID)+`"}}}}` {
			t.Fatalf("the layer's deprecation: %s %+v", g.Data, g.Errors)
		}
		bad := e.GraphQL(t, pub.Key, `mutation($id: ID!) { deprecateDataset(input: {type: LAYER, id: $id, reason: "Old.",
			replacement: {type: LAYER, id: $id}}) { reason } }`, map[string]any{"id": old.ID})
		if len(bad.Errors) == 0 || !strings.Contains(bad.Errors[0].Message, "itself") {
			t.Fatalf("self-replacement: %s %+v", bad.Data, bad.Errors)
		}
		const clear = `mutation($id: ID!) { undeprecateDataset(dataset: {type: LAYER, id: $id}) }`
		if g := e.GraphQL(t, pub.Key, clear, map[string]any{"id": old.ID}); len(g.Errors) > 0 || string(g.Data) != `{"undeprecateDataset":true}` {
			t.Fatalf("undeprecateDataset: %s %+v", g.Data, g.Errors)
		}
		if g := e.GraphQL(t, viewer.Key, read, map[string]any{"id": old.ID}); string(g.Data) != `{"layer":{"deprecation":null}}` {
			t.Fatalf("undeprecated layer: %s %+v", g.Data, g.Errors)
		}
		// The feed told the marking once, through GraphQL's changes too.
		g = e.GraphQL(t, viewer.Key, `{ changes(types: ["dataset.deprecated"]) { events { type datasetId detail } } }`, nil)
		if len(g.Errors) > 0 || strings.Count(string(g.Data), `"type":"dataset.deprecated"`) != 1 {
			t.Fatalf("GraphQL changes: %s %+v", g.Data, g.Errors)
		}
	})
}

// Issue 26.4-6: the deprecated event reaches a webhook subscribed to
// dataset.deprecated (signed as the Standard Webhooks reference
// implementation verifies) and the dataset's followers' notification
// streams, once.
func TestDeprecationReachesWebhooksAndFollowers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub, follower := e.NewUser(t, "Petra"), e.NewUser(t, "Finn")
		l := seedLayer(t, e, pub.User, layer.TypeLayer, "Old parcels", false)
		url := memberURL(e, l)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: url + "follow/", Key: follower.Key}), http.StatusNoContent)
		recv := webhooktest.NewReceiver(t, func(int, *http.Request) int { return http.StatusOK })
		hook := doJSON[webhookRecord](t, e, req{Method: "POST", Path: "/webhooks/", Key: pub.Key,
			Body: map[string]any{"endpoint": recv.URL, "event_types": []string{"dataset.deprecated"}}}, http.StatusCreated)

		for _, reason := range []string{"Superseded.", "Withdrawn."} {
			expectStatus(t, e.Do(t, req{Method: "POST", Path: url + "deprecate/", Key: pub.Key,
				Body: map[string]any{"reason": reason}}), http.StatusOK)
		}
		waitFor(t, "the webhook's message", func() bool { return len(recv.Messages()) > 0 })
		waitFor(t, "the follower's notification", func() bool {
			kinds, _ := notificationKinds(t, e, follower.Key)
			return len(kinds) > 0
		})
		ms := recv.Messages()
		var msg struct {
			Type string      `json:"type"`
			Data changeEvent `json:"data"`
		}
		if err := json.Unmarshal(ms[0].Body, &msg); err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 || msg.Type != "dataset.deprecated" || msg.Data.Detail["reason"] != "Superseded." || msg.Data.Dataset.Title != "Old parcels" {
			t.Fatalf("webhook got %d messages, the first %s: want one dataset.deprecated of the layer", len(ms), ms[0].Body)
		}
		if v := webhooktest.Verify(t, hook.Secret, ms); len(v) != 1 || v[0] != "ok dataset.deprecated" {
			t.Fatalf("standardwebhooks says %v", v)
		}
		kinds, payload := notificationKinds(t, e, follower.Key)
		if len(kinds) != 1 || kinds[0] != "dataset.deprecated" {
			t.Fatalf("the follower was told %v, want one dataset.deprecated", kinds)
		}
		if d, _ := payload["detail"].(map[string]any); d["reason"] != "Superseded." {
			t.Fatalf("notification payload %v: want the reason", payload)
		}
	})
}
