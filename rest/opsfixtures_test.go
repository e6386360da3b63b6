package rest_test

import (
	"net/http"
	"strings"
	"testing"
)

// publishedFrom uploads files, waits for the scan, makes a layer (or a
// table) of the datasource at path and publishes it; it returns the
// layer as published and the source id.
func publishedFrom(t *testing.T, e *env, key string, files map[string]string, path, name string) (layerRecord, int) {
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
	r := e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: key, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	if g := waitPublish(t, e, key, r.Header.Get("Location")); g["state"] != "completed" {
		t.Fatalf("publish %+v", g)
	}
	url := l.URL
	if l.Type == "table" && !strings.Contains(url, "/tables/") {
		t.Fatalf("table url %s", url)
	}
	return doJSON[layerRecord](t, e, req{Path: url, Key: key}, http.StatusOK), src.ID
}
