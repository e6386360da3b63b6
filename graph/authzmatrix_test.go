package graph_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// TestGraphQLAuthorizationMatrix walks the executable schema: every field
// that returns an entity must have a guard (so a new field fails here and
// at run time until it is given one), and, over fixtures of a private
// source and a published layer made from it, no caller reads through any
// nested path an object its direct lookup refuses them.
func TestGraphQLAuthorizationMatrix(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	fields := graph.EntityFields(schema)
	rules := graph.FieldGuardRules()
	var missing, stale []string
	for k := range fields {
		if rules[k] == "" {
			missing = append(missing, k)
		}
	}
	for k := range rules {
		if !fields[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("entity fields without a read guard (add them to fieldGuards): %v", missing)
	}
	if len(stale) > 0 {
		t.Errorf("fieldGuards entries for fields the schema no longer has: %v", stale)
	}

	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		ctx := context.Background()
		c := st.Client
		owner := e.NewUser(t, "Owner")
		callers := map[string]string{"anonymous": "", "owner": owner.Key}
		levels := map[string]access.Level{"viewer": access.View, "downloader": access.Download, "editor": access.Edit, "admin": access.Admin}
		users := map[string]*servertest.User{}
		for name := range levels {
			users[name] = e.NewUser(t, name)
			callers[name] = users[name].Key
		}
		callers["outsider"] = e.NewUser(t, "Outsider").Key
		callers["siteadmin"] = e.NewUser(t, "Root", servertest.SiteAdmin).Key

		// A private source of two files, a public published layer made
		// from one, and a private published layer from the other.
		src := c.Source.Create().SetType(source.TypeUpload).SetTitle("Private source").SetUserID(owner.User.ID).SaveX(ctx)
		if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, owner.User.ID); err != nil {
			t.Fatal(err)
		}
		c.Scan.Create().SetSourceID(src.ID).SetStatus(scan.StatusCompleted).SetUserID(owner.User.ID).SetLog("secret log").SaveX(ctx)
		used := c.Datasource.Create().SetSourceID(src.ID).SetPath("used.geojson").SetTitle("used").SetDataType(datasource.DataTypeVector).SaveX(ctx)
		other := c.Datasource.Create().SetSourceID(src.ID).SetPath("unpublished.csv").SetTitle("unpublished").SetDataType(datasource.DataTypeTable).SaveX(ctx)
		now := time.Now().UTC()
		mkLayer := func(name string, ds int, public bool) int {
			l := c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(owner.User.ID).SaveX(ctx)
			if err := access.GrantCreator(ctx, c, access.KindLayer, l.ID, owner.User.ID); err != nil {
				t.Fatal(err)
			}
			if public {
				c.DatasetPermission.Create().SetDatasetKind(access.KindLayer).SetDatasetID(l.ID).
					SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView).ExecX(ctx)
			}
			v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.User.ID).SetDatasourceIds([]int{ds}).
				SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetPublishedAt(now).SaveX(ctx)
			c.Layer.UpdateOne(l).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
			c.LayerVersion.Create().SetLayerID(l.ID).SetName(name + " draft").SetCreatedBy(owner.User.ID).SetDatasourceIds([]int{other.ID}).
				SetStatus(layerversion.StatusOk).ExecX(ctx)
			return l.ID
		}
		public := mkLayer("Public", used.ID, true)
		private := mkLayer("Private", other.ID, false)
		for name, lv := range levels {
			for _, id := range []int{public, private} {
				if _, err := access.GrantAtLeast(ctx, c, access.KindLayer, id, users[name].User.ID, lv); err != nil {
					t.Fatal(err)
				}
			}
		}

		for name, key := range callers {
			for _, q := range matrixQueries {
				g := e.GraphQL(t, key, q, map[string]any{"public": public, "private": private, "source": src.ID, "ds": used.ID})
				var data any
				_ = json.Unmarshal(g.Data, &data)
				walk(data, func(obj map[string]any) {
					checkObject(t, e, name, key, obj)
				})
			}
		}
	})
}

// matrixQueries reach every entity field around sources and layers,
// through each root query that leads there.
var matrixQueries = []string{
	`query($public: ID!) { layer(id: $public) { ...L } } ` + layerFragment,
	`query($private: ID!) { layer(id: $private) { ...L } } ` + layerFragment,
	`query { layerSearch { items { ...L } } } ` + layerFragment,
	`query($source: ID!) { source(id: $source) { ...S } } ` + sourceFragment,
	`query { sourceSearch { items { ...S } } } ` + sourceFragment,
	`query($source: ID!) { sourceScans(sourceID: $source) { items { __typename id log source { id ...S } } } } ` + sourceFragment,
	`query($source: ID!) { sourceDatasources(sourceID: $source, includeMissing: true) { items { ...D } } } ` + datasourceFragment + sourceFragment,
	`query($source: ID!, $ds: ID!) { datasource(sourceID: $source, id: $ds) { ...D } } ` + datasourceFragment + sourceFragment,
	`query($source: ID!) { datasetPermissions(type: SOURCE, id: $source) { key user { __typename id email } } }`,
	`query($public: ID!) { datasetPermissions(type: LAYER, id: $public) { key user { __typename id email } } }`,
}

const layerFragment = `fragment V on LayerVersion { __typename id state layer { __typename id }
	datasources { ...D } }
fragment L on Layer { __typename id
	permissions { key user { __typename id email } }
	publishedVersion { ...V } draftVersion { ...V } latestVersion { ...V } versions { ...V } } ` + datasourceFragment + sourceFragment

const datasourceFragment = `fragment D on Datasource { __typename id sourceID path title source { ...S } } `

const sourceFragment = `fragment S on Source { __typename id title urlRemote
	user { __typename id email } group { __typename id }
	permissions { key user { __typename id email } }
	scans { edges { node { __typename id log source { id } } } }
	datasources { edges { node { __typename id sourceID path } } } } `

// walk calls fn on every object of a decoded answer.
func walk(v any, fn func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(x)
		for _, c := range x {
			walk(c, fn)
		}
	case []any:
		for _, c := range x {
			walk(c, fn)
		}
	}
}

// checkObject fails when obj shows the caller something its direct
// lookup refuses: a source, a scan, a layer version, a datasource's path,
// a user's e-mail.
func checkObject(t *testing.T, e *servertest.Env, caller, key string, obj map[string]any) {
	t.Helper()
	id, _ := obj["id"].(string)
	direct := func(q string, vars map[string]any) bool {
		return len(e.GraphQL(t, key, q, vars).Errors) == 0
	}
	switch obj["__typename"] {
	case "Source":
		if !direct(`query($id: ID!) { source(id: $id) { id } }`, map[string]any{"id": id}) {
			t.Errorf("%s reads source %s through nesting; source(id:) refuses them", caller, id)
		}
		if u, _ := obj["urlRemote"].(string); u != "" && !direct(`mutation($id: ID!) { updateSource(id: $id, input: {}) { id } }`, map[string]any{"id": id}) {
			t.Errorf("%s reads the URL of source %s without edit", caller, id)
		}
	case "Scan":
		src, _ := obj["source"].(map[string]any)
		sid, _ := src["id"].(string)
		if sid == "" || !direct(`query($s: ID!, $id: ID!) { scan(sourceID: $s, scanID: $id) { id } }`, map[string]any{"s": sid, "id": id}) {
			t.Errorf("%s reads scan %s; scan(sourceID:, scanID:) refuses them", caller, id)
		}
	case "Datasource":
		if p, _ := obj["path"].(string); p != "" {
			sid, _ := obj["sourceID"].(string)
			if sid == "" || !direct(`query($id: ID!) { source(id: $id) { id } }`, map[string]any{"id": sid}) {
				t.Errorf("%s reads the path %q of datasource %s without seeing its source", caller, p, id)
			}
		}
	case "LayerVersion":
		l, _ := obj["layer"].(map[string]any)
		lid, _ := l["id"].(string)
		if !direct(`query($l: ID!, $v: ID!) { layerVersion(layerID: $l, versionID: $v) { id } }`, map[string]any{"l": lid, "v": id}) {
			t.Errorf("%s reads version %s of layer %s; layerVersion refuses them", caller, id, lid)
		}
	case "User":
		if em, _ := obj["email"].(string); em != "" && !direct(`query($id: ID!) { user(id: $id) { id } }`, map[string]any{"id": id}) {
			t.Errorf("%s reads the e-mail of user %s; user(id:) refuses them", caller, id)
		}
	}
}
