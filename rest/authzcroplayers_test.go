package rest_test

import (
	"net/http"
	"testing"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
)

// cropLayerRules: crop layers are read by every signed-in caller and
// managed by site administrators.
func cropLayerRules(rules map[string]rule) {
	list, one := "/exports/croplayers/", "/exports/croplayers/{crop}/"
	body := func(f *fixtures, _ *object, _ role) any {
		return map[string]any{"name": "Matrix crop layer", "layer": num(f.vars["croplayer.layer"]), "name_field": "region"}
	}
	rules["GET /exports/croplayers"] = rule{targets: []target{{list, signedIn}}}
	rules["POST /exports/croplayers"] = rule{targets: []target{{list, siteOnly}}, body: body}
	rules["GET /exports/croplayers/{cid}"] = rule{targets: []target{{one, signedIn}}}
	rules["GET /exports/croplayers/{cid}/cropfeatures"] = rule{targets: []target{{one + "cropfeatures/", signedIn}}}
	rules["GET /exports/croplayers/{cid}/cropfeatures/{fid}"] = rule{targets: []target{{one + "cropfeatures/{cropfid}/", signedIn}}}
	rules["DELETE /exports/croplayers/{cid}"] = rule{targets: []target{{one, siteOnly}}, last: lastDelete}
}

// addCropLayer publishes a private polygon layer of the site
// administrator's and makes it a crop layer: {crop} and {cropfid} name
// the crop layer and its feature, croplayer.layer the layer.
func (f *fixtures) addCropLayer(t *testing.T) {
	t.Helper()
	e, root := f.e, f.users[siteAdmin]
	src := upload(t, e, root.Key, map[string][]byte{"matrix-regions.geojson": []byte(cropRegions)})
	if sc := waitScan(t, e, root.Key, src.ID); sc.Status != "completed" {
		t.Fatalf("scan %+v", sc)
	}
	ds := datasources(t, e, root.Key, src.ID)
	layerID := publishLayerFrom(t, e, root, "Matrix crop regions", ds["matrix-regions.geojson"].ID)
	e.Store.Client.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindLayer),
		datasetpermission.DatasetID(layerID), datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(t.Context())
	f.vars["croplayer.layer"] = itoa(layerID)
	r := e.Do(t, req{Method: "POST", Path: "/exports/croplayers/", Key: root.Key,
		Body: map[string]any{"name": "Matrix regions", "layer": layerID, "name_field": "region"}})
	expectStatus(t, r, http.StatusCreated)
	var c cropLayerRecord
	r.JSON(t, &c)
	f.vars["crop"] = itoa(c.ID)
	feats := doJSON[[]cropFeatureRecord](t, e, req{Path: c.Features, Key: root.Key}, http.StatusOK)
	if len(feats) == 0 {
		t.Fatal("the matrix's crop layer has no features")
	}
	f.vars["cropfid"] = itoa(feats[0].ID)
}
