package graph_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 24.15: updateLayerVersion sets (primaryKeyFields), refuses and
// clears a draft's primary-key fields, and LayerVersion.primaryKeyFields
// shows them.
func TestUpdateLayerVersionPrimaryKeyFields(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		u := e.NewUser(t, "Publisher")
		ctx := context.Background()
		var lid, vid int
		err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			l, err := c.Layer.Create().SetType(layer.TypeTable).SetKind(layer.KindVector).SetName("Codes").SetUserID(u.ID).Save(ctx)
			if err != nil {
				return err
			}
			if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, u.ID); err != nil {
				return err
			}
			v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName("Codes").SetCreatedBy(u.ID).
				SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).
				SetFields([]schematype.Field{{Name: "code", Type: "string"}, {Name: "rank", Type: "integer"}}).
				SetFeatureCount(3).Save(ctx)
			if err != nil {
				return err
			}
			lid, vid = l.ID, v.ID
			w, err := featurerows.NewWriter(ctx, st, tx, v.ID)
			if err != nil {
				return err
			}
			for i, code := range []string{"A", "B", "C"} {
				if err := w.Write(featurerows.Row{FID: int64(i + 1), Attrs: map[string]any{"code": code, "rank": int64(i % 2)}}); err != nil {
					return err
				}
			}
			_, err = w.Close()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		const mutation = `mutation($l: ID!, $v: ID!, $pk: [String!]) {
			updateLayerVersion(layerID: $l, versionID: $v, input: {primaryKeyFields: $pk}) { id primaryKeyFields } }`
		update := func(pk []string) (*servertest.GraphQLResponse, []string) {
			t.Helper()
			r := e.GraphQL(t, u.Key, mutation, map[string]any{"l": lid, "v": vid, "pk": pk})
			var d struct {
				UpdateLayerVersion *struct{ PrimaryKeyFields []string }
			}
			if r.Data != nil {
				_ = json.Unmarshal(r.Data, &d)
			}
			if d.UpdateLayerVersion == nil {
				return r, nil
			}
			return r, d.UpdateLayerVersion.PrimaryKeyFields
		}
		read := func() []string {
			t.Helper()
			r := e.GraphQL(t, u.Key, `query($l: ID!, $v: ID!) { layerVersion(layerID: $l, versionID: $v) { primaryKeyFields } }`,
				map[string]any{"l": lid, "v": vid})
			var d struct {
				LayerVersion struct{ PrimaryKeyFields []string }
			}
			if len(r.Errors) > 0 || json.Unmarshal(r.Data, &d) != nil {
				t.Fatalf("reading the version: %+v", r)
			}
			return d.LayerVersion.PrimaryKeyFields
		}

		if r, got := update([]string{"code"}); len(r.Errors) > 0 || !slices.Equal(got, []string{"code"}) || !slices.Equal(read(), []string{"code"}) {
			t.Fatalf("setting code: %+v %v", r, got)
		}
		r, _ := update([]string{"rank"})
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" || !strings.Contains(r.Errors[0].Message, `"rank" is not unique`) {
			t.Fatalf("a repeated rank: %+v", r.Errors)
		}
		if !slices.Equal(read(), []string{"code"}) {
			t.Fatalf("a refused key changed the version: %v", read())
		}
		if r, got := update([]string{}); len(r.Errors) > 0 || len(got) != 0 || len(read()) != 0 {
			t.Fatalf("clearing: %+v %v", r, got)
		}
	})
}
