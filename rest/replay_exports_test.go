package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
)

// pyClient sends requests the way the Python client (koordinates/
// python-client, exports.py and client.py) does: Content-Type
// application/json on every method but GET and HEAD, JSON bodies without
// empty values, a POST answered 201/202 with a Location followed by a GET
// of that location, and list pages followed through the Link header's
// page-next.
type pyClient struct {
	t   *testing.T
	e   *env
	key string
}

func (c pyClient) request(method, url string, body any) *servertest.Response {
	c.t.Helper()
	return c.send(method, url, body, nil)
}

// send is request with the headers one call sets over the session's
// (Accept, Expand, a multipart body's Content-Type).
func (c pyClient) send(method, url string, body any, header map[string]string) *servertest.Response {
	c.t.Helper()
	h := map[string]string{"Accept": "*/*", "User-Agent": "KoordinatesPython/0.8"}
	if method != http.MethodGet && method != http.MethodHead {
		h["Content-Type"] = "application/json"
	}
	for k, v := range header {
		h[k] = v
	}
	r := c.e.Do(c.t, req{Method: method, Path: url, Key: c.key, Body: body, Header: h})
	if r.Status >= 400 { // raise_for_status
		c.t.Fatalf("%s %s: %d %s", method, url, r.Status, r.Body)
	}
	if method == http.MethodPost && (r.Status == http.StatusCreated || r.Status == http.StatusAccepted) {
		if loc := r.Header.Get("Location"); loc != "" {
			return c.request(http.MethodGet, loc, nil)
		}
	}
	return r
}

// list is Query.__iter__: pages until Link has no page-next; it also reads
// the count from X-Resource-Range as len() does.
func (c pyClient) list(url string) []map[string]any {
	c.t.Helper()
	return c.listWith(url, nil)
}

// listWith is list with the headers the query sets (Expand: list after
// .expand()).
func (c pyClient) listWith(url string, header map[string]string) []map[string]any {
	c.t.Helper()
	var all []map[string]any
	next := regexp.MustCompile(`<([^>]+)>;\s*rel="page-next"`)
	rng := regexp.MustCompile(`^\d+-\d+/(\d+)$`)
	count := -1
	for url != "" {
		r := c.send(http.MethodGet, url, nil, header)
		var page []map[string]any
		if err := json.Unmarshal(r.Body, &page); err != nil {
			c.t.Fatalf("list %s: %v: %s", url, err, r.Body)
		}
		all = append(all, page...)
		if m := rng.FindStringSubmatch(r.Header.Get("X-Resource-Range")); m != nil {
			count, _ = strconv.Atoi(m[1])
		}
		url = ""
		if m := next.FindStringSubmatch(r.Header.Get("Link")); m != nil {
			url = m[1]
		}
	}
	if count >= 0 && count != len(all) {
		c.t.Errorf("X-Resource-Range counts %d, the pages held %d", count, len(all))
	}
	return all
}

func (c pyClient) object(r *servertest.Response) map[string]any {
	c.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		c.t.Fatalf("%v: %s", err, r.Body)
	}
	return c.deserialize(m)
}

// deserialize checks what _deserialize reads of m: every *_at string
// becomes a date with dateutil.
func (c pyClient) deserialize(m map[string]any) map[string]any {
	c.t.Helper()
	for k, v := range m {
		if s, ok := v.(string); ok && strings.HasSuffix(k, "_at") {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				c.t.Errorf("%s = %q is not a date: %v", k, s, err)
			}
		}
	}
	return m
}

// The Python client's exports flows, call for call (api-shapes §7, §11):
// croplayers (list, get, get_feature), get_formats, validate with
// get_reasons, create, refresh until complete, download, list, and cancel.
// Its token is the desktop plugin's: exports:write without exports:read.
func TestPythonClientExportFlows(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		admin := e.NewUser(t, "CropAdmin", servertest.SiteAdmin)
		r := e.Do(t, req{Method: "POST", Path: "/exports/croplayers/", Key: admin.Key, Body: map[string]any{
			"name": "Parcels", "layer": d.polys, "name_field": "parcel"}})
		if r.Status != http.StatusCreated {
			t.Fatalf("crop layer: %d %s", r.Status, r.Body)
		}
		c := pyClient{t, e, e.Token(t, d.owner.User, "query tiles catalog layers:read exports:write")}

		// client.exports.croplayers.list() / .get(id) / .get_feature(id, fid)
		layers := c.list("/exports/croplayers/")
		if len(layers) != 1 {
			t.Fatalf("crop layers %v", layers)
		}
		cl := c.object(c.request(http.MethodGet, fmt.Sprintf("/exports/croplayers/%v/", layers[0]["id"]), nil))
		features := c.list(cl["features"].(string))
		if len(features) != 120 {
			t.Fatalf("%d crop features", len(features))
		}
		var p17 map[string]any
		for _, f := range features {
			if f["name"] == "P17" {
				p17 = c.object(c.request(http.MethodGet, fmt.Sprintf("/exports/croplayers/%v/cropfeatures/%v/", cl["id"], f["id"]), nil))
			}
		}
		if p17 == nil || p17["geometry"].(map[string]any)["type"] != "MultiPolygon" {
			t.Fatalf("crop feature P17: %v", p17)
		}

		// client.exports.get_formats(): actions.POST.formats.children.<kind>.choices
		var opts struct {
			Actions struct {
				POST struct {
					Formats struct {
						Children map[string]struct {
							Choices []struct {
								Value       string `json:"value"`
								DisplayName string `json:"display_name"`
							} `json:"choices"`
						} `json:"children"`
					} `json:"formats"`
				} `json:"POST"`
			} `json:"actions"`
		}
		if err := json.Unmarshal(c.request(http.MethodOptions, "/exports/", nil).Body, &opts); err != nil {
			t.Fatal(err)
		}
		formats := map[string]map[string]string{}
		for kind, k := range opts.Actions.POST.Formats.Children {
			formats[kind] = map[string]string{}
			for _, ch := range k.Choices {
				formats[kind][ch.Value] = ch.DisplayName
			}
		}
		if formats["vector"]["application/x-zipped-shp"] != "Shapefile" || formats["table"]["text/csv"] == "" ||
			formats["grid"]["application/x-ogc-aaigrid"] == "" || formats["raster"]["image/jpeg"] == "" {
			t.Fatalf("get_formats %v", formats)
		}

		// Export(); add_item(layer); set_formats(vector=…); crs; extent =
		// the crop feature (serialised as its URL); validate → get_reasons.
		export := map[string]any{
			"crs":     "EPSG:2193",
			"formats": map[string]any{"vector": "application/x-zipped-shp"},
			"items":   []map[string]any{{"item": d.points}, {"item": d.polys}, {"item": d.table}},
			"extent":  p17["url"],
			"name":    "fred the export",
		}
		val := c.object(c.request(http.MethodPost, "/exports/validate/", export))
		reasons := map[string][]any{}
		if rs, _ := val["invalid_reasons"].([]any); len(rs) > 0 {
			reasons["__all__"] = rs
		}
		for _, it := range val["items"].([]any) {
			it := it.(map[string]any)
			if rs, _ := it["invalid_reasons"].([]any); len(rs) > 0 {
				reasons[it["item"].(string)] = rs
			}
		}
		// No format for tables yet: the table alone is refused, saying so.
		if val["is_valid"] == true || len(reasons) != 1 || len(reasons[d.table]) != 1 ||
			!strings.HasPrefix(reasons[d.table][0].(string), "format-missing") {
			t.Fatalf("get_reasons %v (%s)", reasons, mustJSON(val))
		}
		export["formats"] = map[string]any{"vector": "application/x-zipped-shp", "table": "text/csv"}
		if val := c.object(c.request(http.MethodPost, "/exports/validate/", export)); val["is_valid"] != true {
			t.Fatalf("validate %s", mustJSON(val))
		}

		// client.exports.create(export): 201 + Location, then the GET.
		x := c.object(c.request(http.MethodPost, "/exports/", export))
		if !strings.HasSuffix(x["name"].(string), "-fred-the-export") || x["created_via"] != "API" ||
			x["extent"] != p17["url"] || x["state"] != "processing" {
			t.Fatalf("created %s", mustJSON(x))
		}
		// export.refresh() until state == "complete" and download_url.
		deadline := time.Now().Add(60 * time.Second)
		for x["state"] == "processing" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			x = c.object(c.request(http.MethodGet, x["url"].(string), nil))
		}
		if x["state"] != "complete" || x["download_url"] == nil {
			t.Fatalf("export %s", mustJSON(x))
		}
		// export.download(path): GET download_url, content-length as total.
		dl := c.request(http.MethodGet, x["download_url"].(string), nil)
		if n, err := strconv.Atoi(dl.Header.Get("Content-Length")); err != nil || n != len(dl.Body) || n == 0 {
			t.Fatalf("Content-Length %q for %d bytes", dl.Header.Get("Content-Length"), len(dl.Body))
		}
		if string(dl.Body[:2]) != "PK" {
			t.Fatalf("not a zip")
		}

		// client.exports.list()
		if all := c.list("/exports/"); len(all) != 1 || all[0]["state"] != "complete" || all[0]["download_url"] == nil {
			t.Fatalf("list %v", all)
		}

		// client.exports.cancel(id) on a finished export: 409 {"errors": ["Can't cancel"]}.
		r = e.Do(t, req{Method: "DELETE", Path: x["url"].(string), Key: c.key, Header: map[string]string{"Content-Type": "application/json"}})
		if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), `"Can't cancel"`) {
			t.Fatalf("cancel of a complete export: %d %s", r.Status, r.Body)
		}

		// A token with neither export scope is told which one reads.
		other := e.Token(t, d.owner.User, "catalog")
		expectDetail(t, e.Do(t, req{Path: "/exports/", Key: other}), http.StatusUnauthorized, "exports:read")
	})
}
