package rest_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pyJSON is the Python client's session Accept header, which every call
// sends unless it sets its own.
var pyJSON = map[string]string{"Accept": "application/json"}

// pyRefresh is Model.refresh() in a loop: GET the object's url until
// field leaves the values of a running job.
func pyRefresh(c pyClient, url, field string, running ...string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := c.object(c.send(http.MethodGet, url, nil, pyJSON))
		busy := false
		for _, r := range running {
			busy = busy || m[field] == r
		}
		if !busy {
			return m
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s stayed %v: %s", url, m[field], mustJSON(m))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pyUpload is UploadSource._create: a multipart body (requests_toolbelt's
// MultipartEncoder) of the source as JSON in the part "source" and each
// added file as file0, file1, … with its upload path as the file name and
// the type mimetypes guessed, when it guessed one.
func pyUpload(t *testing.T, source string, files [][3]string) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="source"`)
	h.Set("Content-Type", "application/json")
	pw, _ := mw.CreatePart(h)
	pw.Write([]byte(source))
	for i, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file%d"; filename=%q`, i, f[0]))
		if f[1] != "" {
			h.Set("Content-Type", f[1])
		}
		fw, _ := mw.CreatePart(h)
		fw.Write([]byte(f[2]))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return body.Bytes(), mw.FormDataContentType()
}

// scanURL is what Client.reverse_url("SCAN", url) matches to find a scan's
// source_id and scan_id (for Scan.get_log_lines).
var scanURL = regexp.MustCompile(`/services/api/v1/sources/(\d+)/scans/(\d+)/$`)

// The Python client's sources, scans and layer-update flows, call for call
// (koordinates/sources.py, layers.py, base.py): sources created (a
// PostgreSQL source as JSON, an upload with a metadata file as multipart),
// listed and fetched; the latest scan, scans listed, fetched, started and
// their logs read; the scans of every source filtered and sorted over
// pages; datasources listed and fetched with their source and metadata;
// a layer created from a datasource, published, then start_update (a new
// draft imported from the datasource) and start_import.
func TestPythonClientSourceFlows(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		db, conn := pgScratch(t)
		pgExec(t, conn, `CREATE TABLE towns (id serial PRIMARY KEY, name text, geom geometry(Point, 4326));
			INSERT INTO towns (name, geom) SELECT 'town ' || i, ST_SetSRID(ST_MakePoint(170 + i * 0.01, -40 - i * 0.01), 4326)
			FROM generate_series(1, 150) i;
			CREATE TABLE notes (id int, body text); INSERT INTO notes VALUES (1, 'first');`)
		pub := e.NewUser(t, "Publisher")
		c := pyClient{t, e, pub.Key}
		// Client.get_url: "https://{host}/services/api/v1" + the path.
		v1 := func(format string, args ...any) string {
			return e.HTTP.URL + "/services/api/v1" + fmt.Sprintf(format, args...)
		}

		// source = Source(); source.title = …; source.type =
		// Source.TYPE_POSTGRES; … ; client.sources.create(source): the
		// attributes set, None and empty ones left out.
		src := c.object(c.send(http.MethodPost, v1("/sources/"), map[string]any{
			"title": "Survey database", "type": "postgres", "description": "Field survey",
			"url_remote": "postgresql://127.0.0.1:5432/" + db, "scan_schedule": "@daily",
			"options": map[string]any{"username": "postgres", "password": pgSourcePassword, "ssl_verify": false, "schemas": []string{"public"}},
		}, pyJSON))
		if src["type"] != "postgres" || src["url_remote"] != "postgresql://127.0.0.1:5432/"+db || src["scan_schedule"] != "@daily" ||
			src["user"] == nil || strings.Contains(mustJSON(src), pgSourcePassword) || src["metadata"] != nil {
			t.Fatalf("created %s", mustJSON(src))
		}
		if u, ok := src["user"].(map[string]any); !ok || u["id"] != float64(pub.User.ID) { // User()._deserialize
			t.Fatalf("user %v", src["user"])
		}
		srcURL := src["url"].(string)
		sid := int(src["id"].(float64))

		// source.get_latest_scan(): list_scans(id).expand()[:1], then
		// scan.refresh() until it ends.
		latest := c.listWith(v1("/sources/%d/scans/", sid), map[string]string{"Accept": "application/json", "Expand": "list"})
		if len(latest) != 1 {
			t.Fatalf("scans %v", latest)
		}
		sc := pyRefresh(c, c.deserialize(latest[0])["url"].(string), "status", "queued", "scanning")
		if sc["status"] != "completed" || sc["source"] != srcURL {
			t.Fatalf("scan %s", mustJSON(sc))
		}

		// source.list_datasources(); client.sources.get_datasource(sid,
		// did); datasource.get_source().
		dss := map[string]map[string]any{}
		for _, d := range c.listWith(v1("/sources/%d/datasources/", sid), pyJSON) {
			dss[c.deserialize(d)["title"].(string)] = d
		}
		towns, ok := dss["towns"]
		if len(dss) != 2 || !ok {
			t.Fatalf("datasources %v", dss)
		}
		ds := c.object(c.send(http.MethodGet, v1("/sources/%d/datasources/%v/", sid, towns["id"]), nil, pyJSON))
		if ds["num_features"] != float64(150) || ds["data_type"] != "vector" || ds["metadata"] != nil {
			t.Fatalf("datasource %s", mustJSON(ds))
		}
		if s := c.object(c.send(http.MethodGet, ds["source"].(string), nil, pyJSON)); s["id"] != src["id"] {
			t.Fatalf("get_source %s", mustJSON(s))
		}

		// client.sources.start_scan(sid): POST {} → 201 + Location → the
		// scan; refresh; get_log_lines via reverse_url, Accept text/plain.
		started := c.object(c.send(http.MethodPost, v1("/sources/%d/scans/", sid), map[string]any{}, pyJSON))
		if started["id"] == sc["id"] || started["url"] == nil {
			t.Fatalf("start_scan %s", mustJSON(started))
		}
		sc = pyRefresh(c, started["url"].(string), "status", "queued", "scanning")
		m := scanURL.FindStringSubmatch(sc["url"].(string))
		if sc["status"] != "completed" || m == nil || m[1] != fmt.Sprint(sid) {
			t.Fatalf("scan %s", mustJSON(sc))
		}
		logText := c.send(http.MethodGet, v1("/sources/%s/scans/%s/log/", m[1], m[2]), nil, map[string]string{"Accept": "text/plain"})
		if ct := logText.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") ||
			len(strings.Split(strings.TrimSpace(string(logText.Body)), "\n")) < 2 || strings.Contains(string(logText.Body), pgSourcePassword) {
			t.Fatalf("log (%s): %s", ct, logText.Body)
		}
		// source.list_scans() newest first; client.sources.get_scan(sid, id).
		scans := c.list(v1("/sources/%d/scans/", sid))
		if len(scans) != 2 || scans[0]["id"] != sc["id"] {
			t.Fatalf("list_scans %v", scans)
		}
		if got := c.object(c.send(http.MethodGet, v1("/sources/%d/scans/%v/", sid, scans[1]["id"]), nil, pyJSON)); got["id"] != scans[1]["id"] {
			t.Fatalf("get_scan %s", mustJSON(got))
		}
		// source.list_scans().filter(status=…).order_by(…): Scan's
		// filter and ordering attributes.
		if asc := c.listWith(v1("/sources/%d/scans/?status=completed&sort=started_at", sid), pyJSON); len(asc) != 2 || asc[0]["id"] != scans[1]["id"] {
			t.Fatalf("filtered, oldest first: %v", asc)
		}
		if failed := c.listWith(v1("/sources/%d/scans/?status=failed", sid), pyJSON); len(failed) != 0 {
			t.Fatalf("failed scans %v", failed)
		}
		// .filter(started_at__after=datetime): "started_at.after" and
		// str(datetime), urlencoded.
		first, _ := time.Parse(time.RFC3339Nano, scans[1]["started_at"].(string))
		second, _ := time.Parse(time.RFC3339Nano, scans[0]["started_at"].(string))
		between := first.Add(second.Sub(first) / 2)
		after := url.Values{"started_at.after": {between.Format("2006-01-02 15:04:05.000000-07:00")}}.Encode()
		if newer := c.listWith(v1("/sources/%d/scans/?%s", sid, after), pyJSON); len(newer) != 1 || newer[0]["id"] != scans[0]["id"] {
			t.Fatalf("started after %s: %v", after, newer)
		}

		// UploadSource(); title; add_file("towns.geojson");
		// add_file("towns.xml") (metadata beside the data);
		// client.sources.create(upload).
		body, ctype := pyUpload(t, `{"type": "upload", "title": "Towns upload"}`, [][3]string{
			{"towns.geojson", "", fixtureFiles["roads.geojson"]},
			{"towns.xml", "application/xml", xmlFixture(t, "iso19139.xml")},
		})
		up := c.object(c.send(http.MethodPost, v1("/sources/"), body, map[string]string{"Accept": "application/json", "Content-Type": ctype}))
		if up["type"] != "upload" || up["title"] != "Towns upload" {
			t.Fatalf("upload %s", mustJSON(up))
		}
		upID := int(up["id"].(float64))
		upScans := c.listWith(v1("/sources/%d/scans/", upID), map[string]string{"Accept": "application/json", "Expand": "list"})
		if sc := pyRefresh(c, upScans[0]["url"].(string), "status", "queued", "scanning"); sc["status"] != "completed" {
			t.Fatalf("upload scan %s", mustJSON(sc))
		}
		upDS := c.listWith(v1("/sources/%d/datasources/", upID), pyJSON)
		if len(upDS) != 1 {
			t.Fatalf("upload datasources %v", upDS)
		}
		// datasource.metadata: get_formats() and get_xml(fp) (the native
		// document, Accept text/xml).
		d := c.object(c.send(http.MethodGet, upDS[0]["url"].(string), nil, pyJSON))
		md, ok := d["metadata"].(map[string]any)
		if !ok || md["iso"] == nil || md["dc"] == nil || md["native"] == nil {
			t.Fatalf("datasource metadata %v", d["metadata"])
		}
		xml := c.send(http.MethodGet, md["native"].(string), nil, map[string]string{"Accept": "text/xml"})
		if !strings.Contains(string(xml.Body), "MD_Metadata") {
			t.Fatalf("get_xml %s", xml.Body)
		}

		// client.sources.list(), len() from X-Resource-Range;
		// client.sources.get(id).
		if all := c.listWith(v1("/sources/"), pyJSON); len(all) != 2 {
			t.Fatalf("sources %v", all)
		}
		if got := c.object(c.send(http.MethodGet, v1("/sources/%d/", upID), nil, pyJSON)); got["url"] != up["url"] {
			t.Fatalf("get %s", mustJSON(got))
		}

		// The scans of every source (GET /sources/scans/), filtered and
		// sorted as Query.filter(status=…).order_by(…) writes them, over
		// pages (.extra(page_size=1)).
		done := c.listWith(v1("/sources/scans/?status=completed&sort=-started_at&page_size=1"), pyJSON)
		if len(done) != 3 || done[0]["source"] != up["url"] {
			t.Fatalf("all scans %v", done)
		}
		for i := 1; i < len(done); i++ {
			a, _ := time.Parse(time.RFC3339Nano, c.deserialize(done[i-1])["started_at"].(string))
			b, _ := time.Parse(time.RFC3339Nano, c.deserialize(done[i])["started_at"].(string))
			if b.After(a) {
				t.Fatalf("not newest first: %v", done)
			}
		}

		// layer = Layer(); layer.name; layer.data = LayerData(datasources=
		// [id]); client.layers.create(layer) → the draft; refresh it until
		// imported; layer.publish().
		layer := c.object(c.send(http.MethodPost, v1("/layers/"), map[string]any{
			"name": "Towns", "data": map[string]any{"datasources": []any{towns["id"]}}}, pyJSON))
		lid := int(layer["id"].(float64))
		draftURL := v1("/layers/%d/versions/draft/", lid)
		layer = pyImported(c, draftURL, 150)
		ver1 := layer["version"].(map[string]any)["id"]
		pg := c.object(c.send(http.MethodPost, v1("/layers/%d/versions/%v/publish/", lid, ver1), map[string]any{}, pyJSON))
		if g := pyRefresh(c, pg["url"].(string), "state", "publishing"); g["state"] != "completed" {
			t.Fatalf("publish %s", mustJSON(g))
		}

		// The table grows; layer.start_update(): POST
		// /layers/{id}/versions/import/ {} → a new draft importing the
		// datasource again.
		pgExec(t, conn, "INSERT INTO towns (name, geom) SELECT 'new ' || i, ST_SetSRID(ST_MakePoint(171, -41), 4326) FROM generate_series(1, 10) i")
		upd := c.object(c.send(http.MethodPost, v1("/layers/%d/versions/import/", lid), map[string]any{}, pyJSON))
		v2 := upd["version"].(map[string]any)["id"]
		if upd["id"] != float64(lid) || v2 == ver1 {
			t.Fatalf("start_update %s", mustJSON(upd))
		}
		layer = pyImported(c, draftURL, 160)
		if layer["version"].(map[string]any)["id"] != v2 {
			t.Fatalf("the draft is not start_update's: %s", mustJSON(layer))
		}
		// layer.start_import(version_id): the draft imported again.
		imp := c.object(c.send(http.MethodPost, v1("/layers/%d/versions/%v/import/", lid, v2), map[string]any{}, pyJSON))
		if imp["version"].(map[string]any)["id"] != v2 {
			t.Fatalf("start_import %s", mustJSON(imp))
		}
		pyImported(c, draftURL, 160)

		// upload.delete(); then the list holds one source.
		if r := c.send(http.MethodDelete, up["url"].(string), nil, pyJSON); r.Status != http.StatusNoContent {
			t.Fatalf("delete %d %s", r.Status, r.Body)
		}
		if all := c.listWith(v1("/sources/"), pyJSON); len(all) != 1 {
			t.Fatalf("sources after delete %v", all)
		}
	})
}

// pyImported refreshes a layer version until its import ends, which must
// be with n features.
func pyImported(c pyClient, url string, n int) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := c.object(c.send(http.MethodGet, url, nil, pyJSON))
		v := l["version"].(map[string]any)
		if v["status"] != "importing" && v["status"] != "pending" {
			if v["status"] != "ok" || l["data"].(map[string]any)["feature_count"] != float64(n) {
				c.t.Fatalf("import %s", mustJSON(l))
			}
			return l
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("import did not end: %s", mustJSON(l))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
