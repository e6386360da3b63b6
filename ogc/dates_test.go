package ogc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// TestDatesServedAsDates covers issue 24's point 10 on both stores: a
// date field stored as midnight UTC (as imports wrote it) is served as a
// date in every door, and GDAL types it Date, not DateTime.
func TestDatesServedAsDates(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.NewUser(t, "Owner")
		id := publish(t, e, owner.User, layer.TypeLayer, "Dated", "point",
			[]schematype.Field{{Name: "name", Type: "string"}, {Name: "day", Type: "date"}, {Name: "at", Type: "datetime"}},
			[]feature{
				{1, pt(174.7, -41.3), map[string]any{"name": "one", "day": time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
					"at": time.Date(2024, 1, 1, 12, 34, 56, 0, time.UTC)}},
				{2, pt(174.8, -41.2), map[string]any{"name": "two", "day": "2024-02-29T00:00:00Z"}},
			})
		props := func(t *testing.T, u string) map[string]any {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, e.HTTP.URL+u, nil)
			req.Header.Set("Authorization", "key "+owner.Key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var fc struct {
				Features []struct{ Properties map[string]any }
			}
			if err := json.NewDecoder(resp.Body).Decode(&fc); err != nil || len(fc.Features) == 0 {
				t.Fatalf("%s: %d %v", u, resp.StatusCode, err)
			}
			return fc.Features[0].Properties
		}
		for _, u := range []string{
			"/services/ogc/features/collections/" + layerID(id) + "/items?limit=1",
			"/services/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=" + wfsName("layer", id) + "&COUNT=1&OUTPUTFORMAT=application/json",
		} {
			if p := props(t, u); p["day"] != "2024-01-01" || p["at"] != "2024-01-01T12:34:56Z" {
				t.Errorf("%s: day %v, at %v", u, p["day"], p["at"])
			}
		}

		// MVT: the date as a string property (made from the store, or by
		// PostGIS on PostgreSQL).
		resp, tile := fetch(t, e, tilePath("layer", id, 0, 0, 0), map[string]string{"Authorization": "key " + owner.Key})
		if resp.StatusCode != http.StatusOK || !bytes.Contains(tile, []byte("2024-01-01")) || bytes.Contains(tile, []byte("2024-01-01T00")) ||
			!bytes.Contains(tile, []byte("2024-01-01T12:34:56Z")) {
			t.Errorf("tile: %d %q", resp.StatusCode, tile)
		}
		t.Logf("tile made by: %d store, %d postgis", e.Server.Tiles.Made("store"), e.Server.Tiles.Made("postgis"))

		// Point queries, JSON and XML (the feature index of the version).
		for _, ext := range []string{"json", "xml"} {
			resp, b := fetch(t, e, "/services/query/v1/vector."+ext+"?key="+owner.Key+"&layer="+itoa(id)+"&x=174.7&y=-41.3&max_results=1", nil)
			if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("2024-01-01")) || bytes.Contains(b, []byte("2024-01-01T00")) {
				t.Errorf("vector.%s: %d %s", ext, resp.StatusCode, b)
			}
		}

		ogrinfo := requireTool(t, "ogrinfo", "gdal-bin")
		for _, src := range []string{
			"OAPIF:" + e.HTTP.URL + "/services/ogc/features?key=" + owner.Key,
			"WFS:" + e.HTTP.URL + "/services/wfs/?VERSION=2.0.0&key=" + owner.Key,
		} {
			name := layerID(id)
			if strings.HasPrefix(src, "WFS") {
				name = wfsName("layer", id)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, ogrinfo, "-ro", src, name)
			cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=30")
			b, err := cmd.CombinedOutput()
			cancel()
			out := string(b)
			if err != nil || !strings.Contains(out, "day: Date") || !strings.Contains(out, "day (Date) = 2024/01/01") ||
				!strings.Contains(out, "day (Date) = 2024/02/29") || !strings.Contains(out, "at: DateTime") {
				t.Errorf("ogrinfo %s: %v\n%s", src, err, out)
			}
		}
	})
}
