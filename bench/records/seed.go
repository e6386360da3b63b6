package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/search/searchgen"
	"github.com/geopub/geopub/internal/store"
)

// seedBatch is how many datasets one transaction writes.
const seedBatch = 1000

// seed stores n published layers owned by userID, as imports and publishes
// would leave them (no features: the catalogue reads metadata only), with
// generated titles, descriptions, tags and extents; one in ten stays
// private, the rest grant view to everyone.
func seed(ctx context.Context, s *store.Store, userID, n int) error {
	rng := rand.New(rand.NewPCG(7, 7))
	now := time.Now().UTC()
	for done := 0; done < n; done += seedBatch {
		m := min(seedBatch, n-done)
		err := s.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			ls := make([]*ent.LayerCreate, m)
			for i := range ls {
				ls[i] = c.Layer.Create().SetType(layer.TypeLayer).SetName(title(done + i)).SetUserID(userID).
					SetFirstPublishedAt(now).SetPublishedAt(now)
			}
			layers, err := c.Layer.CreateBulk(ls...).Save(ctx)
			if err != nil {
				return err
			}
			vs := make([]*ent.LayerVersionCreate, m)
			ps := make([]*ent.DatasetPermissionCreate, 0, m)
			for i, l := range layers {
				w, so := rng.Float64()*340-170, rng.Float64()*160-80
				vs[i] = c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetDescription(sentence(rng, 12)).
					SetCreatedBy(userID).SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
					SetCrs("EPSG:4326").SetGeometryType("point").SetDatasourceIds([]int{}).
					SetExtent([]float64{w, so, w + rng.Float64()*5, so + rng.Float64()*5}).
					SetTags([]string{searchgen.Word(rng.IntN(500)), searchgen.Word(rng.IntN(500))}).SetPublishedAt(now)
				if (done+i)%10 != 9 {
					ps = append(ps, c.DatasetPermission.Create().SetDatasetKind(datasetpermission.DatasetKindLayer).
						SetDatasetID(l.ID).SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView))
				}
			}
			versions, err := c.LayerVersion.CreateBulk(vs...).Save(ctx)
			if err != nil {
				return err
			}
			if _, err := c.DatasetPermission.CreateBulk(ps...).Save(ctx); err != nil {
				return err
			}
			for i, v := range versions {
				if err := c.Layer.UpdateOneID(layers[i].ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("seeding datasets %d-%d: %w", done, done+m, err)
		}
	}
	return nil
}

// title is dataset i's title: two generated words and its number, so
// titles sort in a stable, mixed order.
func title(i int) string {
	return fmt.Sprintf("%s %s %d", searchgen.Word(i*7919%1000), searchgen.Word(i%997), i)
}

// sentence is n generated words.
func sentence(rng *rand.Rand, n int) string {
	out := make([]byte, 0, n*8)
	for i := range n {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, searchgen.Word(rng.IntN(1000))...)
	}
	return string(out)
}
