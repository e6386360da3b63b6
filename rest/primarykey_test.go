package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
)

// parcelsGeoJSON has a unique integer code, a text ref, a repeated
// integer zone, a double area, a text note missing in one feature and
// no field named like an id, so no key is found at import.
const parcelsGeoJSON = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"code":10,"ref":"A","zone":1,"area":1.5,"note":"x"},"geometry":{"type":"Point","coordinates":[174.70,-41.2]}},
{"type":"Feature","properties":{"code":20,"ref":"B","zone":1,"area":2.5,"note":null},"geometry":{"type":"Point","coordinates":[174.71,-41.2]}},
{"type":"Feature","properties":{"code":30,"ref":"C","zone":2,"area":3.5,"note":"z"},"geometry":{"type":"Point","coordinates":[174.72,-41.2]}}]}`

// pkRecord is the part of a layer the key tests read.
type pkRecord struct {
	ThisVersion string `json:"this_version"`
	Version     struct {
		Status string `json:"status"`
	} `json:"version"`
	Data struct {
		PrimaryKeyFields []string `json:"primary_key_fields"`
	} `json:"data"`
}

// importedDraft uploads files, makes a layer of the datasource at path
// and waits for its first draft's import; it returns the draft's URL.
func importedDraft(t *testing.T, e *env, key string, files map[string]string, path, name string) string {
	t.Helper()
	src := upload(t, e, key, map[string][]byte{"data.zip": zipOf(t, files)})
	if sc := waitScan(t, e, key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds, ok := datasources(t, e, key, src.ID)[path]
	if !ok {
		t.Fatalf("no datasource %s", path)
	}
	l := doJSON[layerRecord](t, e, req{Method: "POST", Path: "/layers/", Key: key, Body: map[string]any{
		"name": name, "data": map[string]any{"datasources": []int{ds.ID}}}}, http.StatusCreated)
	if l = waitVersion(t, e, key, l.ThisVersion); l.Version.Status != "ok" {
		t.Fatalf("import %+v", l)
	}
	return l.ThisVersion
}

// importedNextDraft uploads files, makes a new draft of the layer at
// layerURL from the datasource at path and waits for its import; it
// returns the draft's URL.
func importedNextDraft(t *testing.T, e *env, key, layerURL string, files map[string]string, path string) string {
	t.Helper()
	src := upload(t, e, key, map[string][]byte{"data.zip": zipOf(t, files)})
	if sc := waitScan(t, e, key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	d := doJSON[pkRecord](t, e, req{Method: "POST", Path: layerURL + "versions/", Key: key, Body: map[string]any{}}, http.StatusCreated)
	doJSON[pkRecord](t, e, req{Method: "PUT", Path: d.ThisVersion, Key: key, Body: map[string]any{
		"data": map[string]any{"datasources": []int{datasources(t, e, key, src.ID)[path].ID}}}}, http.StatusOK)
	if l := waitVersion(t, e, key, d.ThisVersion); l.Version.Status != "ok" {
		t.Fatalf("import of the next draft %+v", l)
	}
	return d.ThisVersion
}

func pkBody(fields ...string) map[string]any {
	if fields == nil {
		fields = []string{}
	}
	return map[string]any{"data": map[string]any{"primary_key_fields": fields}}
}

// Issue 24.15 / 26.1: a draft's primary-key fields are set and cleared by
// PUT and PATCH of the draft (data.primary_key_fields), checked against
// the draft's fields and its stored features, and refused on a published
// version, which keeps its key.
func TestDraftPrimaryKeyFields(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": parcelsGeoJSON}, "parcels.geojson", "Parcels")
		if got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK); len(got.Data.PrimaryKeyFields) != 0 {
			t.Fatalf("key found at import without an id field: %v", got.Data.PrimaryKeyFields)
		}

		set := func(method string, want []string, fields ...string) {
			t.Helper()
			got := doJSON[pkRecord](t, e, req{Method: method, Path: draft, Key: pub.Key, Body: pkBody(fields...)}, http.StatusOK)
			if !slices.Equal(got.Data.PrimaryKeyFields, want) {
				t.Fatalf("%s %v: primary_key_fields = %v, want %v", method, fields, got.Data.PrimaryKeyFields, want)
			}
			if got = doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK); !slices.Equal(got.Data.PrimaryKeyFields, want) {
				t.Fatalf("after %s %v: stored primary_key_fields = %v, want %v", method, fields, got.Data.PrimaryKeyFields, want)
			}
		}
		set("PUT", []string{"code"}, "code")
		set("PATCH", []string{}) // cleared
		set("PATCH", []string{"ref", "code"}, "ref", "code")
		// Other edits leave it alone.
		doJSON[pkRecord](t, e, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: map[string]any{"description": "Parcels of land"}}, http.StatusOK)
		if got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK); !slices.Equal(got.Data.PrimaryKeyFields, []string{"ref", "code"}) {
			t.Fatalf("a description edit changed the key: %v", got.Data.PrimaryKeyFields)
		}

		for _, tc := range []struct {
			fields []string
			want   []string // words of the message
		}{
			{[]string{"parcel_no"}, []string{`"parcel_no"`, "not a field"}},
			{[]string{"zone"}, []string{`"zone"`, "not unique", "1"}},
			{[]string{"area"}, []string{`"area"`, "double"}},
			{[]string{"GEOMETRY"}, []string{`"GEOMETRY"`, "geometry"}},
			{[]string{"note"}, []string{`"note"`, "no value"}},
			{[]string{"code", "code"}, []string{`"code"`, "twice"}},
		} {
			r := e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody(tc.fields...)})
			expectStatus(t, r, http.StatusBadRequest)
			var body map[string][]string
			r.JSON(t, &body)
			msg := strings.Join(body["primary_key_fields"], " ")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%v: %s, want it to mention %s", tc.fields, r.Body, w)
				}
			}
		}
		// A refused key changes nothing.
		if got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK); !slices.Equal(got.Data.PrimaryKeyFields, []string{"ref", "code"}) {
			t.Fatalf("a refused key changed the draft: %v", got.Data.PrimaryKeyFields)
		}

		// Callers who may not edit the layer get what other draft edits
		// get: anonymous 401, a token without layers:write 401 naming it,
		// a user who cannot see the draft 404, one who sees the layer but
		// may not edit it 403.
		other := e.NewUser(t, "Otto")
		for _, c := range []struct {
			key    string
			status int
		}{{"", 401}, {e.Token(t, pub.User, "layers:read"), 401}, {other.Key, 404}} {
			for _, body := range []any{map[string]any{"name": "Mine"}, pkBody("code")} {
				r := e.Do(t, req{Method: "PATCH", Path: draft, Key: c.key, Body: body})
				if r.Status != c.status {
					t.Errorf("key %q, %v: %d %s, want %d", c.key, body, r.Status, r.Body, c.status)
				}
			}
		}

		// Published: the key goes with it; the published version refuses
		// edits and keeps it.
		set("PUT", []string{"code"}, "code")
		publishLayerDraft(t, e, pub, draft)
		r := e.Do(t, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody()})
		expectStatus(t, r, http.StatusMethodNotAllowed)
		if !strings.Contains(r.Detail(t), "only a draft") {
			t.Errorf("published version edit: %s", r.Body)
		}
		if got := doJSON[pkRecord](t, e, req{Path: draft, Key: pub.Key}, http.StatusOK); !slices.Equal(got.Data.PrimaryKeyFields, []string{"code"}) {
			t.Fatalf("published version's key = %v", got.Data.PrimaryKeyFields)
		}
		// A user who sees the published layer may not edit its next draft.
		layerURL := strings.Split(draft, "versions/")[0]
		expectStatus(t, e.Do(t, req{Method: "POST", Path: layerURL + "permissions/", Key: pub.Key,
			Body: map[string]any{"permission": "view", "user": other.ID}}), http.StatusCreated)
		d2 := doJSON[pkRecord](t, e, req{Method: "POST", Path: layerURL + "versions/", Key: pub.Key, Body: map[string]any{}}, http.StatusCreated)
		if !slices.Equal(d2.Data.PrimaryKeyFields, []string{"code"}) {
			t.Errorf("new draft's key = %v", d2.Data.PrimaryKeyFields)
		}
		for _, body := range []any{map[string]any{"name": "Mine"}, pkBody("ref")} {
			r = e.Do(t, req{Method: "PATCH", Path: d2.ThisVersion, Key: other.Key, Body: body})
			if r.Status != http.StatusForbidden {
				t.Errorf("viewer's edit %v: %d %s", body, r.Status, r.Body)
			}
		}
	})
}

// Issue 24.15 end to end: a key set through REST on a draft reaches the
// WFS changeset type once published: between the first version and a
// second (one feature renamed, one deleted, one added) the changeset says
// which changed, matched by the key.
func TestPrimaryKeyReachesWFSChangesets(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Petra")
		feature := func(code int, name string, x float64) string {
			return fmt.Sprintf(`{"type":"Feature","properties":{"code":%d,"name":%q},"geometry":{"type":"Point","coordinates":[%g,-41.2]}}`, code, name, x)
		}
		collection := func(fs ...string) string {
			return `{"type":"FeatureCollection","features":[` + strings.Join(fs, ",") + `]}`
		}
		draft := importedDraft(t, e, pub.Key, map[string]string{"parcels.geojson": collection(
			feature(10, "a", 174.70), feature(20, "b", 174.71), feature(30, "c", 174.72))}, "parcels.geojson", "Parcels")
		doJSON[pkRecord](t, e, req{Method: "PATCH", Path: draft, Key: pub.Key, Body: pkBody("code")}, http.StatusOK)
		publishLayerDraft(t, e, pub, draft)
		time.Sleep(1100 * time.Millisecond)
		from := time.Now().UTC().Truncate(time.Second)
		time.Sleep(1100 * time.Millisecond)

		// The second version: b renamed, c deleted, d added.
		layerURL := strings.Split(draft, "versions/")[0]
		d2 := importedNextDraft(t, e, pub.Key, layerURL, map[string]string{"parcels.geojson": collection(
			feature(10, "a", 174.70), feature(20, "b2", 174.71), feature(40, "d", 174.73))}, "parcels.geojson")
		if got := doJSON[pkRecord](t, e, req{Path: d2, Key: pub.Key}, http.StatusOK); !slices.Equal(got.Data.PrimaryKeyFields, []string{"code"}) {
			t.Fatalf("the re-import lost the key: %v", got.Data.PrimaryKeyFields)
		}
		publishLayerDraft(t, e, pub, d2)
		time.Sleep(3 * servertest.QueryFresh)

		layer := doJSON[layerRecord](t, e, req{Path: layerURL, Key: pub.Key}, http.StatusOK)
		q := url.Values{"SERVICE": {"WFS"}, "VERSION": {"2.0.0"}, "REQUEST": {"GetFeature"}, "OUTPUTFORMAT": {"application/json"},
			"TYPENAMES": {fmt.Sprintf("geopub:layer-%d-changeset", layer.ID)}, "VIEWPARAMS": {"from:" + from.Format(time.RFC3339)}}
		r := e.Do(t, req{Path: e.HTTP.URL + "/services/wfs/?" + q.Encode(), Key: pub.Key})
		if r.Status != http.StatusOK {
			t.Fatalf("changeset: %d %s", r.Status, r.Body)
		}
		var fc struct {
			Features []struct {
				Properties map[string]any `json:"properties"`
			} `json:"features"`
		}
		r.JSON(t, &fc)
		got := map[string]any{}
		for _, f := range fc.Features {
			got[fmt.Sprint(f.Properties["name"])] = f.Properties["__change__"]
		}
		if want := map[string]any{"b2": "UPDATE", "c": "DELETE", "d": "INSERT"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("changeset = %v, want %v", got, want)
		}
	})
}
