package rest_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// GraphQL runs the same rules: validateExport, createExport, export,
// exports (the caller's only), cancelExport, exportFormats.
func TestExportGraphQL(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		other := e.NewUser(t, "Other")
		input := map[string]any{"crs": "EPSG:2193", "formats": map[string]any{"table": "text/csv"},
			"items": []map[string]any{{"item": d.table}, {"item": e.API + "/layers/424242/"}}}
		g := e.GraphQL(t, d.owner.Key, `mutation($in: ExportInput!) { validateExport(input: $in) { isValid invalidReasons items { item isValid invalidReasons featureCount price } } }`,
			map[string]any{"in": input})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"isValid":false`) || !strings.Contains(string(g.Data), "not-found") {
			t.Fatalf("validate %s %v", g.Data, g.Errors)
		}
		input["items"] = []map[string]any{{"item": d.table}}
		g = e.GraphQL(t, d.owner.Key, `mutation($in: ExportInput!) { createExport(input: $in) { export { id name state createdVia } validation { isValid } } }`,
			map[string]any{"in": input})
		var created struct {
			CreateExport struct {
				Export struct{ ID, Name, State, CreatedVia string }
			}
		}
		if len(g.Errors) > 0 || json.Unmarshal(g.Data, &created) != nil || created.CreateExport.Export.ID == "" {
			t.Fatalf("create %s %v", g.Data, g.Errors)
		}
		id := created.CreateExport.Export.ID
		waitExport(t, e, d.owner.Key, "/exports/"+id+"/")
		g = e.GraphQL(t, d.owner.Key, `query($id: ID!) { export(id: $id) { state progress downloadPath formats items } exports { totalCount edges { node { id } } } exportFormats { kind choices { value } } }`,
			map[string]any{"id": id})
		if len(g.Errors) > 0 || !strings.Contains(string(g.Data), `"state":"complete"`) || !strings.Contains(string(g.Data), `"totalCount":1`) ||
			!strings.Contains(string(g.Data), "/exports/"+id+"/download/") || !strings.Contains(string(g.Data), "application/x-ogc-gpkg") {
			t.Fatalf("read %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, other.Key, `query($id: ID!) { export(id: $id) { id } }`, map[string]any{"id": id})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "NOT_FOUND" {
			t.Fatalf("another user: %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, other.Key, `{ exports { totalCount } }`, nil)
		if !strings.Contains(string(g.Data), `"totalCount":0`) {
			t.Fatalf("another user's list %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, d.owner.Key, `mutation($id: ID!) { cancelExport(id: $id) { id } }`, map[string]any{"id": id})
		if len(g.Errors) == 0 || g.Errors[0].Code() != "CONFLICT" {
			t.Fatalf("cancel a complete export: %s %v", g.Data, g.Errors)
		}
		g = e.GraphQL(t, "", `{ exports { totalCount } }`, nil)
		if len(g.Errors) == 0 || g.Errors[0].Code() != "UNAUTHENTICATED" {
			t.Fatalf("anonymous: %s %v", g.Data, g.Errors)
		}
	})
}
