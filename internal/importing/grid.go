package importing

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/ingest"
)

// isGrid reports whether datasources make a grid or raster layer.
func isGrid(dss []*ent.Datasource) bool {
	return len(dss) > 0 && dss[0].DataType == datasource.DataTypeGrid
}

// importGrid writes a grid or raster version's datasources as one
// Cloud-Optimized GeoTIFF in blob storage (grids.Key), then records its
// description on the version in one transaction. A retry overwrites the
// file; a version only counts as imported once that transaction commits.
// The layer's kind follows the bands: colour bands make a raster layer,
// others a grid.
func (im *Importer) importGrid(ctx context.Context, v *ent.LayerVersion, jobID int64, dss []*ent.Datasource) error {
	if im.Blobs == nil {
		return permanent(errors.New("grid imports need blob storage"))
	}
	dir, err := os.MkdirTemp(im.Scanner.WorkDir, "geopub-grid-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var ids []ingest.Datasource
	done := map[int]bool{}
	for _, d := range dss {
		sub := fmt.Sprintf("source%d", d.SourceID)
		if !done[d.SourceID] {
			if err := im.Scanner.Materialize(ctx, d.Edges.Source, filepath.Join(dir, sub), func(string) {}); err != nil {
				return err
			}
			done[d.SourceID] = true
		}
		ids = append(ids, ingest.Datasource{
			Path:     sub + "/tree/" + d.Path,
			Files:    prefixed(sub+"/tree/", d.Files),
			DataType: string(d.DataType),
			CRS:      d.Crs,
		})
	}
	im.progress(ctx, v, jobID, 0.3)
	out := filepath.Join(dir, "grid.tif")
	// The copy is the import's bulk: its share done maps onto 0.3 to 0.8,
	// recorded at most every ProgressEvery.
	every := cmp.Or(im.ProgressEvery, DefaultProgressEvery)
	var last time.Time
	info, err := ingest.BuildGrid(ctx, dir, ids, out, im.Scanner.Limits, func(f float64) {
		if time.Since(last) >= every && f > 0 && f < 1 {
			last = time.Now()
			im.progress(ctx, v, jobID, 0.3+0.5*f)
		}
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return permanent(err) // the files are local: a failure will recur
	}
	im.progress(ctx, v, jobID, 0.8)
	// The grid's blob is the version's, not the attempt's: a superseded
	// attempt must not replace the newer import's file.
	if mine, err := im.Store.Client.LayerVersion.Query().Where(owned(v.ID, jobID)).Exist(ctx); err != nil || !mine {
		return cmp.Or(err, errSuperseded)
	}
	f, err := os.Open(out)
	if err != nil {
		return err
	}
	_, err = im.Blobs.Put(ctx, grids.Key(v.ID), f, grids.ContentType)
	f.Close()
	if err != nil {
		return fmt.Errorf("storing the grid: %w", err)
	}
	kind := layer.KindGrid
	if info.Imagery {
		kind = layer.KindRaster
	}
	return im.Store.InTx(ctx, func(ctx context.Context, tc *ent.Client, _ *sql.Tx) error {
		n, err := tc.LayerVersion.Update().Where(owned(v.ID, jobID)).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetCrs(info.CRS).SetBands(info.Bands).SetRasterResolution(info.Resolution).
			SetRasterWidth(info.Width).SetRasterHeight(info.Height).
			SetFeatureCount(info.Tiles).SetExtent(info.Extent[:]).SetImportError("").Save(ctx)
		if err != nil || n == 0 {
			return cmp.Or(err, errSuperseded)
		}
		if err := tc.Layer.UpdateOneID(v.LayerID).SetKind(kind).Exec(ctx); err != nil {
			return err
		}
		return im.publish(ctx, tc, v, "import.completed", map[string]any{"feature_count": info.Tiles})
	})
}

// prefixed puts a folder in front of relative paths.
func prefixed(prefix string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = prefix + p
	}
	return out
}

// progress records a grid import's progress at one of its stages, with its
// notification; a failure to record it only loses the figure.
func (im *Importer) progress(ctx context.Context, v *ent.LayerVersion, jobID int64, f float64) {
	err := im.Store.InTx(ctx, func(ctx context.Context, tc *ent.Client, _ *sql.Tx) error {
		return im.recordProgress(ctx, tc, v, jobID, f)
	})
	if err != nil {
		im.Logger.WarnContext(ctx, "recording import progress", "version", v.ID, "err", err)
	}
}
