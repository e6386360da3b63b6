package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/store"
)

// TestTimeFieldImported covers issue 24's point 10 for times of day on
// both stores: a GDAL-written CSV whose .csvt types a column Time (a
// GeoPackage has no time type: GDAL writes it as TEXT) is scanned and
// imported as a field of type time, stored as "12:34:56", and the REST
// and GraphQL field lists say time.
func TestTimeFieldImported(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		tree := t.TempDir()
		ingesttest.TimesCSV(t, tree, "opening")
		src := upload(t, e, pub.Key, map[string][]byte{"opening.zip": zipDir(t, tree)})
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		d, ok := datasources(t, e, pub.Key, src.ID)["opening.csv"]
		types := map[string]string{}
		for _, f := range d.Fields {
			types[f.Name] = f.Type
		}
		if !ok || types["opens"] != "time" {
			t.Fatalf("datasource %+v", d)
		}

		r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Opening times", "data": map[string]any{"datasources": []int{d.ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		if l = waitVersion(t, e, pub.Key, l.ThisVersion); l.Version.Status != "ok" || l.Data.FeatureCount != 3 {
			t.Fatalf("imported %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}
		r = e.Do(t, req{Path: l.URL, Key: pub.Key})
		r.JSON(t, &l)
		fields := []string{}
		for _, f := range l.Data.Fields {
			fields = append(fields, f.Name+":"+f.Type)
		}
		if !strings.Contains(strings.Join(fields, ","), "opens:time") {
			t.Fatalf("REST fields %v", fields)
		}
		g := e.GraphQL(t, pub.Key, `query($id: ID!) { layer(id: $id) { publishedVersion { fields { name type } } } }`, map[string]any{"id": l.ID})
		if len(g.Errors) > 0 || !strings.Contains(strings.ReplaceAll(string(g.Data), " ", ""), `{"name":"opens","type":"time"}`) {
			t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
		}

		// Stored as a time of day, its fraction kept.
		q := store.Rebind("SELECT attrs FROM features WHERE version_id = (SELECT published_version_id FROM layers WHERE id = ?) ORDER BY fid",
			e.Store.Dialect == dialect.Postgres)
		rows, err := e.Store.DB.Query(q, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var opens []any
		for rows.Next() {
			var attrs string
			var m map[string]any
			if err := rows.Scan(&attrs); err != nil || json.Unmarshal([]byte(attrs), &m) != nil {
				t.Fatalf("%s: %v", attrs, err)
			}
			opens = append(opens, m["opens"])
		}
		if len(opens) != 3 || opens[0] != "12:34:56" || opens[1] != "01:02:03.25" || opens[2] != nil {
			t.Fatalf("stored opening times %v", opens)
		}
	})
}
