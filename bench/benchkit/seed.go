package benchkit

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server"
)

// SeedPoints stores a published layer of n points owned by userID, as an
// import and a publish would leave it, in one transaction, and returns
// its id. next gives each point's longitude and latitude in turn; every
// feature has a name and an integer value.
func SeedPoints(ctx context.Context, srv *server.Server, userID int, name string, n int, next func() (x, y float64)) (int, error) {
	var layerID int
	err := srv.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(userID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(userID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetCrs("EPSG:4326").SetGeometryType("point").SetGeometryField("GEOMETRY").
			SetFields([]schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "name", Type: "string"}, {Name: "value", Type: "integer"}}).
			SetDatasourceIds([]int{}).SetFeatureCount(int64(n)).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		w, err := featurerows.NewWriter(ctx, srv.Store, tx, v.ID)
		if err != nil {
			return err
		}
		for i := range n {
			// A little-endian WKB point.
			g := make([]byte, 21)
			g[0] = 1
			binary.LittleEndian.PutUint32(g[1:], 1)
			x, y := next()
			binary.LittleEndian.PutUint64(g[5:], math.Float64bits(x))
			binary.LittleEndian.PutUint64(g[13:], math.Float64bits(y))
			if err := w.Write(featurerows.Row{FID: int64(i + 1), Geom: g, Attrs: map[string]any{"name": fmt.Sprintf("point %d", i+1), "value": int64(i % 1000)}}); err != nil {
				return err
			}
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		layerID = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, userID)
	})
	return layerID, err
}
