package mappreview_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"image"
	"image/color"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/ogc"
	"github.com/geopub/geopub/web/mappreview"
)

// square is a fixture polygon: a box in degrees and its name attribute.
type square struct {
	west, south, east, north float64
	name                     string
}

// Two squares near Wellington with a gap between them: the gap and the
// margins of the map are outside every feature.
var squares = []square{
	{174.70, -41.30, 174.74, -41.27, "alpha"},
	{174.78, -41.30, 174.82, -41.27, "beta"},
}

// fixture is a feature of a fixture layer: a geometry and its name.
type fixture struct {
	g    geom.T
	name string
}

// squareFeatures are the squares as features.
func squareFeatures() []fixture {
	var fs []fixture
	for _, s := range squares {
		fs = append(fs, fixture{geom.NewPolygonFlat(geom.XY, []float64{s.west, s.south, s.east, s.south, s.east, s.north,
			s.west, s.north, s.west, s.south}, []int{10}), s.name})
	}
	return fs
}

// publishPrivate stores a published vector layer of fs that only its
// owner may see, and returns its id.
func publishPrivate(t *testing.T, e *servertest.Env, owner *ent.User, name, geometryType string, fs []fixture) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName(name).
			SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if err := access.GrantCreator(ctx, c, access.KindLayer, l.ID, owner.ID); err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetPublishedAt(now).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetDatasourceIds([]int{}).SetCrs("EPSG:4326").SetGeometryType(geometryType).SetGeometryField("GEOMETRY").
			SetFields([]schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "name", Type: "string"}}).
			SetFeatureCount(int64(len(fs))).Save(ctx)
		if err != nil {
			return err
		}
		w, err := featurerows.NewWriter(ctx, e.Store, tx, v.ID)
		if err != nil {
			return err
		}
		for i, f := range fs {
			b, err := wkb.Marshal(f.g, binary.LittleEndian)
			if err != nil {
				return err
			}
			if err := w.Write(featurerows.Row{FID: int64(i + 1), Geom: b, Attrs: map[string]any{"name": f.name}}); err != nil {
				return err
			}
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		id = l.ID
		return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx)
	})
	if err != nil {
		t.Fatalf("publishing fixture layer %s: %v", name, err)
	}
	return id
}

// publishSet stores a published set of members, in order, with the
// default grants.
func publishSet(t *testing.T, e *servertest.Env, owner *ent.User, members ...int) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		now := time.Now().UTC()
		s, err := c.Set.Create().SetTitle("Squares set").SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.SetVersion.Create().SetSetID(s.ID).SetTitle("Squares set").SetCreatedBy(owner.ID).
			SetState(setversion.StatePublished).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		for i, m := range members {
			if err := c.SetItem.Create().SetSetVersionID(v.ID).SetPosition(i).SetLayerID(m).Exec(ctx); err != nil {
				return err
			}
		}
		id = s.ID
		if err := c.Set.UpdateOneID(s.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		return access.GrantDefaults(ctx, c, access.KindSet, s.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("publishing the fixture set: %v", err)
	}
	return id
}

// sessionCookie is a new session of u, as a browser holds it.
func sessionCookie(t *testing.T, e *servertest.Env, u *ent.User) *http.Cookie {
	t.Helper()
	_, session, err := e.Server.Resolver.Auth.StartSession(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: auth.SessionCookie, Value: session}
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestLayerPageMap (issue 16 point 5): the page of a published polygon
// layer, opened with the owner's session cookie, draws the layer's tiles
// (fetched with that cookie: the layer is private) in the fill colour
// inside the features and nowhere else, and a click on a feature shows its
// attributes. Callers who may not use the tiles (a token without the
// tiles scope, the service turned off) get a note, no map.
func TestLayerPageMap(t *testing.T) {
	if mappreview.TilesPath != ogc.TilesPath {
		t.Fatalf("mappreview.TilesPath %q is not the tile routes' %q", mappreview.TilesPath, ogc.TilesPath)
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		owner := e.NewUser(t, "Owner")
		id := publishPrivate(t, e, owner.User, "Squares", "polygon", squareFeatures())
		page := e.HTTP.URL + "/layers/" + strconv.Itoa(id) + "/"
		cookie := sessionCookie(t, e, owner.User)

		// Without the tiles scope: the page, a note and no map or script
		// (the page's JSON-LD is data, not a script that runs).
		noTiles := e.Token(t, owner.User, "layers:read")
		res, body := get(t, page, "Authorization", "key "+noTiles)
		if res.StatusCode != http.StatusOK || strings.Contains(body, `id="map"`) || !strings.Contains(body, "No map") ||
			strings.Contains(body, "<script src") {
			t.Fatalf("page for a token without the tiles scope: %d\n%s", res.StatusCode, body)
		}
		// Anonymous callers see no private layer at all; tiles refuse them.
		if res, _ := get(t, page); res.StatusCode != http.StatusNotFound {
			t.Fatalf("anonymous page: %d", res.StatusCode)
		}
		res, body = get(t, page, "Cookie", cookie.String())
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="map"`) || csp != mappreview.ContentSecurityPolicy {
			t.Fatalf("page with the session: %d, CSP %q\n%s", res.StatusCode, csp, body)
		}

		// A set's page maps the members the caller may see: with the
		// session the private layer; anonymously none, so a note.
		set := e.HTTP.URL + "/sets/" + strconv.Itoa(publishSet(t, e, owner.User, id)) + "/"
		res, body = get(t, set, "Cookie", cookie.String())
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="map"`) ||
			!strings.Contains(body, `&#34;layers&#34;:[&#34;layer-`+strconv.Itoa(id)+`&#34;]`) {
			t.Fatalf("set page with the session: %d\n%s", res.StatusCode, body)
		}
		res, body = get(t, set)
		if res.StatusCode != http.StatusOK || strings.Contains(body, `id="map"`) || !strings.Contains(body, "No map") {
			t.Fatalf("anonymous set page: %d\n%s", res.StatusCode, body)
		}

		start := time.Now()
		p := browsertest.OpenMapPage(t, page, cookie)
		defer p.Close()
		img, scale := p.Screenshot()
		checkPixels(t, p, img, scale)

		a := squares[0]
		text := p.ClickPopup(p.Project((a.west+a.east)/2, (a.south+a.north)/2))
		if !strings.Contains(text, "alpha") || strings.Contains(text, "beta") || !strings.Contains(text, "name") {
			t.Errorf("popup after clicking square alpha: %q", text)
		}
		t.Logf("browser part: %v", time.Since(start).Round(time.Millisecond))

		// With the layer's tiles service turned off: a note.
		put := e.Do(t, servertest.Request{Method: http.MethodPut, Path: "/layers/" + strconv.Itoa(id) + "/services/tiles/",
			Key: owner.Key, Body: `{"enabled": false}`})
		if put.Status != http.StatusOK {
			t.Fatalf("turning the service off: %d %s", put.Status, put.Body)
		}
		time.Sleep(3 * servertest.QueryFresh)
		res, body = get(t, page, "Cookie", cookie.String())
		if res.StatusCode != http.StatusOK || strings.Contains(body, `id="map"`) || !strings.Contains(body, "No map") {
			t.Fatalf("page with the tile service off: %d\n%s", res.StatusCode, body)
		}
	})
}

// TestSetPageMap: a set's page draws every member by geometry type (a
// polygon layer filled, a line layer stroked, a point layer as circles),
// and a click on a point shows the point's attributes.
func TestSetPageMap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		owner := e.NewUser(t, "Owner")
		const lineLat, pointLon, pointLat = -41.28, 174.76, -41.295
		line := geom.NewLineStringFlat(geom.XY, []float64{174.745, lineLat, 174.775, lineLat})
		point := geom.NewPointFlat(geom.XY, []float64{pointLon, pointLat})
		set := publishSet(t, e, owner.User,
			publishPrivate(t, e, owner.User, "Squares", "polygon", squareFeatures()),
			publishPrivate(t, e, owner.User, "Road", "linestring", []fixture{{line, "the road"}}),
			publishPrivate(t, e, owner.User, "Well", "point", []fixture{{point, "the well"}}))

		start := time.Now()
		p := browsertest.OpenMapPage(t, e.HTTP.URL+"/sets/"+strconv.Itoa(set)+"/", sessionCookie(t, e, owner.User))
		defer p.Close()
		img, scale := p.Screenshot()
		checkPixels(t, p, img, scale)
		// The line's colour on the line (between the squares, away from
		// the point), the point colour in the middle of the point's circle.
		at := func(pt browsertest.Point, want string, tol float64) bool {
			for dy := -2; dy <= 2; dy++ {
				if within(img.At(int(pt.X*scale), int(pt.Y*scale)+dy), hexColor(want), tol) {
					return true
				}
			}
			return false
		}
		if pt := p.Project(174.75, lineLat); !at(pt, mappreview.LineColor, 24) {
			t.Errorf("no line colour %s at the line (%v)", mappreview.LineColor, pt)
		}
		if pt := p.Project(pointLon, pointLat); !at(pt, mappreview.PointColor, 24) {
			t.Errorf("no point colour %s at the point (%v)", mappreview.PointColor, pt)
		}
		text := p.ClickPopup(p.Project(pointLon, pointLat))
		if !strings.Contains(text, "the well") {
			t.Errorf("popup after clicking the point: %q", text)
		}
		t.Logf("browser part: %v", time.Since(start).Round(time.Millisecond))
	})
}

// checkPixels checks every pixel of the map: inside a square (a margin
// from its edges) the blend of the fill colour over the background,
// outside the squares (a margin from their edges) never.
func checkPixels(t *testing.T, p *browsertest.MapPage, img image.Image, scale float64) {
	t.Helper()
	fill := blend(hexColor(mappreview.FillColor), hexColor(mappreview.Background), mappreview.FillOpacity)
	type rect struct{ x0, y0, x1, y1 float64 }
	var boxes []rect
	for _, s := range squares {
		nw, se := p.Project(s.west, s.north), p.Project(s.east, s.south)
		boxes = append(boxes, rect{nw.X * scale, nw.Y * scale, se.X * scale, se.Y * scale})
	}
	mb := p.MapBox()
	const margin = 3
	inside, outside, bad := 0, 0, 0
	var firstBad []string
	for y := int(mb[1]*scale) + 1; y < int(mb[3]*scale)-1; y++ {
		for x := int(mb[0]*scale) + 1; x < int(mb[2]*scale)-1; x++ {
			fx, fy := float64(x)+.5, float64(y)+.5
			in, near := false, false
			for _, b := range boxes {
				if fx > b.x0+margin && fx < b.x1-margin && fy > b.y0+margin && fy < b.y1-margin {
					in = true
				}
				if fx > b.x0-margin && fx < b.x1+margin && fy > b.y0-margin && fy < b.y1+margin {
					near = true
				}
			}
			c := img.At(x, y)
			switch {
			case in:
				inside++
				if !within(c, fill, 6) {
					bad++
					if len(firstBad) < 5 {
						firstBad = append(firstBad, pixel("inside", x, y, c))
					}
				}
			case !near:
				outside++
				if within(c, fill, 24) {
					bad++
					if len(firstBad) < 5 {
						firstBad = append(firstBad, pixel("outside", x, y, c))
					}
				}
			}
		}
	}
	if inside < 1000 || outside < 1000 {
		t.Fatalf("the squares cover %d pixels and leave %d: the map is not fitted to them (boxes %v, map %v)", inside, outside, boxes, mb)
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels have the wrong colour (want %v inside the squares, never outside): %s",
			bad, inside+outside, fill, strings.Join(firstBad, "; "))
	}
	t.Logf("%d pixels inside the squares, %d outside checked", inside, outside)
}

func pixel(where string, x, y int, c color.Color) string {
	r, g, b, _ := c.RGBA()
	return where + " (" + strconv.Itoa(x) + "," + strconv.Itoa(y) + ") rgb(" +
		strconv.Itoa(int(r>>8)) + "," + strconv.Itoa(int(g>>8)) + "," + strconv.Itoa(int(b>>8)) + ")"
}

func hexColor(s string) [3]float64 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	return [3]float64{float64(n >> 16 & 0xff), float64(n >> 8 & 0xff), float64(n & 0xff)}
}

func blend(top, bottom [3]float64, alpha float64) [3]float64 {
	var out [3]float64
	for i := range out {
		out[i] = top[i]*alpha + bottom[i]*(1-alpha)
	}
	return out
}

// within reports whether c is within tol of want in every channel.
func within(c color.Color, want [3]float64, tol float64) bool {
	r, g, b, _ := c.RGBA()
	got := [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
	for i := range got {
		if d := got[i] - want[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}
