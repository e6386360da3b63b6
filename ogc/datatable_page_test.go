package ogc_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/browsertest"
)

// The HTML table page (web/htmlview) over the data-table API, in headless
// Chromium: sort by a column (both ways), filter, page, pick fields, and
// the CSV link of the current view.
func TestDataTablePage(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		key := f.reader.Key
		pts := "/layer=" + itoa(f.points)
		_, session, err := e.Server.Resolver.Auth.StartSession(context.Background(), f.reader.User)
		if err != nil {
			t.Fatal(err)
		}
		cookie := &http.Cookie{Name: auth.SessionCookie, Value: session}
		page := "/layers/" + itoa(f.points) + "/data/"

		// The layer page links the table to those who may use it.
		if r := f.get(t, "", e.HTTP.URL+"/layers/"+itoa(f.points)+"/"); !strings.Contains(string(r.body), `href="`+page+`"`) {
			t.Errorf("the layer page does not link its table:\n%s", r.body)
		}
		if r := f.get(t, f.owner.Key, e.HTTP.URL+"/layers/"+itoa(f.private)+"/"); !strings.Contains(string(r.body), "/data/") {
			t.Error("the private layer's page does not link its table to its owner")
		}
		if r := f.get(t, key, e.HTTP.URL+"/layers/"+itoa(f.private)+"/data/"); r.status != http.StatusNotFound {
			t.Errorf("the private table page to a reader: %d", r.status)
		}
		if r := f.get(t, key, e.HTTP.URL+"/tables/"+itoa(f.points)+"/data/"); r.status != http.StatusNotFound {
			t.Errorf("a layer's table page under /tables/: %d", r.status)
		}
		r := f.get(t, key, e.HTTP.URL+page)
		if r.status != http.StatusOK || !strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Fatalf("table page: %d %v", r.status, r.header)
		}

		fidsOf := func(v browsertest.TableView) []string {
			out := make([]string, len(v.Rows))
			for i, row := range v.Rows {
				out[i] = row[0]
			}
			return out
		}
		apiFids := func(q string) []string {
			var out []string
			for _, fid := range f.tableRows(t, key, pts+"/rows?"+q).fids() {
				out = append(out, strconv.FormatInt(fid, 10))
			}
			return out
		}

		p := browsertest.OpenTablePage(t, e.HTTP.URL+page, cookie)
		defer p.Close()
		v := p.View()
		if !slices.Equal(v.Head, []string{"fid", "name", "rank"}) || len(v.Rows) != 25 || v.Rows[0][0] != "100" ||
			!v.Next || v.Prev || v.Status != "Rows 1–25 of 26." {
			t.Fatalf("first view %+v", v)
		}
		v = p.Do(`document.querySelector('#rows th button[data-field="rank"]').click()`)
		if got, want := fidsOf(v), apiFids("limit=25&sort=rank"); !slices.Equal(got, want) || v.Head[2] != "rank ▲" {
			t.Errorf("sorted by rank: %v (%v), want %v", got, v.Head, want)
		}
		v = p.Do(`document.querySelector('#rows th button[data-field="rank"]').click()`)
		if got, want := fidsOf(v), apiFids("limit=25&sort=-rank"); !slices.Equal(got, want) || v.Head[2] != "rank ▼" {
			t.Errorf("sorted by rank descending: %v, want %v", got, want)
		}
		// Page through the sorted view and back.
		v = p.Do(`document.getElementById("next").click()`)
		if got, want := fidsOf(v), apiFids("limit=25&sort=-rank&offset=25"); !slices.Equal(got, want) || !v.Prev || v.Next || v.Status != "Rows 26–26 of 26." {
			t.Errorf("second page: %v (%+v), want %v", got, v, want)
		}
		v = p.Do(`document.getElementById("prev").click()`)
		if got, want := fidsOf(v), apiFids("limit=25&sort=-rank"); !slices.Equal(got, want) || v.Prev {
			t.Errorf("back to the first page: %v, want %v", got, want)
		}
		// Filter, with a hostile value shown as text.
		v = p.Do(`document.getElementById("filter").value = "rank = 1"; document.getElementById("view").requestSubmit()`)
		want := apiFids("limit=25&sort=-rank&filter=" + url.QueryEscape("rank = 1"))
		if got := fidsOf(v); !slices.Equal(got, want) || v.Next || len(want) != 7 {
			t.Errorf("filtered: %v, want %v", got, want)
		}
		hostile := false
		for _, row := range v.Rows {
			hostile = hostile || row[1] == Hostile
		}
		if !hostile {
			t.Errorf("the hostile name is not shown as text: %v", v.Rows)
		}
		// A bad filter shows the API's message.
		v = p.Do(`document.getElementById("filter").value = "nope = 1"; document.getElementById("view").requestSubmit()`)
		if !strings.Contains(v.Error, "nope") {
			t.Errorf("bad filter: %+v", v)
		}
		// Pick fields, filter again; the CSV link gives the current view.
		v = p.Do(`document.querySelector('input[name=field][value="rank"]').click()`)
		v = p.Do(`document.getElementById("filter").value = "rank >= 1"; document.getElementById("view").requestSubmit()`)
		if !slices.Equal(v.Head, []string{"fid", "name"}) || v.Error != "" {
			t.Fatalf("fields picked: %+v", v)
		}
		all, _ := f.allRows(t, key, pts+"/rows?limit=7&fields=name&sort=-rank&filter="+url.QueryEscape("rank >= 1"))
		c := f.get(t, key, v.CSV)
		recs, err := csv.NewReader(strings.NewReader(string(c.body))).ReadAll()
		if err != nil || c.status != http.StatusOK {
			t.Fatalf("CSV %s: %d %v %s", v.CSV, c.status, err, c.body)
		}
		if len(recs) != len(all)+1 || !slices.Equal(recs[0], []string{"fid", "name"}) {
			t.Fatalf("CSV of the view: %d records, header %v; want %d", len(recs), recs[0], len(all)+1)
		}
		for i, fid := range all {
			if recs[i+1][0] != strconv.FormatInt(fid, 10) {
				t.Errorf("CSV row %d: %v, want fid %d", i, recs[i+1], fid)
			}
		}
	})
}
