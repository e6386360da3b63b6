package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
)

// noRedirect is a client that reports a redirect instead of following it,
// as QGIS does.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// TestClientsOpenFeatures covers issue 24's point 16 on both stores: the
// root answers without its final slash, and GDAL reads one feature by id
// (it appends /{id} to the collection's items link).
func TestClientsOpenFeatures(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publish(t, e, owner.User, layer.TypeLayer, "Few points", "point", attrFields, []feature{
			{1, pt(174.7, -41.3), map[string]any{"name": "one", "rank": int64(1)}},
			{3, pt(174.8, -41.2), map[string]any{"name": "three", "rank": int64(3)}},
			{5, pt(174.9, -41.1), map[string]any{"name": "five", "rank": int64(5)}},
		})
		root := e.HTTP.URL + "/services/ogc/features"

		t.Run("root without slash", func(t *testing.T) {
			for _, u := range []string{root, root + "?f=json", root + "/"} {
				req, _ := http.NewRequest(http.MethodGet, u, nil)
				req.Header.Set("Authorization", "key "+owner.Key)
				resp, err := noRedirect.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var l struct{ Links []link }
				if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &l) != nil || len(l.Links) == 0 {
					t.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
				}
			}
		})

		t.Run("links without a query", func(t *testing.T) {
			var c struct{ Links []link }
			req, _ := http.NewRequest(http.MethodGet, root+"/collections/"+layerID(id), nil)
			req.Header.Set("Authorization", "key "+owner.Key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			err = json.NewDecoder(resp.Body).Decode(&c)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range c.Links {
				if l.Type != "text/html" && strings.Contains(l.Href, "?") {
					t.Errorf("%s link %s has a query", l.Rel, l.Href)
				}
			}
		})

		t.Run("gdal reads one feature by id", func(t *testing.T) {
			ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, ogrinfo, "OAPIF:"+root+"?key="+owner.Key, layerID(id), "-fid", "3")
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30")
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("ogrinfo: %v\n%s", err, b)
			}
			out := string(b)
			if !strings.Contains(out, fmt.Sprintf("OGRFeature(%s):3", layerID(id))) || !strings.Contains(out, "= three") {
				t.Errorf("ogrinfo -fid 3:\n%s", out)
			}
		})
	})
}

// TestGDALOpensEmptyTile covers issue 24's point 17: GDAL opens a single
// vector tile by its URL, an empty one too (it refused a 204).
func TestGDALOpensEmptyTile(t *testing.T) {
	ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publishLayer(t, e, owner.User, "Points", "point", randomPoints(1, 20))
		full, empty := [2]int{}, [2]int{}
		full[0], full[1] = tileXY(tLon, tLat, 10)
		empty[0], empty[1] = tileXY(0, 0, 10)
		for _, tc := range []struct {
			xy   [2]int
			want string
		}{{full, "Feature Count: "}, {empty, "INFO: Open of"}} {
			u := e.HTTP.URL + tilePath("layer", id, 10, tc.xy[0], tc.xy[1])
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, ogrinfo, "-ro", "-so", "-al", "MVT:/vsicurl/"+u)
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30", "CPL_VSIL_CURL_ALLOWED_EXTENSIONS=.pbf")
			b, err := cmd.CombinedOutput()
			cancel()
			if err != nil || !strings.Contains(string(b), tc.want) {
				t.Errorf("ogrinfo %s: %v\n%s", u, err, b)
			}
		}
	})
}
