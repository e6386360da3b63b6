package rest_test

import (
	"net/http"
	"slices"
	"testing"
)

// addServiceOwners gives the layers, tables and sets what the data
// service routes name them by, and adds the objects only those routes
// run on:
//   - collections: the layers and tables (OGC API - Features and WFS),
//     {coll} = layer-N or table-N, {fid} a feature of each;
//   - tileowners: the layers and sets (tiles, TileJSON, WMTS), {tk} =
//     layer or set, and the tables, whose tiles nobody gets (they have
//     no geometry);
//   - both: a public layer with its wfs and tiles services off, one
//     never published, and one whose services list the viewer only;
//   - rasterowners: the tile owners and the grids (authzgridfixtures_test.go),
//     for the image-only routes (raster TileJSON, WMTS).
func (f *fixtures) addServiceOwners(t *testing.T) {
	t.Helper()
	for _, kind := range []struct{ name, coll, tk string }{{"layers", "layer", "layer"}, {"tables", "table", ""}, {"sets", "", "set"}} {
		for _, o := range f.objects[kind.name] {
			if kind.coll != "" {
				o.vars["coll"], o.vars["fid"] = kind.coll+"-"+o.vars["id"], "1"
				f.objects["collections"] = append(f.objects["collections"], o)
			}
			if kind.tk != "" {
				o.vars["tk"] = kind.tk
				f.objects["tileowners"] = append(f.objects["tileowners"], o)
			}
		}
	}
	// Tables have no geometry: no tiles of them for anyone.
	for _, o := range f.objects["tables"] {
		f.objects["tileowners"] = append(f.objects["tileowners"], &object{name: o.name + "-tiles", hidden: true,
			vars: map[string]string{"id": o.vars["id"], "tk": "layer"}})
	}
	for _, o := range []*object{f.servicesOffLayer(t), f.unpublishedLayer(t), f.listedLayer(t)} {
		f.objects["collections"] = append(f.objects["collections"], o)
		f.objects["tileowners"] = append(f.objects["tileowners"], o)
	}
	// Image tiles and WMTS serve grids too.
	f.addGrids(t)
	f.objects["rasterowners"] = slices.Concat(f.objects["tileowners"], f.objects["grids"])
	f.addArcGISOwners(t)
	f.addArcGISMapOwners(t)
}

// roadsLayer imports the fixtures' roads as a new layer, returning its
// record once the import has ended.
func (f *fixtures) roadsLayer(t *testing.T, name string) layerRecord {
	t.Helper()
	e, own := f.e, f.users[owner].Key
	public := f.objects["layers"][1]
	ds := e.Store.Client.LayerVersion.GetX(t.Context(), num(public.vars["pub"])).DatasourceIds
	r := e.Do(t, req{Method: "POST", Path: "/layers/", Key: own, Body: map[string]any{
		"name": name, "data": map[string]any{"datasources": ds}}})
	expectStatus(t, r, http.StatusCreated)
	var l layerRecord
	r.JSON(t, &l)
	if l = waitVersion(t, e, own, l.ThisVersion); l.Version.Status != "ok" {
		t.Fatalf("import %+v", l)
	}
	return l
}

// publishedRoadsLayer is roadsLayer published by its owner.
func (f *fixtures) publishedRoadsLayer(t *testing.T, name string) layerRecord {
	t.Helper()
	e, own := f.e, f.users[owner].Key
	l := f.roadsLayer(t, name)
	r := e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: own, Body: map[string]any{}})
	expectStatus(t, r, http.StatusCreated)
	waitPublish(t, e, own, r.Header.Get("Location"))
	return l
}

// unpublishedLayer is a layer with a draft only. Issue 16: "Draft
// versions are never served", to its owner neither.
func (f *fixtures) unpublishedLayer(t *testing.T) *object {
	t.Helper()
	id := itoa(f.roadsLayer(t, "Matrix unpublished").ID)
	return &object{name: "layers/unpublished", hidden: true, vars: map[string]string{
		"id": id, "coll": "layer-" + id, "fid": "1", "tk": "layer"}}
}

// servicesOffLayer publishes a public layer of the fixtures' roads and
// turns its wfs and tiles services off. SPEC, the service rule: a
// disabled service serves nobody, its owner and the site administrators
// included; ogc/access_test.go: it is a 404 alike.
func (f *fixtures) servicesOffLayer(t *testing.T) *object {
	t.Helper()
	e, own := f.e, f.users[owner].Key
	l := f.publishedRoadsLayer(t, "Matrix services off")
	for _, svc := range []string{"wfs", "tiles"} {
		r := e.Do(t, req{Method: "PUT", Path: l.URL + "services/" + svc + "/", Key: own, Body: map[string]any{"enabled": false}})
		expectStatus(t, r, http.StatusOK)
	}
	id := itoa(l.ID)
	// Nobody may use its services: levels of none (and hidden, so that
	// a 403 to anyone fails the matrix).
	return &object{name: "layers/services-off", hidden: true, vars: map[string]string{
		"id": id, "coll": "layer-" + id, "fid": "1", "tk": "layer"}}
}

// listedLayer is a public layer whose wfs and tiles services list the
// viewer only. SPEC, service-permission rule 2: "When the permission list
// is non-empty, only listed roles may use the service, plus users with
// admin on the owner." Everyone holds download on it (public), so the
// levels below are what each role may use its services with.
func (f *fixtures) listedLayer(t *testing.T) *object {
	t.Helper()
	e, own := f.e, f.users[owner].Key
	l := f.publishedRoadsLayer(t, "Matrix listed")
	for _, svc := range []string{"wfs", "tiles"} {
		r := e.Do(t, req{Method: "PUT", Path: l.URL + "services/" + svc + "/permissions/", Key: own,
			Body: []map[string]any{{"user": f.users[viewer].ID, "permission": "access"}}})
		expectStatus(t, r, http.StatusOK)
	}
	id := itoa(l.ID)
	return &object{name: "layers/listed", levels: [7]level{viewer: lvDownload, owner: lvAdmin, siteAdmin: lvAdmin},
		vars: map[string]string{"id": id, "coll": "layer-" + id, "fid": "1", "tk": "layer"}}
}
