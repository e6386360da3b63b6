package ogc_test

import (
	"context"
	"database/sql"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
)

// fieldsOf are the schema of fixture attributes: name string, rank integer.
var fixtureFields = []schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "name", Type: "string"}, {Name: "rank", Type: "integer"}}

// writeVersion creates a version of layer id holding fs, published when
// publish is set (the layer's published version then points at it).
func writeVersion(t testing.TB, e *env, owner *ent.User, layerID int, name, geometryType string, fs []feature, publish bool) int {
	t.Helper()
	ctx := context.Background()
	var vid int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		state := layerversion.StateDraft
		if publish {
			state = layerversion.StatePublished
		}
		vc := c.LayerVersion.Create().SetLayerID(layerID).SetName(name).SetCreatedBy(owner.ID).
			SetState(state).SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).
			SetCrs("EPSG:4326").SetGeometryType(geometryType).SetGeometryField("GEOMETRY").
			SetFields(fixtureFields).SetFeatureCount(int64(len(fs)))
		if publish {
			vc.SetPublishedAt(now)
		}
		v, err := vc.Save(ctx)
		if err != nil {
			return err
		}
		if err := writeFeatures(ctx, e, tx, v.ID, fs); err != nil {
			return err
		}
		vid = v.ID
		if publish {
			return c.Layer.UpdateOneID(layerID).SetPublishedVersionID(v.ID).SetPublishedAt(now).Exec(ctx)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("writing a version of layer %d: %v", layerID, err)
	}
	return vid
}

// publishLayer stores a published vector layer of fs owned by owner, with
// the default grants (everyone may download), and returns its id.
func publishLayer(t testing.TB, e *env, owner *ent.User, name, geometryType string, fs []feature) int {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	l, err := e.Store.Client.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName(name).
		SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := access.GrantDefaults(ctx, e.Store.Client, access.KindLayer, l.ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	writeVersion(t, e, owner, l.ID, name, geometryType, fs, true)
	return l.ID
}

// publishSet stores a published set of members, in order.
func publishSet(t testing.TB, e *env, owner *ent.User, title string, members ...int) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		now := time.Now().UTC()
		s, err := c.Set.Create().SetTitle(title).SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.SetVersion.Create().SetSetID(s.ID).SetTitle(title).SetCreatedBy(owner.ID).
			SetState(setversion.StatePublished).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		for i, m := range members {
			if err := c.SetItem.Create().SetSetVersionID(v.ID).SetPosition(i).SetLayerID(m).Exec(ctx); err != nil {
				return err
			}
		}
		if err := c.Set.UpdateOneID(s.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		id = s.ID
		return access.GrantDefaults(ctx, c, access.KindSet, s.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing fixture set: %v", err)
	}
	return id
}

// The fixtures lie around Wellington, in a box about 8 km across.
const west, south, span = 174.74, -41.32, 0.1

// randomPoints are n points spread over the fixture box, fids 1..n.
func randomPoints(seed uint64, n int) []feature {
	rng := rand.New(rand.NewPCG(seed, 16))
	fs := make([]feature, n)
	for i := range fs {
		x, y := west+rng.Float64()*span, south+rng.Float64()*span*0.75
		fs[i] = feature{fid: int64(i + 1), g: geom.NewPointFlat(geom.XY, []float64{x, y}),
			attrs: map[string]any{"name": "point " + itoa(i+1), "rank": int64(i % 7)}}
	}
	return fs
}

// randomSquares are n squares of 150 to 400 m over the fixture box, fids
// 1001.., one with a hole.
func randomSquares(seed uint64, n int) []feature {
	rng := rand.New(rand.NewPCG(seed, 17))
	fs := make([]feature, n)
	for i := range fs {
		x, y := west+rng.Float64()*span, south+rng.Float64()*span*0.75
		w := (150 + rng.Float64()*250) / 111000
		flat := []float64{x, y, x + w, y, x + w, y + w, x, y + w, x, y}
		ends := []int{10}
		if i == 0 {
			d := w / 4
			flat = append(flat, x+d, y+d, x+d, y+3*d, x+3*d, y+3*d, x+3*d, y+d, x+d, y+d)
			ends = append(ends, 20)
		}
		fs[i] = feature{fid: int64(1001 + i), g: geom.NewPolygonFlat(geom.XY, flat, ends),
			attrs: map[string]any{"name": "square " + itoa(i+1), "rank": int64(i % 5)}}
	}
	return fs
}

// tileXY is the tile of a longitude, latitude at zoom z.
func tileXY(lon, lat float64, z int) (int, int) {
	n := math.Exp2(float64(z))
	x := (lon + 180) / 360 * n
	r := lat * math.Pi / 180
	y := (1 - math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi) / 2 * n
	return int(x), int(y)
}

// gridOf is a longitude, latitude on tile z/x/y's grid of 4096 units.
func gridOf(lon, lat float64, z, x, y int) (float64, float64) {
	n := math.Exp2(float64(z)) * 4096
	gx := (lon+180)/360*n - float64(x)*4096
	r := lat * math.Pi / 180
	gy := (1-math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi)/2*n - float64(y)*4096
	return gx, gy
}

// fetch GETs a URL on the test server without transparent decompression.
func fetch(t testing.TB, e *env, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.HTTP.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}
