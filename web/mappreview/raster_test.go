package mappreview_test

import (
	"context"
	"database/sql"
	"image"
	"image/color"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airbusgeo/godal"
	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/web/mappreview"
)

// The grid fixture: EPSG:4326 cells of gridCell degrees from (gridWest,
// gridNorth), gridW×gridH of them, near the squares; a cell's value is
// its column, so the ramp runs from west to east.
const (
	gridWest, gridNorth = 174.70, -41.20
	gridCell            = 0.0005
	gridW, gridH        = 200, 120
)

// over is a square inside the grid, drawn over it in the set's map.
var over = square{174.74, -41.24, 174.76, -41.22, "over"}

// gridExtent is the fixture's [west, south, east, north].
var gridExtent = [4]float64{gridWest, gridNorth - gridH*gridCell, gridWest + gridW*gridCell, gridNorth}

// writeGridCOG writes the grid fixture as a Cloud-Optimized GeoTIFF, as
// imports store grids, and returns its path.
func writeGridCOG(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, cog := filepath.Join(dir, "grid.tif"), filepath.Join(dir, "cog.tif")
	ingesttest.Grid(t, src, 4326, gridW, gridH, [6]float64{gridWest, gridCell, 0, gridNorth, 0, -gridCell},
		[]ingesttest.GridBand{{Name: "value", Type: godal.Float32, Value: func(col, _ int) float64 { return float64(col) }}})
	if out, err := exec.Command("gdal_translate", "-q", "-of", "COG", "-co", "COMPRESS=DEFLATE", "-co", "BLOCKSIZE=256",
		"-co", "OVERVIEWS=AUTO", src, cog).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	return cog
}

// publishGrid stores cog as the published version of a new grid layer
// that only its owner may see, and returns the layer's id.
func publishGrid(t *testing.T, e *servertest.Env, owner *ent.User, cog string) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindGrid).SetName("Heights").
			SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if err := access.GrantCreator(ctx, c, access.KindLayer, l.ID, owner.ID); err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName("Heights").SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).
			SetCrs("EPSG:4326").SetExtent(gridExtent[:]).SetRasterWidth(gridW).SetRasterHeight(gridH).
			SetRasterResolution(gridCell).SetPublishedAt(now).Save(ctx)
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
		id = l.ID
		return c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx)
	})
	if err != nil {
		t.Fatalf("publishing the grid fixture: %v", err)
	}
	return id
}

// TestGridPageMap (issue 16 point 5): the page of a published grid layer,
// opened with the owner's session cookie, draws the grid's PNG tiles:
// the ramp's colours inside the grid (low in the west, high in the east)
// and the plain background outside. A set of the grid and a vector layer
// maps both, the grid's tiles under the vector ones. Callers who may not
// use the raster tiles (a token without the tiles scope, the layer's
// tiles service turned off) get a note, no map; other users no page.
func TestGridPageMap(t *testing.T) {
	cog := writeGridCOG(t)
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		owner := e.NewUser(t, "Owner")
		id := publishGrid(t, e, owner.User, cog)
		page := e.HTTP.URL + "/layers/" + strconv.Itoa(id) + "/"
		cookie := sessionCookie(t, e, owner.User)
		png := `/services/tiles/v1/layer=` + strconv.Itoa(id) + `/{z}/{x}/{y}.png`

		res, body := get(t, page, "Authorization", "key "+e.Token(t, owner.User, "layers:read"))
		if res.StatusCode != http.StatusOK || strings.Contains(body, `id="map"`) || !strings.Contains(body, "No map") {
			t.Fatalf("page for a token without the tiles scope: %d\n%s", res.StatusCode, body)
		}
		if res, _ := get(t, page, "Cookie", sessionCookie(t, e, e.NewUser(t, "Other").User).String()); res.StatusCode != http.StatusNotFound {
			t.Fatalf("page for another user: %d", res.StatusCode)
		}
		res, body = get(t, page, "Cookie", cookie.String())
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="map"`) || !strings.Contains(body, png) ||
			res.Header.Get("Content-Security-Policy") != mappreview.ContentSecurityPolicy {
			t.Fatalf("page with the session: %d\n%s", res.StatusCode, body)
		}

		// A set of the grid and a square over it: the grid's PNG tiles
		// and the set's vector tiles.
		vector := publishPrivate(t, e, owner.User, "Square", "polygon", []fixture{{geom.NewPolygonFlat(geom.XY,
			[]float64{over.west, over.south, over.east, over.south, over.east, over.north, over.west, over.north, over.west, over.south},
			[]int{10}), over.name}})
		set := e.HTTP.URL + "/sets/" + strconv.Itoa(publishSet(t, e, owner.User, id, vector)) + "/"
		res, body = get(t, set, "Cookie", cookie.String())
		if res.StatusCode != http.StatusOK || !strings.Contains(body, png) ||
			!strings.Contains(body, `&#34;layers&#34;:[&#34;layer-`+strconv.Itoa(vector)+`&#34;]`) {
			t.Fatalf("set page with the session: %d\n%s", res.StatusCode, body)
		}

		start := time.Now()
		p := browsertest.OpenMapPage(t, page, cookie)
		img, scale := p.Screenshot()
		checkRamp(t, p, img, scale)
		p.Close()
		// The set's square is drawn over the grid: its fill blended over
		// the ramp colour beside it.
		p = browsertest.OpenMapPage(t, set, cookie)
		img, scale = p.Screenshot()
		mid, beside := p.Project((over.west+over.east)/2, (over.south+over.north)/2), p.Project(over.west-0.003, (over.south+over.north)/2)
		p.Close()
		under := img.At(int(beside.X*scale), int(beside.Y*scale))
		r, g, b, _ := under.RGBA()
		want := blend(hexColor(mappreview.FillColor), [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}, mappreview.FillOpacity)
		if got := img.At(int(mid.X*scale), int(mid.Y*scale)); rampPosition(under) < 0 || !within(got, want, 12) {
			t.Errorf("set map: %s in the square, want the fill over the grid beside it (%s): %v",
				pixel("square", int(mid.X*scale), int(mid.Y*scale), got), pixel("beside", int(beside.X*scale), int(beside.Y*scale), under), want)
		}
		t.Logf("browser part: %v", time.Since(start).Round(time.Millisecond))

		put := e.Do(t, servertest.Request{Method: http.MethodPut, Path: "/layers/" + strconv.Itoa(id) + "/services/tiles/",
			Key: owner.Key, Body: `{"enabled": false}`})
		if put.Status != http.StatusOK {
			t.Fatalf("turning the tiles service off: %d %s", put.Status, put.Body)
		}
		time.Sleep(3 * servertest.QueryFresh)
		res, body = get(t, page, "Cookie", cookie.String())
		if res.StatusCode != http.StatusOK || strings.Contains(body, `id="map"`) || !strings.Contains(body, "No map") {
			t.Fatalf("page with the tiles service off: %d\n%s", res.StatusCode, body)
		}
	})
}

// checkRamp checks the map's pixels: inside the grid (a margin from its
// edges) every pixel is a colour of the ramp, low in the grid's western
// quarter and high in its eastern one; outside it (a margin away) every
// pixel is the background (but for the map's border and its zoom buttons
// in the top-right corner), never a colour of the ramp.
func checkRamp(t *testing.T, p *browsertest.MapPage, img image.Image, scale float64) {
	t.Helper()
	onRamp := func(x, y int) float64 { return rampPosition(img.At(x, y)) }
	nw, se := p.Project(gridExtent[0], gridExtent[3]), p.Project(gridExtent[2], gridExtent[1])
	x0, y0, x1, y1 := nw.X*scale, nw.Y*scale, se.X*scale, se.Y*scale
	mb := p.MapBox()
	bg := hexColor(mappreview.Background)
	const margin = 3
	// plain reports whether a pixel outside the grid shows only the
	// background: not on the border, not under the zoom buttons.
	plain := func(fx, fy float64) bool {
		l, t, r, b := (mb[0]+2)*scale, (mb[1]+2)*scale, (mb[2]-2)*scale, (mb[3]-2)*scale
		buttons := fx > r-60*scale && fy < t+80*scale
		return fx > l && fx < r && fy > t && fy < b && !buttons
	}
	inside, outside, bad := 0, 0, 0
	var west, east []float64
	var firstBad []string
	for y := int(mb[1]*scale) + 1; y < int(mb[3]*scale)-1; y++ {
		for x := int(mb[0]*scale) + 1; x < int(mb[2]*scale)-1; x++ {
			fx, fy := float64(x)+.5, float64(y)+.5
			switch {
			case fx > x0+margin && fx < x1-margin && fy > y0+margin && fy < y1-margin:
				inside++
				f := onRamp(x, y)
				if f < 0 {
					bad++
					if len(firstBad) < 5 {
						firstBad = append(firstBad, pixel("inside", x, y, img.At(x, y)))
					}
				}
				switch q := (fx - x0) / (x1 - x0); {
				case q < 0.25:
					west = append(west, f)
				case q > 0.75:
					east = append(east, f)
				}
			case fx < x0-margin || fx > x1+margin || fy < y0-margin || fy > y1+margin:
				outside++
				if onRamp(x, y) >= 0 || plain(fx, fy) && !within(img.At(x, y), bg, 3) {
					bad++
					if len(firstBad) < 5 {
						firstBad = append(firstBad, pixel("outside", x, y, img.At(x, y)))
					}
				}
			}
		}
	}
	if inside < 1000 || outside < 1000 {
		t.Fatalf("the grid covers %d pixels and leaves %d: the map is not fitted to it (grid %v, map %v)",
			inside, outside, [4]float64{x0, y0, x1, y1}, mb)
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels have the wrong colour (the ramp inside the grid, the background outside): %s",
			bad, inside+outside, strings.Join(firstBad, "; "))
	}
	if w, e := mean(west), mean(east); !(w < 0.3 && e > 0.7) {
		t.Errorf("ramp positions: %.2f in the grid's western quarter, %.2f in its eastern: want low to high", w, e)
	}
	t.Logf("%d pixels inside the grid, %d outside checked", inside, outside)
}

// rampPosition is the position (0–1) of c on the grid ramp, -1 if c is
// not one of its colours.
func rampPosition(c color.Color) float64 {
	for i := 0; i <= 256; i++ {
		r := rastertiles.Ramp(float64(i), 0, 256)
		if within(c, [3]float64{float64(r.R), float64(r.G), float64(r.B)}, 6) {
			return float64(i) / 256
		}
	}
	return -1
}

func mean(fs []float64) float64 {
	s := 0.0
	for _, f := range fs {
		s += f
	}
	return s / math.Max(1, float64(len(fs)))
}
