package ogc_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rowsDoc is a data-table rows answer.
type rowsDoc struct {
	Fields   []string
	Matched  int64
	Returned int
	Offset   *int
	Links    map[string]*string
	Rows     []struct {
		FID        int64
		Properties map[string]any
		Geometry   *string
	}
}

func (r rowsDoc) fids() []int64 {
	out := make([]int64, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = row.FID
	}
	return out
}

// tableGet fetches a data-table path (under /services/data-table/v1, or
// an absolute URL).
func (f *fixture) tableGet(t *testing.T, key, path string) response {
	t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = f.e.HTTP.URL + "/services/data-table/v1" + path
	}
	return f.get(t, key, path)
}

// tableRows fetches a rows page that must answer 200.
func (f *fixture) tableRows(t *testing.T, key, path string) rowsDoc {
	t.Helper()
	var d rowsDoc
	f.tableGet(t, key, path).json(t, http.StatusOK, "application/json", &d)
	return d
}

// allRows follows next links from path and returns every row's fid.
func (f *fixture) allRows(t *testing.T, key, path string) ([]int64, int64) {
	t.Helper()
	var out []int64
	d := f.tableRows(t, key, path)
	matched := d.Matched
	for pages := 0; ; pages++ {
		out = append(out, d.fids()...)
		if d.Links["next"] == nil || pages > 100 {
			break
		}
		d = f.tableRows(t, key, *d.Links["next"])
	}
	return out, matched
}

// ogcIDs are the feature ids OGC API Features gives for a CQL2 filter.
func (f *fixture) ogcIDs(t *testing.T, key, collection, filter string) []int64 {
	t.Helper()
	var out []int64
	u := "/collections/" + collection + "/items?limit=7&filter=" + url.QueryEscape(filter)
	for u != "" {
		var fc struct {
			Features []struct{ ID int64 }
			Links    []struct{ Rel, Href string }
		}
		f.get(t, key, u).json(t, http.StatusOK, "application/geo+json", &fc)
		for _, ft := range fc.Features {
			out = append(out, ft.ID)
		}
		u = ""
		for _, l := range fc.Links {
			if l.Rel == "next" {
				u = l.Href
			}
		}
	}
	return out
}

func TestDataTable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		pts := "/layer=" + itoa(f.points)
		key := f.reader.Key

		t.Run("columns", func(t *testing.T) {
			var d struct {
				Layer        int
				Table        bool
				GeometryType string `json:"geometry_type"`
				Count        int64
				Columns      []struct{ Name, Type string }
				Links        map[string]string
			}
			r := f.tableGet(t, key, pts+"/columns")
			r.json(t, http.StatusOK, "application/json", &d)
			if d.Layer != f.points || d.Table || d.Count != 26 || d.GeometryType != "point" || len(d.Columns) != 2 ||
				d.Columns[0].Name != "name" || d.Columns[1].Type != "integer" {
				t.Errorf("columns %+v", d)
			}
			if got := r.header.Get("Accepted-OAuth-Scopes"); got != "query" {
				t.Errorf("Accepted-OAuth-Scopes %q", got)
			}
			var td struct{ Table bool }
			f.tableGet(t, key, "/layer="+itoa(f.table)+"/columns").json(t, http.StatusOK, "application/json", &td)
			if !td.Table {
				t.Error("the table is not a table")
			}
		})

		t.Run("keyset pages in fid order", func(t *testing.T) {
			d := f.tableRows(t, key, pts+"/rows?limit=10")
			if d.Matched != 26 || d.Returned != 10 || d.Offset != nil || d.Links["next"] == nil || d.Links["prev"] != nil {
				t.Fatalf("first page %+v", d)
			}
			if !strings.Contains(*d.Links["next"], "cursor=") {
				t.Errorf("next %s", *d.Links["next"])
			}
			fids, _ := f.allRows(t, key, pts+"/rows?limit=10")
			var want []int64
			for _, ft := range f.pointFeatures {
				want = append(want, ft.fid)
			}
			if !slices.Equal(fids, want) {
				t.Errorf("rows %v, want %v", fids, want)
			}
		})

		t.Run("sorted by several fields, paged by offset", func(t *testing.T) {
			fids, matched := f.allRows(t, key, pts+"/rows?limit=4&sort="+url.QueryEscape("-rank,name"))
			if matched != 26 || len(fids) != 26 {
				t.Fatalf("%d rows of %d", len(fids), matched)
			}
			// rank descending (null first: after every value ascending),
			// then name ascending, then fid.
			type kv struct {
				fid  int64
				rank any
				name string
			}
			var want []kv
			for _, ft := range f.pointFeatures {
				want = append(want, kv{ft.fid, ft.attrs["rank"], ft.attrs["name"].(string)})
			}
			slices.SortStableFunc(want, func(a, b kv) int {
				ra, rb := int64(-1), int64(-1)
				if a.rank != nil {
					ra = a.rank.(int64)
				}
				if b.rank != nil {
					rb = b.rank.(int64)
				}
				if a.rank == nil && b.rank != nil {
					return -1
				}
				if b.rank == nil && a.rank != nil {
					return 1
				}
				if ra != rb {
					return int(rb - ra)
				}
				return strings.Compare(a.name, b.name)
			})
			for i, w := range want {
				if fids[i] != w.fid {
					t.Fatalf("row %d: fid %d, want %d (all %v)", i, fids[i], w.fid, fids)
				}
			}
			d := f.tableRows(t, key, pts+"/rows?limit=4&offset=4&sort=name")
			if d.Offset == nil || *d.Offset != 4 || d.Links["prev"] == nil || !strings.Contains(*d.Links["prev"], "offset=0") {
				t.Errorf("second sorted page %+v", d)
			}
		})

		t.Run("CQL2 filter gives the ids OGC API Features gives", func(t *testing.T) {
			for _, filter := range []string{"rank = 1", "rank > 0 AND name LIKE 'Point 1%'",
				"S_INTERSECTS(geometry, BBOX(174.71, -41.29, 174.75, -41.25))", "rank IS NULL OR name = 'Nowhere'"} {
				fids, matched := f.allRows(t, key, pts+"/rows?limit=3&filter="+url.QueryEscape(filter))
				want := f.ogcIDs(t, f.owner.Key, layerID(f.points), filter)
				if !slices.Equal(fids, want) || matched != int64(len(want)) || len(want) == 0 {
					t.Errorf("%s: rows %v (matched %d), OGC API Features %v", filter, fids, matched, want)
				}
			}
		})

		t.Run("simple filters, fields, WKT", func(t *testing.T) {
			d := f.tableRows(t, key, pts+"/rows?rank=2&fields=name&geometry=wkt&limit=100")
			var want []int64
			for _, ft := range f.pointFeatures {
				if ft.attrs["rank"] == int64(2) {
					want = append(want, ft.fid)
				}
			}
			if !slices.Equal(d.fids(), want) || d.Matched != int64(len(want)) || !slices.Equal(d.Fields, []string{"name"}) {
				t.Fatalf("rank=2: %+v, want %v", d, want)
			}
			for _, r := range d.Rows {
				if len(r.Properties) != 1 || r.Geometry == nil || !strings.HasPrefix(*r.Geometry, "POINT (174.") {
					t.Errorf("row %+v", r)
				}
			}
			d = f.tableRows(t, key, pts+"/rows?name="+url.QueryEscape("Point 3"))
			if len(d.Rows) != 1 || d.Rows[0].FID != 109 {
				t.Errorf("name=Point 3: %+v", d)
			}
		})

		t.Run("bad input is 400 with a message", func(t *testing.T) {
			for _, q := range []string{"limit=0", "limit=1001", "limit=x", "offset=-1", "offset=100000", "sort=nope",
				"sort=name,name", "sort=,", "fields=nope", "fields=,", "filter=" + url.QueryEscape("nope = 1"),
				"filter=" + url.QueryEscape("rank = "), "filter-lang=cql2-text", "filter=x&filter-lang=sql",
				"geometry=geojson", "nope=1", "cursor=zz", "cursor=1.1&sort=name", "format=xml", "limit=1&limit=2",
				"rank=1&rank=2", "filter=" + url.QueryEscape(strings.Repeat("(", 5000)+"rank = 1"+strings.Repeat(")", 5000))} {
				r := f.tableGet(t, key, pts+"/rows?"+q)
				var e struct{ Detail string }
				if r.status != http.StatusBadRequest || json.Unmarshal(r.body, &e) != nil || e.Detail == "" {
					t.Errorf("%s: %d %s", q, r.status, r.body)
				}
			}
			var e struct{ Detail string }
			f.tableGet(t, key, "/layer="+itoa(f.table)+"/rows?geometry=wkt").json(t, http.StatusBadRequest, "application/json", &e)
			for _, p := range []string{"/layer=0/rows", "/layer=x/rows", "/set=1/rows", "/layer=01/rows", "/layer=99999/rows"} {
				if r := f.tableGet(t, key, p); r.status != http.StatusNotFound {
					t.Errorf("%s: %d %s", p, r.status, r.body)
				}
			}
		})

		t.Run("access", func(t *testing.T) {
			priv := "/layer=" + itoa(f.private) + "/rows"
			if r := f.tableGet(t, "", priv); r.status != http.StatusUnauthorized {
				t.Errorf("anonymous on a private layer: %d %s", r.status, r.body)
			}
			if r := f.tableGet(t, key, priv); r.status != http.StatusNotFound {
				t.Errorf("reader on a private layer: %d %s", r.status, r.body)
			}
			f.tableRows(t, f.owner.Key, priv)
			f.tableRows(t, "", pts+"/rows")
			f.tableRows(t, "", pts+"/rows?key="+url.QueryEscape(key))
			r := f.tableGet(t, e.Token(t, f.reader.User, "tiles"), pts+"/rows")
			if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "query") {
				t.Errorf("token without query: %d %s", r.status, r.body)
			}
			// A disabled service answers no one, its owner included.
			f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/data-table/", f.points), `{"enabled": false}`, http.StatusOK)
			waitFresh()
			if r := f.tableGet(t, f.owner.Key, pts+"/rows"); r.status != http.StatusNotFound {
				t.Errorf("disabled service: %d %s", r.status, r.body)
			}
			f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/data-table/", f.points), `{"enabled": true}`, http.StatusOK)
			// A permission list without the reader's group keeps the reader out.
			f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/data-table/permissions/", f.points),
				fmt.Sprintf(`[{"permission": "access", "user": %d}]`, f.owner.User.ID), http.StatusOK)
			waitFresh()
			if r := f.tableGet(t, key, pts+"/rows"); r.status != http.StatusNotFound {
				t.Errorf("reader not permitted: %d %s", r.status, r.body)
			}
			f.tableRows(t, f.owner.Key, pts+"/rows")
			f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/data-table/permissions/", f.points), `[]`, http.StatusOK)
			waitFresh()
			f.tableRows(t, key, pts+"/rows")
		})

		t.Run("CSV of the current view, read by GDAL", func(t *testing.T) {
			ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
			filter := "rank >= 1"
			view := pts + "/rows?limit=3&sort=-name&fields=rank,name&geometry=wkt&filter=" + url.QueryEscape(filter)
			d := f.tableRows(t, key, view)
			r := f.tableGet(t, key, *d.Links["csv"])
			if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") ||
				!strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment;") {
				t.Fatalf("CSV: %d %v %s", r.status, r.header, r.body)
			}
			if !strings.Contains(string(r.body), "\r\n") {
				t.Error("CSV lines do not end in CRLF")
			}
			recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			all, _ := f.allRows(t, key, view)
			if len(recs) != len(all)+1 || !slices.Equal(recs[0], []string{"fid", "rank", "name", "WKT"}) {
				t.Fatalf("CSV %d records (want %d), header %v", len(recs), len(all)+1, recs[0])
			}
			for i, fid := range all {
				if recs[i+1][0] != strconv.FormatInt(fid, 10) {
					t.Errorf("CSV row %d: fid %s, want %d", i, recs[i+1][0], fid)
				}
			}
			// The same through ?format=csv.
			if r2 := f.tableGet(t, key, strings.Replace(view, "limit=3", "format=csv", 1)); string(r2.body) != string(r.body) {
				t.Errorf("format=csv differs from rows.csv:\n%s\n%s", r2.body, r.body)
			}
			path := filepath.Join(t.TempDir(), "view.csv")
			if err := os.WriteFile(path, r.body, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(ogrinfo, "-ro", "-al", "-so", "-oo", "AUTODETECT_TYPE=YES", path).CombinedOutput()
			if err != nil {
				t.Fatalf("ogrinfo: %v: %s", err, out)
			}
			s := string(out)
			if m := regexp.MustCompile(`Feature Count: (\d+)`).FindStringSubmatch(s); m == nil || m[1] != strconv.Itoa(len(all)) {
				t.Errorf("ogrinfo counts %v, want %d:\n%s", m, len(all), s)
			}
			for _, field := range []string{"fid: Integer", "rank: Integer", "name: String"} {
				if !strings.Contains(s, field) {
					t.Errorf("ogrinfo does not list %q:\n%s", field, s)
				}
			}
			// GDAL reads the WKT column as the geometry.
			if !strings.Contains(s, "Extent: (174.700000, -41.300000) - (174.780000, -41.220000)") {
				t.Errorf("ogrinfo reads no geometry of the expected extent:\n%s", s)
			}
			// The hostile name survives quoting.
			if !strings.Contains(string(r.body), `"<script>alert(""owned"")</script> & <b>bold</b>"`) {
				t.Errorf("the hostile name is not quoted as RFC 4180 asks:\n%s", r.body)
			}
		})
	})
}
