package searchfeed_test

import (
	"fmt"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/searchfeed"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Building docs is batched: 1,000 layers and tables with sets, documents,
// catalog items and sources over them cost a handful of statements, not
// one per dataset.
func TestBuildIsBatched(t *testing.T) {
	for _, d := range storetest.Backends {
		t.Run(d, func(t *testing.T) {
			var counter storetest.Counter
			st := storetest.Open(t, d, storetest.Options{Driver: counter.Wrap})
			if d == dialect.Postgres && st.Dialect != dialect.Postgres {
				t.Skip("no PostgreSQL")
			}
			ctx := t.Context()
			c := st.Client
			u := c.User.Create().SetEmail("bulk@example.com").SetPasswordHash("x").SetFirstName("Bulk").SetLastName("Loader").SaveX(ctx)
			g := c.Group.Create().SetName("Survey office").SetURLSlug("survey-office").SaveX(ctx)
			const n = 1000
			creates := make([]*ent.LayerCreate, n)
			for i := range creates {
				typ := layer.TypeLayer
				if i%4 == 0 {
					typ = layer.TypeTable
				}
				creates[i] = c.Layer.Create().SetType(typ).SetName(fmt.Sprintf("Dataset %d", i)).SetUserID(u.ID).SetGroupID(g.ID)
			}
			ls := c.Layer.CreateBulk(creates...).SaveX(ctx)
			vcreates := make([]*ent.LayerVersionCreate, 0, n)
			for i, l := range ls {
				state := layerversion.StatePublished
				if i%3 == 0 {
					state = layerversion.StateDraft
				}
				vcreates = append(vcreates, c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(u.ID).
					SetDatasourceIds([]int{}).SetState(state).SetStatus(layerversion.StatusOk).SetGeometryType("multipolygon").
					SetFields([]schematype.Field{{Name: "geom", Type: "geometry"}, {Name: "parcel_id", Type: "integer"}}))
			}
			c.LayerVersion.CreateBulk(vcreates...).ExecX(ctx)
			var ds searchfeed.Datasets
			for _, l := range ls {
				ds.AddLayers(l.ID)
			}
			for i := range 50 {
				s := c.Set.Create().SetTitle(fmt.Sprintf("Set %d", i)).SetUserID(u.ID).SaveX(ctx)
				v := c.SetVersion.Create().SetSetID(s.ID).SetTitle(s.Title).SetCreatedBy(u.ID).SaveX(ctx)
				// A public, published member (3i+1 is published): its
				// title is in the set's doc.
				m := ls[3*i+1]
				pv := c.LayerVersion.Query().Where(layerversion.LayerID(m.ID)).OnlyIDX(ctx)
				c.Layer.UpdateOneID(m.ID).SetPublishedVersionID(pv).ExecX(ctx)
				c.SetItem.Create().SetSetVersionID(v.ID).SetPosition(0).SetLayerID(m.ID).ExecX(ctx)
				c.DatasetPermission.Create().SetDatasetKind(datasetpermission.DatasetKindLayer).SetDatasetID(m.ID).
					SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView).ExecX(ctx)
				ds.AddSets(s.ID)
			}
			for i := range 20 {
				it := c.CatalogItem.Create().SetTitle(fmt.Sprintf("Item %d", i)).SetUserID(u.ID).SaveX(ctx)
				c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(it.Title).SetTags([]string{"marine"}).SetCreatedBy(u.ID).ExecX(ctx)
				ds.AddItems(it.ID)
				src := c.Source.Create().SetType("upload").SetTitle(fmt.Sprintf("Source %d", i)).SetUserID(u.ID).SaveX(ctx)
				ds.AddSources(src.ID)
			}

			counter.Reset()
			docs, gone, err := searchfeed.Build(ctx, c, ds)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Build of %d datasets: %d docs, %d statements", n+90, len(docs), counter.Count())
			if got := counter.Count(); got > 25 {
				t.Errorf("Build of %d datasets ran %d statements, want a handful (at most 25)", n+90, got)
			}
			// Published and latest docs of published datasets, latest only
			// of the drafts (a third), two per item and source... items
			// are drafts here: latest only.
			pubLayers := 0
			for i := range n {
				if i%3 != 0 {
					pubLayers++
				}
			}
			want := pubLayers*2 + (n - pubLayers) + 50 + 20 + 40
			if len(docs) != want {
				t.Fatalf("%d docs, want %d", len(docs), want)
			}
			for _, d := range docs {
				if d.Ref.Type == search.TypeLayer && (d.GroupName != "Survey office" || d.UserName != "Bulk Loader" ||
					d.GeometryType != "polygon" || len(d.FieldNames) != 1 || d.FieldNames[0] != "parcel_id") {
					t.Fatalf("layer doc %+v", d)
				}
				if d.Ref.Type == search.TypeSet && len(d.MemberTitles) != 1 {
					t.Fatalf("set doc %+v", d)
				}
				if d.Ref.Type == search.TypeItem && (len(d.Tags) != 1 || d.VersionStatus != "ok") {
					t.Fatalf("item doc %+v", d)
				}
			}
			if len(gone) == 0 {
				t.Fatal("no gone refs: the drafts' published docs and the other type's refs must be ruled out")
			}
		})
	}
}
