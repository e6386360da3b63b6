package queryapi_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
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
	info, err := ingest.BuildGrid(ctx, dir, []ingest.Datasource{{Path: filepath.Base(tif), DataType: ingest.TypeGrid}}, cog, ingest.Limits{}, nil)
	if err != nil {
		t.Fatalf("building the grid: %v", err)
	}
	kind := layer.KindGrid
	if info.Imagery {
		kind = layer.KindRaster
	}
	describe := func(v *ent.LayerVersionCreate) {
		v.SetCrs(info.CRS).SetBands(info.Bands).SetRasterResolution(info.Resolution).
			SetRasterWidth(info.Width).SetRasterHeight(info.Height).SetExtent(info.Extent[:]).SetFeatureCount(info.Tiles)
	}
	id := storePublished(t, e, owner, name, kind, describe, func(ctx context.Context, _ *sql.Tx, v *ent.LayerVersion) error {
		f, err := os.Open(cog)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = e.Server.Resolver.Blobs.Put(ctx, grids.Key(v.ID), f, grids.ContentType)
		return err
	})
	return gridLayer{id: id, file: cog, extent: info.Extent}
}

// gridLayer is a published grid fixture.
type gridLayer struct {
	id   int
	file string
	// extent is [minx, miny, maxx, maxy] in EPSG:4326.
	extent [4]float64
}
