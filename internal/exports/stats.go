package exports

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// sampleRows is how many rows the stored size of a version is averaged
// over.
const sampleRows = 2000

// vectorStats estimates what a version holds inside box (nil: all of it):
// the rows (with a crop area, those whose bounding box meets the area's,
// counted through the spatial index, featurerows.BoxWhere) and their stored
// bytes, geometry and attributes apart (the rows times the average
// stored sizes of a sample). The sample
// is read on the same index, so neither count reads a layer's rows.
func vectorStats(ctx context.Context, st *store.Store, v *ent.LayerVersion, box *[4]float64) (exportfile.Stats, error) {
	pg := st.Dialect == dialect.Postgres
	geom, attrs := "length(geom)", "length(attrs)"
	if pg {
		geom, attrs = "octet_length(geom)", "octet_length(attrs::text)"
	}
	var avgGeom, avgAttrs float64
	q := store.Rebind("SELECT coalesce(avg(g), 0), coalesce(avg(a), 0) FROM (SELECT coalesce("+geom+", 0) AS g, coalesce("+attrs+
		", 0) AS a FROM features WHERE version_id = ? LIMIT ?) s", pg)
	if err := st.DB.QueryRowContext(ctx, q, v.ID, sampleRows).Scan(&avgGeom, &avgAttrs); err != nil {
		return exportfile.Stats{}, fmt.Errorf("exports: sampling version %d: %w", v.ID, err)
	}
	rows := v.FeatureCount
	if box != nil {
		where, args := featurerows.BoxWhere(st.Dialect, v.ID, *box)
		q := store.Rebind("SELECT count(*) FROM features WHERE "+where, pg)
		if err := st.DB.QueryRowContext(ctx, q, args...).Scan(&rows); err != nil {
			return exportfile.Stats{}, fmt.Errorf("exports: counting version %d in the crop area: %w", v.ID, err)
		}
	}
	// GeomBytes tells the format's estimate a layer from a table (0).
	return exportfile.Stats{Rows: rows, RawBytes: int64((avgGeom + avgAttrs) * float64(rows)),
		GeomBytes: int64(avgGeom * float64(rows))}, nil
}

// rasterStats estimates the cells a grid or raster version gives inside
// box (nil: all of it), from its size and extent.
func rasterStats(v *ent.LayerVersion, box *[4]float64) exportfile.Stats {
	w, h := int64(v.RasterWidth), int64(v.RasterHeight)
	share := 1.0
	if box != nil && len(v.Extent) == 4 {
		e := v.Extent
		ix := max(0, min(e[2], box[2])-max(e[0], box[0]))
		iy := max(0, min(e[3], box[3])-max(e[1], box[1]))
		if ew, eh := e[2]-e[0], e[3]-e[1]; ew > 0 && eh > 0 {
			share = min(1, ix/ew) * min(1, iy/eh)
		}
	}
	bands := int64(len(v.Bands))
	cell := int64(1)
	for _, b := range v.Bands {
		cell = max(cell, bytesOf(b.DataType))
	}
	return exportfile.Stats{Pixels: int64(float64(w*h) * share), Bands: max(bands, 1), BytesPerCell: cell}
}

// bytesOf is the size of one cell of a GDAL data type.
func bytesOf(dataType string) int64 {
	switch dataType {
	case "UInt16", "Int16":
		return 2
	case "UInt32", "Int32", "Float32":
		return 4
	case "Float64", "CInt32", "CFloat32", "UInt64", "Int64":
		return 8
	case "CFloat64":
		return 16
	}
	return 1
}
