package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// Issue 24, 1: uploaded files naming URLs (a GML schemaLocation asking a
// WFS for its schema, a local .xsd including URLs, a VRT reading through
// /vsicurl/) make the service send nothing, through the scan and the
// import of what was found; the GML file is read from its features, and
// the one whose schema reaches out is refused with its reason.
func TestUploadedURLsAreNeverFetched(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tt := ingesttest.NewTattler(t)
		pub := e.NewUser(t, "Publisher")
		files := map[string][]byte{}
		for rel, body := range ingesttest.SSRFFiles(tt.URL) {
			files[rel] = []byte(body)
		}
		src := upload(t, e, pub.Key, files)
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		if log := e.Do(t, req{Path: strings.TrimPrefix(sc.Log, e.API), Key: pub.Key}).Body; !strings.Contains(string(log), "Skipped xsd/towns.gml: cannot open as GML: the schema towns.xsd includes") {
			t.Errorf("scan log does not say why xsd/towns.gml was skipped:\n%s", log)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		towns := ds["wfs/towns.gml"]
		var names []string
		for _, f := range towns.Fields {
			names = append(names, f.Name)
		}
		if towns.ID == 0 || towns.NumFeatures != 1 || ingesttest.Leaked(strings.Join(names, ",")) {
			t.Fatalf("wfs/towns.gml %+v", towns)
		}
		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Towns", "data": map[string]any{"datasources": []int{towns.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" || l.Data.FeatureCount != 1 {
			t.Fatalf("import %+v", l)
		}
		if got := tt.Requests(); len(got) != 0 {
			t.Fatalf("the service sent %d request(s) for uploaded files: %v", len(got), got)
		}
	})
}
