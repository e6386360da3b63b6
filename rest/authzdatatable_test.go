package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/datatable"
	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/ogc"
)

// The data table (issue 28.4) and small data (28.5) in the authorization
// matrix. Small data: scope catalog, view on the item for the list,
// download on the document for a file.
//
// The data table: SPEC,
// service-permission rule 1: "view permission gives access to ...
// data-table"; the token scope is query. A layer the caller may not use
// and a disabled service are 404 (401 to anonymous callers), as the tile
// services answer.

// mountDataTable adds the data-table routes to r (serviceRouterKeys).
func mountDataTable(r chi.Router) {
	ogc.NewDataTable(datatable.New(ogcfeatures.New(&store.Store{}, 0, nil)), "", nil).Mount(r)
	ogc.NewSmallData(nil, "", nil).Mount(r)
}

// addDataTableOwners adds the objects the data-table routes run on:
// the layers and tables, the never published layer, and two public
// layers of their own: one whose data-table service is off (nobody may
// use it) and one whose data-table permission list names the viewer only
// (SPEC, service-permission rule 2). The collections' services-off and
// listed layers are left out: their data table is on for everyone.
func (f *fixtures) addDataTableOwners(t *testing.T) {
	t.Helper()
	for _, o := range f.objects["collections"] {
		if o.name == "layers/services-off" || o.name == "layers/listed" {
			continue
		}
		f.objects["datatables"] = append(f.objects["datatables"], o)
	}
	e, own := f.e, f.users[owner].Key
	off := f.publishedRoadsLayer(t, "Matrix data table off")
	r := e.Do(t, req{Method: "PUT", Path: off.URL + "services/data-table/", Key: own, Body: map[string]any{"enabled": false}})
	expectStatus(t, r, http.StatusOK)
	listed := f.publishedRoadsLayer(t, "Matrix data table listed")
	r = e.Do(t, req{Method: "PUT", Path: listed.URL + "services/data-table/permissions/", Key: own,
		Body: []map[string]any{{"user": f.users[viewer].ID, "permission": "access"}}})
	expectStatus(t, r, http.StatusOK)
	f.objects["datatables"] = append(f.objects["datatables"],
		&object{name: "layers/data-table-off", hidden: true, vars: map[string]string{"id": itoa(off.ID)}},
		&object{name: "layers/data-table-listed", levels: [7]level{viewer: lvDownload, owner: lvAdmin, siteAdmin: lvAdmin},
			vars: map[string]string{"id": itoa(listed.ID)}})
	f.addSmallDataOwners(t)
}

// dataTableRules: the columns, a page of rows (keyset and offset pages,
// the key in the query) and the CSV, to those holding view.
func dataTableRules(rules map[string]rule) {
	at := "{origin}/services/data-table/v1/layer={id}"
	byRoute := map[string][]string{
		"/services/data-table/v1/{owner}/columns": {at + "/columns", at + "/columns?key={key}"},
		"/services/data-table/v1/{owner}/rows": {at + "/rows?limit=5", at + "/rows?limit=2&offset=1",
			at + "/rows?limit=1&key={key}", at + "/rows?format=csv"},
		"/services/data-table/v1/{owner}/rows.csv": {at + "/rows.csv", at + "/rows.csv?offset=1&key={key}"},
	}
	for route, paths := range byRoute {
		var targets []target
		for _, p := range paths {
			targets = append(targets, target{p, canView})
		}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			rules[m+" "+route] = rule{kind: "datatables", plain: true, check: notShared, targets: slices.Clone(targets)}
		}
	}
	smallDataRules(rules)
}

// addSmallDataOwners adds the object the small-data file route runs on:
// a public published catalog item with a public published document
// attached, whose file is in blob storage. The list route runs on the
// fixtures' items (whose owner-only attachment is a secret the leak
// checks follow).
func (f *fixtures) addSmallDataOwners(t *testing.T) {
	t.Helper()
	e, own := f.e, f.users[owner]
	it := createItem(t, e, own, map[string]any{"title": "Matrix small data", "link_url": "https://example.org/small"})
	it = publishItem(t, e, own, it.ThisVersion)
	doc := seedFileDocument(t, e, own, "Matrix small file", "small.csv", []byte("a,b\r\n1,2\r\n"))
	expectStatus(t, e.Do(t, req{Method: "POST", Path: it.Attachments, Key: own.Key, Body: map[string]any{"document": doc}}), http.StatusCreated)
	cid := strings.TrimSuffix(it.URL, "/")
	cid = cid[strings.LastIndex(cid, "/")+1:]
	f.objects["smallfiles"] = append(f.objects["smallfiles"], &object{name: "items/small-data",
		levels: [7]level{anonymous: lvDownload, outsider: lvDownload, viewer: lvDownload, downloader: lvDownload, editor: lvDownload, owner: lvAdmin, siteAdmin: lvAdmin},
		vars:   map[string]string{"id": cid, "doc": itoa(doc)}})
}

// smallDataRules: the list to those who may view the item, the file to
// those who may download the document.
func smallDataRules(rules map[string]rule) {
	at := "{origin}/services/small-data/v1/item={id}"
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		// The list answers with and without its final slash (one route
		// key).
		rules[m+" /services/small-data/v1/{item}"] = rule{kind: "items", plain: true, check: notShared,
			targets: []target{{at + "/", canView}, {at + "/?key={key}", canView}, {at, canView}}}
		rules[m+" /services/small-data/v1/{item}/{document}/{filename}"] = rule{kind: "smallfiles", plain: true, check: notShared,
			targets: []target{{at + "/{doc}/small.csv", canDown}, {at + "/{doc}/small.csv?key={key}", canDown}}}
	}
}
