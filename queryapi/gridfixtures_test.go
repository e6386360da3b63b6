package queryapi_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/ingest"
)

// publishGrid stores a published grid layer made from a GeoTIFF as an
// import and publish would leave it: the Cloud-Optimized GeoTIFF written
// by ingest.BuildGrid in blob storage, its description on the version. It
// returns the layer, with the path of the written grid for reference
// readings with GDAL's tools.
func publishGrid(t testing.TB, e *env, owner *ent.User, name, tif string) gridLayer {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Dir(tif)
	cog := filepath.Join(t.TempDir(), "grid.tif")
	info, err := ingest.BuildGrid(ctx, dir, []ingest.Datasource{{Path: filepath.Base(tif), DataType: ingest.TypeGrid}}, cog)
	if err != nil {
		t.Fatalf("building the grid: %v", err)
	}
	kind := layer.KindGrid
	if info.Imagery {
		kind = layer.KindRaster
	}
	var layerID int
	err = e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(kind).SetName(name).SetUserID(owner.ID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetCrs(info.CRS).SetBands(info.Bands).SetRasterResolution(info.Resolution).
			SetRasterWidth(info.Width).SetRasterHeight(info.Height).SetExtent(info.Extent[:]).
			SetDatasourceIds([]int{}).SetFeatureCount(info.Tiles).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		f, err := os.Open(cog)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := e.Server.Resolver.Blobs.Put(ctx, grids.Key(v.ID), f, grids.ContentType); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		layerID = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing fixture grid: %v", err)
	}
	return gridLayer{id: layerID, file: cog, extent: info.Extent}
}

// gridLayer is a published grid fixture.
type gridLayer struct {
	id   int
	file string
	// extent is [minx, miny, maxx, maxy] in EPSG:4326.
	extent [4]float64
}
