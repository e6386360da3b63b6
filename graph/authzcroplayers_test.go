package graph_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featurerows"
)

// matrixSquare is a polygon's ISO WKB (little endian): a square near
// Wellington.
func matrixSquare() []byte {
	b := []byte{1, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0}
	for _, xy := range [][2]float64{{174.7, -41.3}, {174.8, -41.3}, {174.8, -41.2}, {174.7, -41.2}, {174.7, -41.3}} {
		b = appendFloat(b, xy[0])
		b = appendFloat(b, xy[1])
	}
	return b
}

// addCropLayer adds a private published polygon layer of the admin's
// with one feature, and a crop layer of it: "croplayer", its layer
// "croplayer.layer" and feature "croplayer.fid".
func (f *gqlFixtures) addCropLayer(t *testing.T) {
	t.Helper()
	ctx, st, own := context.Background(), f.e.Store, f.users["admin"].User
	c := st.Client
	l := c.Layer.Create().SetType(layer.TypeLayer).SetName("Matrix crop regions").SetUserID(own.ID).SaveX(ctx)
	now := time.Now().UTC()
	v := c.LayerVersion.Create().SetLayerID(l.ID).SetName("Matrix crop regions").SetCreatedBy(own.ID).
		SetDatasourceIds([]int{f.id("ds.vector").(int)}).SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).
		SetPublishedAt(now).SetGeometryType("polygon").SetFeatureCount(1).
		SetFields([]schematype.Field{{Name: "region", Type: "string"}}).SaveX(ctx)
	c.Layer.UpdateOne(l).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
	err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, v.ID)
		if err != nil {
			return err
		}
		if err := w.Write(featurerows.Row{FID: 7, Geom: matrixSquare(), Attrs: map[string]any{"region": "Matrix region"}}); err != nil {
			return err
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cl := c.CropLayer.Create().SetName("Matrix regions").SetLayerID(l.ID).SetNameField("region").SaveX(ctx)
	f.vars["croplayer"], f.vars["croplayer.layer"], f.vars["croplayer.fid"] = cl.ID, l.ID, 7
}

func appendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
