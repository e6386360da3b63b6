package rest_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/exports"
)

// exportRules: exports belong to their creator; site administrators see
// everyone's; to anyone else an export does not exist.
func exportRules(rules map[string]rule) {
	one := "/exports/{id}/"
	request := bodyOf(map[string]any{"items": []map[string]any{{"item": "http://127.0.0.1/services/api/v1.x/layers/999999/"}},
		"formats": map[string]any{"vector": "application/x-ogc-gpkg"}, "crs": "EPSG:2193"})
	rules["GET /exports"] = rule{targets: []target{{"/exports/", signedIn}}}
	// The item does not exist: an allowed caller's create is refused with
	// the validation body (400).
	rules["POST /exports"] = rule{targets: []target{{"/exports/", signedIn}}, body: request, ok: []int{http.StatusBadRequest}}
	rules["POST /exports/validate"] = rule{targets: []target{{"/exports/validate/", signedIn}}, body: request}
	rules["GET /exports/{eid}"] = rule{kind: "exports", targets: []target{{one, canAdmin}}}
	rules["GET /exports/{eid}/download"] = rule{kind: "exports", targets: []target{{one + "download/", canAdmin}}}
	// The fixture is complete: its owner and site administrators may ask,
	// and are told it can no longer be cancelled.
	rules["DELETE /exports/{eid}"] = rule{kind: "exports", targets: []target{{one, canAdmin}}, ok: []int{http.StatusConflict}}
}

// addExports adds a complete export of the owner, with its file.
func (f *fixtures) addExports(t *testing.T) {
	t.Helper()
	ctx, c, own := t.Context(), f.e.Store.Client, f.users[owner]
	now := time.Now().UTC()
	e := c.Export.Create().SetUserID(own.ID).SetName("geopub-matrix-secret-export").SetCreatedVia(export.CreatedViaAPI).
		SetState(export.StateComplete).SetProgress(1).SetFormats(map[string]string{"vector": "application/x-ogc-gpkg"}).
		SetItems([]schematype.ExportItem{{Item: "http://127.0.0.1/layers/1/"}}).SetCompletedAt(now).SetExpiresAt(now.Add(time.Hour)).
		SaveX(ctx)
	zip := []byte("PK\x05\x06" + string(make([]byte, 18))) // an empty zip
	key := exports.BlobKey(e.ID)
	if _, err := f.e.Server.Resolver.Blobs.Put(ctx, key, bytes.NewReader(zip), "application/zip"); err != nil {
		t.Fatal(err)
	}
	e.Update().SetBlobKey(key).SetFileSize(int64(len(zip))).ExecX(ctx)
	mine := [7]level{lvNone, lvNone, lvNone, lvNone, lvNone, lvAdmin, lvAdmin}
	f.objects["exports"] = []*object{{name: "exports/owned", levels: mine, hidden: true, vars: map[string]string{"id": itoa(e.ID)}}}
	f.secrets = append(f.secrets, secret{e.Name, readers(mine, lvAdmin)})
}
