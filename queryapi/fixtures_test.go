package queryapi_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

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

type env = servertest.Env

// each runs a test body on a fresh service per backend.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fn(t, servertest.New(t, st))
	})
}

// feature is a fixture feature.
type feature struct {
	fid   int64
	g     geom.T
	attrs map[string]any
}

// publishLayer stores a published vector layer of features owned by
// owner, as an import and publish would leave it, and returns its id.
func publishLayer(t testing.TB, e *env, owner *ent.User, name, geometryType string, fields []string, fs []feature) int {
	t.Helper()
	schema := []schematype.Field{{Name: "GEOMETRY", Type: "geometry"}}
	for _, f := range fields {
		schema = append(schema, schematype.Field{Name: f, Type: "string"})
	}
	describe := func(v *ent.LayerVersionCreate) {
		v.SetCrs("EPSG:4326").SetGeometryType(geometryType).SetGeometryField("GEOMETRY").
			SetFields(schema).SetFeatureCount(int64(len(fs)))
	}
	return storePublished(t, e, owner, name, layer.KindVector, describe, func(ctx context.Context, tx *sql.Tx, v *ent.LayerVersion) error {
		w, err := featurerows.NewWriter(ctx, e.Store, tx, v.ID)
		if err != nil {
			return err
		}
		for _, f := range fs {
			var b []byte
			if f.g != nil {
				if b, err = wkb.Marshal(f.g, binary.LittleEndian); err != nil {
					return err
				}
			}
			if err := w.Write(featurerows.Row{FID: f.fid, Geom: b, Attrs: f.attrs}); err != nil {
				return err
			}
		}
		_, err = w.Close()
		return err
	})
}

// storePublished stores a published layer of a kind in one transaction:
// the layer, its version described by describe, the version's data written
// by fill, and the default grants. It returns the layer id.
func storePublished(t testing.TB, e *env, owner *ent.User, name string, kind layer.Kind,
	describe func(*ent.LayerVersionCreate), fill func(context.Context, *sql.Tx, *ent.LayerVersion) error) int {
	t.Helper()
	ctx := context.Background()
	var layerID int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(kind).SetName(name).SetUserID(owner.ID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		vc := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetDatasourceIds([]int{}).SetPublishedAt(now)
		describe(vc)
		v, err := vc.Save(ctx)
		if err != nil {
			return err
		}
		if err := fill(ctx, tx, v); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		layerID = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing fixture layer %q: %v", name, err)
	}
	return layerID
}

func pt(lon, lat float64) *geom.Point { return geom.NewPointFlat(geom.XY, []float64{lon, lat}) }

// offset returns the point d metres east (dx) and north (dy) of (lon,
// lat), on a local flat approximation good to well under a metre at these
// scales.
func offset(lon, lat, dx, dy float64) (float64, float64) {
	return lon + dx/(111319.49*math.Cos(lat*math.Pi/180)), lat + dy/110946.0
}

// apiCall sends a JSON request to the REST API with key and checks its
// status.
func apiCall(t *testing.T, e *env, key, method, path, body string, want int) {
	t.Helper()
	r := e.Do(t, servertest.Request{Method: method, Path: path, Key: key, Body: body})
	if r.Status != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
}
