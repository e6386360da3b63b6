package ogc_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/server/servertest"
)

// publish stores a published layer (or table) of features owned by owner,
// as an import and publish would leave it, and returns its id.
func publish(t testing.TB, e *env, owner *ent.User, typ layer.Type, name, geometryType string, fields []schematype.Field, fs []feature) int {
	t.Helper()
	ctx := context.Background()
	schema, geometryField := fields, ""
	if typ == layer.TypeLayer {
		geometryField = "GEOMETRY"
		schema = append([]schematype.Field{{Name: "GEOMETRY", Type: "geometry"}}, fields...)
	}
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(typ).SetKind(layer.KindVector).SetName(name).SetUserID(owner.ID).
			SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetDatasourceIds([]int{}).SetPublishedAt(now).SetCrs("EPSG:4326").SetGeometryType(geometryType).SetGeometryField(geometryField).
			SetFields(schema).SetFeatureCount(int64(len(fs))).SetDescription("Fixture " + name).Save(ctx)
		if err != nil {
			return err
		}
		if err := writeFeatures(ctx, e, tx, v.ID, fs); err != nil {
			return err
		}
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		id = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing fixture %q: %v", name, err)
	}
	return id
}

func pt(x, y float64) *geom.Point { return geom.NewPointFlat(geom.XY, []float64{x, y}) }

func poly(rings ...[]float64) *geom.Polygon {
	var flat []float64
	var ends []int
	for _, r := range rings {
		flat = append(flat, r...)
		ends = append(ends, len(flat))
	}
	return geom.NewPolygonFlat(geom.XY, flat, ends)
}

// Hostile is an attribute value the HTML views must escape.
const Hostile = `<script>alert("owned")</script> & <b>bold</b>`

// fixture is the published data the tests read.
type fixture struct {
	e                      *env
	owner, reader          *servertest.User
	noScope                string // a token of reader without wxs:wfs
	points, polygons       int
	table, private, events int
	pointFeatures          []feature
	polygonFeatures        []feature
	tableFeatures          []feature
}

var attrFields = []schematype.Field{{Name: "name", Type: "string"}, {Name: "rank", Type: "integer"}}

func newFixture(t *testing.T, e *env) *fixture {
	t.Helper()
	f := &fixture{e: e, owner: e.NewUser(t, "Owner"), reader: e.NewUser(t, "Reader")}
	f.noScope = e.Token(t, f.reader.User, "query layers:read")
	// 25 points on a 5 × 5 grid around Wellington, fids not contiguous,
	// and one without geometry: three pages of 10.
	for i := 0; i < 25; i++ {
		name := fmt.Sprintf("Point %d", i)
		if i == 7 {
			name = Hostile
		}
		var rank any = int64(i % 3)
		if i == 4 {
			rank = nil
		}
		f.pointFeatures = append(f.pointFeatures, feature{int64(100 + 3*i), pt(174.70+0.02*float64(i%5), -41.30+0.02*float64(i/5)),
			map[string]any{"name": name, "rank": rank}})
	}
	f.pointFeatures = append(f.pointFeatures, feature{500, nil, map[string]any{"name": "Nowhere", "rank": int64(9)}})
	f.points = publish(t, e, f.owner.User, layer.TypeLayer, "Wellington points", "point", attrFields, f.pointFeatures)

	// Polygons around the box 174.80..174.90, -41.30..-41.20 (the bbox of
	// the polygon tests).
	f.polygonFeatures = []feature{
		// Inside.
		{1, poly([]float64{174.82, -41.28, 174.84, -41.28, 174.84, -41.26, 174.82, -41.26, 174.82, -41.28}), map[string]any{"name": "inside"}},
		// A triangle whose box overlaps the bbox but whose area misses it.
		{2, poly([]float64{174.70, -41.40, 174.99, -41.40, 174.70, -41.31, 174.70, -41.40}), map[string]any{"name": "triangle miss"}},
		// Covers the whole bbox: no edge crosses it.
		{3, poly([]float64{174.0, -42.0, 175.5, -42.0, 175.5, -40.5, 174.0, -40.5, 174.0, -42.0}), map[string]any{"name": "cover"}},
		// Its hole holds the whole bbox.
		{4, poly([]float64{174.0, -42.0, 175.5, -42.0, 175.5, -40.5, 174.0, -40.5, 174.0, -42.0},
			[]float64{174.79, -41.31, 174.91, -41.31, 174.91, -41.19, 174.79, -41.19, 174.79, -41.31}), map[string]any{"name": "holed"}},
		// Far away.
		{5, poly([]float64{170.0, -45.0, 170.1, -45.0, 170.1, -44.9, 170.0, -45.0}), map[string]any{"name": "far"}},
		// Crosses an edge.
		{6, poly([]float64{174.88, -41.25, 174.95, -41.25, 174.95, -41.22, 174.88, -41.25}), map[string]any{"name": "edge"}},
	}
	f.polygons = publish(t, e, f.owner.User, layer.TypeLayer, "Polygons", "polygon", []schematype.Field{{Name: "name", Type: "string"}}, f.polygonFeatures)
	f.tableFeatures = []feature{
		{1, nil, map[string]any{"name": "row one", "rank": int64(1)}},
		{2, nil, map[string]any{"name": "row two", "rank": int64(2)}},
	}
	f.table = publish(t, e, f.owner.User, layer.TypeTable, "A table", "", attrFields, f.tableFeatures)
	var evs []feature
	for i := 0; i < 5; i++ {
		evs = append(evs, feature{int64(i + 1), pt(174.7, -41.3), map[string]any{"name": fmt.Sprintf("event %d", i),
			"when": time.Date(2020+i, 6, 15, 12, 0, 0, 0, time.UTC)}})
	}
	evs = append(evs, feature{6, pt(174.7, -41.3), map[string]any{"name": "undated"}})
	f.events = publish(t, e, f.owner.User, layer.TypeLayer, "Events", "point",
		[]schematype.Field{{Name: "name", Type: "string"}, {Name: "when", Type: "datetime"}}, evs)
	f.private = publish(t, e, f.owner.User, layer.TypeLayer, "Private", "point", attrFields, []feature{{1, pt(174, -41), map[string]any{"name": "secret"}}})
	f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/permissions/", f.private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.User.ID), http.StatusOK)
	return f
}

// call sends a REST API request and checks its status.
func (f *fixture) call(t *testing.T, key, method, path, body string, want int) {
	t.Helper()
	r := f.e.Do(t, servertest.Request{Method: method, Path: path, Key: key, Body: body})
	if r.Status != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
}

// response is an OGC API answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// get fetches a path under the service root (or an absolute URL) with an
// optional key in the Authorization header and headers.
func (f *fixture) get(t *testing.T, key, path string, header ...string) response {
	t.Helper()
	u := path
	if !strings.HasPrefix(u, "http") {
		u = f.e.HTTP.URL + "/services/ogc/features" + path
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "key "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// json decodes a response that must have status and a media type starting
// with mediaType.
func (r response) json(t *testing.T, status int, mediaType string, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, mediaType) {
		t.Fatalf("Content-Type %q, want %s", ct, mediaType)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
}

// requireTool finds a program (of Debian package pkg); missing, the test
// fails in CI and skips elsewhere.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := name + " (" + pkg + ") is required: make deps"
		if os.Getenv("CI") != "" || os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
