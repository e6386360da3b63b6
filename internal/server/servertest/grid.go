package servertest

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/grids"
)

// Grid describes a COG to publish: its file, kind (grid or raster), size
// in cells and extent [west, south, east, north] in EPSG:4326.
type Grid struct {
	COG        string
	Kind       layer.Kind
	Cols, Rows int
	Extent     []float64
}

// PublishGrid stores g as the published version of a new layer named name
// of ownerID's (the COG in blob storage, as imports write it), with the
// default grants, and returns the layer's id.
func (e *Env) PublishGrid(t testing.TB, ownerID int, name string, g Grid) int {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	l, err := e.Store.Client.Layer.Create().SetType(layer.TypeLayer).SetKind(g.Kind).SetName(name).
		SetUserID(ownerID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := access.GrantDefaults(ctx, e.Store.Client, access.KindLayer, l.ID, ownerID); err != nil {
		t.Fatal(err)
	}
	err = e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(ownerID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).
			SetCrs("EPSG:4326").SetExtent(g.Extent).SetRasterWidth(g.Cols).SetRasterHeight(g.Rows).
			SetRasterResolution((g.Extent[2] - g.Extent[0]) / float64(g.Cols)).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		f, err := os.Open(g.COG)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := e.Server.Resolver.Blobs.Put(ctx, grids.Key(v.ID), f, grids.ContentType); err != nil {
			return err
		}
		return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx)
	})
	if err != nil {
		t.Fatalf("publishing grid %s: %v", name, err)
	}
	return l.ID
}
