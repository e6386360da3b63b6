package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// newExport stores an export of the admin role in state, without a job.
func (f *gqlFixtures) newExport(state export.State) int {
	now := time.Now().UTC()
	return f.e.Store.Client.Export.Create().SetUserID(f.users["admin"].User.ID).SetName("geopub-matrix-export").
		SetCreatedVia(export.CreatedViaAPI).SetState(state).SetProgress(0).
		SetFormats(map[string]string{"vector": "application/x-ogc-gpkg"}).
		SetItems([]schematype.ExportItem{{Item: "http://127.0.0.1/layers/1/"}}).SetCompletedAt(now).
		SaveX(context.Background()).ID
}

// exportCases are the export mutations: validating and creating need a
// signed-in caller (items are checked one by one); cancelling, an export
// the caller may read (its creator's or a site administrator's).
func exportCases(t *testing.T, f *gqlFixtures, cases map[string]mutationCase) {
	input := fmt.Sprintf(`{crs: "EPSG:2193", formats: {vector: "application/x-ogc-gpkg"}, items: [{item: "%s/services/api/v1.x/layers/%v/"}]}`,
		f.e.HTTP.URL, f.vars["layer.public"])
	me := func(*gqlFixtures) []writeTarget {
		return []writeTarget{{name: "public layer", vars: map[string]any{}, need: "/users/me/"}}
	}
	cases["validateExport"] = mutationCase{op: `mutation { validateExport(input: ` + input + `) { isValid items { item license { id } } } }`, targets: me}
	cases["createExport"] = mutationCase{op: `mutation { createExport(input: ` + input + `) { export { id name } validation { isValid } } }`, targets: me}
	cases["cancelExport"] = mutationCase{op: `mutation($id: ID!) { cancelExport(id: $id) { id state } }`, targets: func(f *gqlFixtures) []writeTarget {
		id := f.newExport(export.StateProcessing)
		return []writeTarget{{name: "processing export", vars: map[string]any{"id": id}, need: fmt.Sprintf("/exports/%d/", id)}}
	}}
}
