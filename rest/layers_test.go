package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

type layerRecord struct {
	ID               int     `json:"id"`
	URL              string  `json:"url"`
	Type             string  `json:"type"`
	Name             string  `json:"name"`
	PublishedVersion *string `json:"published_version"`
	LatestVersion    string  `json:"latest_version"`
	ThisVersion      string  `json:"this_version"`
	Version          struct {
		ID       int     `json:"id"`
		Status   string  `json:"status"`
		State    string  `json:"state"`
		Progress float64 `json:"progress"`
		Error    *string `json:"error"`
	} `json:"version"`
	Data struct {
		CRS              any    `json:"crs"`
		GeometryType     string `json:"geometry_type"`
		Fields           []struct{ Name, Type string }
		FeatureCount     int64    `json:"feature_count"`
		PrimaryKeyFields []string `json:"primary_key_fields"`
		Extent           *struct {
			Coordinates [][][2]float64
		}
	} `json:"data"`
}

// waitVersion polls a version until its import ends.
func waitVersion(t *testing.T, e *env, key, url string) layerRecord {
	t.Helper()
	return waitVersionWithin(t, e, key, url, 30*time.Second)
}

// waitVersionWithin polls a version until its import ends, for at most
// within.
func waitVersionWithin(t *testing.T, e *env, key, url string, within time.Duration) layerRecord {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := e.Do(t, req{Path: url, Key: key})
		expectStatus(t, r, http.StatusOK)
		var l layerRecord
		r.JSON(t, &l)
		if l.Version.Status != "importing" && l.Version.Status != "pending" {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("import did not end: %s", r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPublish polls a publish group until it ends.
func waitPublish(t *testing.T, e *env, key, url string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.Do(t, req{Path: url, Key: key})
		expectStatus(t, r, http.StatusOK)
		var g map[string]any
		r.JSON(t, &g)
		if g["state"] != "publishing" {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("publish did not end: %s", r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The data pipeline end to end: upload, scan, create a layer and a table,
// import, publish, read back over REST and GraphQL, with the events in
// order on the notification stream.
func TestLayerPipeline(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		files := map[string]string{
			"roads.geojson": fixtureFiles["roads.geojson"],
			"sites.csv":     fixtureFiles["sites.csv"],
			"codes.csv":     "code,label\nA,Alpha\nB,Beta\nC,Gamma\nD,Delta\n",
			"readme.pdf":    fixtureFiles["readme.pdf"],
		}
		src := upload(t, e, pub.Key, map[string][]byte{"data.zip": zipOf(t, files)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		roads, sites, codes, pdf := ds["roads.geojson"], ds["sites.csv"], ds["codes.csv"], ds["readme.pdf"]
		if codes.DataType != "table" {
			t.Fatalf("codes.csv %+v", codes)
		}

		// Bad requests: mixed schemas, a document, nothing, unknown ids.
		for name, body := range map[string]any{
			"MixedSchemas": map[string]any{"name": "x", "data": map[string]any{"datasources": []int{roads.ID, sites.ID}}},
			"MixedTypes":   map[string]any{"name": "x", "data": map[string]any{"datasources": []int{roads.ID, codes.ID}}},
			"Document":     map[string]any{"name": "x", "data": map[string]any{"datasources": []int{pdf.ID}}},
			"None":         map[string]any{"name": "x", "data": map[string]any{"datasources": []int{}}},
			"Unknown":      map[string]any{"name": "x", "data": map[string]any{"datasources": []int{99999}}},
			"NoName":       map[string]any{"data": map[string]any{"datasources": []int{roads.ID}}},
		} {
			t.Run(name, func(t *testing.T) {
				before := e.Store.Client.Layer.Query().CountX(t.Context())
				expectStatus(t, e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: body}), http.StatusBadRequest)
				if e.Store.Client.Layer.Query().CountX(t.Context()) != before {
					t.Fatal("a refused create wrote a layer")
				}
			})
		}
		// Another user cannot use the publisher's datasources.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/layers/", Key: reader.Key, Body: map[string]any{
			"name": "Stolen", "data": map[string]any{"datasources": []int{roads.ID}}}}), http.StatusBadRequest)
		authMatrix(t, e, req{Method: "POST", Path: "/layers/", Body: map[string]any{"name": "x"}}, "layers:write", nil)

		// A layer from the GeoJSON: 201, the draft version, importing.
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Wellington roads", "data": map[string]any{"datasources": []string{fmt.Sprintf("%s/sources/%d/datasources/%d/", e.API, src.ID, roads.ID)}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l.Type != "layer" || l.PublishedVersion != nil || r.Header.Get("Location") != l.ThisVersion {
			t.Fatalf("created %s", r.Body)
		}
		l = waitVersion(t, e, pub.Key, l.ThisVersion)
		if l.Version.Status != "ok" || l.Data.FeatureCount != 2 || l.Data.GeometryType != "linestring" {
			t.Fatalf("imported %+v", l)
		}
		// Not visible to others until published.
		expectStatus(t, e.Do(t, req{Path: l.URL, Key: reader.Key}), http.StatusNotFound)

		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		if !strings.Contains(r.Header.Get("Location"), "/publish/") {
			t.Fatalf("publish Location %q", r.Header.Get("Location"))
		}
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}
		// Published: the reader sees it, with its data summary.
		r = e.Do(t, req{Path: l.URL, Key: reader.Key})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &l)
		if l.PublishedVersion == nil || *l.PublishedVersion != l.ThisVersion || l.Version.State != "published" || l.Data.FeatureCount != 2 {
			t.Fatalf("published layer %s", r.Body)
		}
		crs, _ := l.Data.CRS.(map[string]any)
		if crs["id"] != "EPSG:4326" || l.Data.Extent == nil || len(l.Data.Fields) < 2 {
			t.Fatalf("data %s", r.Body)
		}
		ext := l.Data.Extent.Coordinates[0]
		if ext[0][0] < 174.76 || ext[0][0] > 174.78 || ext[2][1] > -41.27 {
			t.Fatalf("extent %+v", ext)
		}
		// v1 renders the CRS as a string.
		r = e.Do(t, req{Path: strings.Replace(l.URL, "/v1.x/", "/v1/", 1), Key: reader.Key})
		if !strings.Contains(string(r.Body), `"crs":"EPSG:4326"`) {
			t.Fatalf("v1 crs: %s", r.Body)
		}

		// GraphQL reads the same.
		g := e.GraphQL(t, reader.Key, `query($id: ID!) { layer(id: $id) { name type publishedVersion { featureCount crs geometryType extent fields { name type } } } }`,
			map[string]any{"id": l.ID})
		var gd struct {
			Layer struct {
				Name             string
				PublishedVersion struct {
					FeatureCount int64
					Crs          string
					Extent       []float64
				}
			}
		}
		json.Unmarshal(g.Data, &gd)
		if len(g.Errors) > 0 || gd.Layer.PublishedVersion.FeatureCount != 2 || gd.Layer.PublishedVersion.Crs != "EPSG:4326" || len(gd.Layer.PublishedVersion.Extent) != 4 {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}

		// Versions: the published one cannot change; a draft can.
		pubURL := l.ThisVersion
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: pubURL, Key: pub.Key, Body: map[string]any{"name": "Renamed"}}), http.StatusMethodNotAllowed)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: pubURL, Key: pub.Key}), http.StatusMethodNotAllowed)
		r = e.Do(t, req{Method: "POST", Path: l.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft layerRecord
		r.JSON(t, &draft)
		if draft.Version.State != "draft" || draft.Data.FeatureCount != 2 || draft.ThisVersion == pubURL {
			t.Fatalf("draft %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Method: "POST", Path: l.URL + "versions/", Key: pub.Key, Body: map[string]any{}}), http.StatusConflict)
		r = e.Do(t, req{Method: "PUT", Path: draft.ThisVersion, Key: pub.Key, Body: map[string]any{"name": "Wellington roads (draft)"}})
		expectStatus(t, r, http.StatusOK)
		// The published version is untouched and still what readers see.
		r = e.Do(t, req{Path: l.URL, Key: reader.Key})
		r.JSON(t, &l)
		if l.Name != "Wellington roads" || l.ThisVersion != pubURL {
			t.Fatalf("published changed by the draft: %s", r.Body)
		}
		expectStatus(t, e.Do(t, req{Path: l.URL + "versions/draft/", Key: reader.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: l.URL + "versions/draft/", Key: pub.Key}), http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft.ThisVersion, Key: pub.Key}), http.StatusNoContent)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: draft.ThisVersion, Key: pub.Key}), http.StatusConflict)

		// The same version rules through GraphQL.
		gq := func(query string, vars map[string]any) (json.RawMessage, string) {
			g := e.GraphQL(t, pub.Key, query, vars)
			code := ""
			if len(g.Errors) > 0 {
				code = g.Errors[0].Code()
			}
			return g.Data, code
		}
		pubVersion := l.Version.ID
		if _, code := gq(`mutation($l: ID!, $v: ID!) { updateLayerVersion(layerID: $l, versionID: $v, input: {name: "x"}) { id } }`,
			map[string]any{"l": l.ID, "v": pubVersion}); code != "METHOD_NOT_ALLOWED" {
			t.Fatalf("GraphQL update of the published version: %q", code)
		}
		data, code := gq(`mutation($l: ID!) { createLayerDraft(layerID: $l) { id state featureCount } }`, map[string]any{"l": l.ID})
		var gdraft struct {
			CreateLayerDraft struct {
				ID           string
				State        string
				FeatureCount int64
			}
		}
		json.Unmarshal(data, &gdraft)
		if code != "" || gdraft.CreateLayerDraft.State != "draft" || gdraft.CreateLayerDraft.FeatureCount != 2 {
			t.Fatalf("GraphQL draft %s %q", data, code)
		}
		if _, code := gq(`mutation($l: ID!) { createLayerDraft(layerID: $l) { id } }`, map[string]any{"l": l.ID}); code != "CONFLICT" {
			t.Fatalf("second GraphQL draft: %q", code)
		}
		del := `mutation($l: ID!, $v: ID!) { deleteLayerVersion(layerID: $l, versionID: $v) }`
		if _, code := gq(del, map[string]any{"l": l.ID, "v": gdraft.CreateLayerDraft.ID}); code != "" {
			t.Fatalf("GraphQL delete draft: %q", code)
		}
		if _, code := gq(del, map[string]any{"l": l.ID, "v": gdraft.CreateLayerDraft.ID}); code != "CONFLICT" {
			t.Fatalf("GraphQL delete deleted draft: %q", code)
		}

		// A table from the plain CSV.
		r = e.Do(t, req{Method: "POST", Path: "/tables/", Key: pub.Key, Body: map[string]any{
			"name": "Codes", "data": map[string]any{"datasources": []int{codes.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var tbl layerRecord
		r.JSON(t, &tbl)
		tbl = waitVersion(t, e, pub.Key, tbl.ThisVersion)
		if tbl.Type != "table" || tbl.Version.Status != "ok" || tbl.Data.FeatureCount != 4 || tbl.Data.GeometryType != "" ||
			!strings.Contains(tbl.URL, "/tables/") {
			t.Fatalf("table %+v", tbl)
		}

		// Publishing several versions together through /publish/, with bad
		// items refused.
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{"nonsense"}}}), http.StatusBadRequest)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{pubURL}}}), http.StatusConflict)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: "/publish/", Key: reader.Key, Body: map[string]any{"items": []string{tbl.ThisVersion}}}), http.StatusBadRequest)
		r = e.Do(t, req{Method: "POST", Path: "/publish/", Key: pub.Key, Body: map[string]any{"items": []string{tbl.ThisVersion}, "reference": "batch-1"}})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" || g["reference"] != "batch-1" {
			t.Fatalf("publish group %+v", g)
		}
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: r.Header.Get("Location"), Key: pub.Key}), http.StatusConflict)

		// The notification stream told the publisher everything, in order.
		var ns []struct{ Kind string }
		e.Do(t, req{Path: "/notifications/", Key: pub.Key}).JSON(t, &ns)
		var kinds []string
		for _, n := range ns {
			kinds = append(kinds, n.Kind)
		}
		want := "scan.started,scan.completed,import.started,import.completed,publish.completed,import.started,import.completed,publish.completed"
		if strings.Join(kinds, ",") != want {
			t.Fatalf("notifications %v\nwant %s", kinds, want)
		}
	})
}
