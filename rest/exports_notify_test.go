package rest_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server"
)

// restNotification is a notification as GET /notifications/ lists it.
type restNotification struct {
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload"`
}

// exportNotices returns the export.* notifications of the caller's REST
// catch-up list.
func exportNotices(t *testing.T, e *env, key string) []restNotification {
	t.Helper()
	var out []restNotification
	for _, n := range doJSON[[]restNotification](t, e, req{Path: "/notifications/?page_size=200", Key: key}, http.StatusOK) {
		if strings.HasPrefix(n.Kind, "export.") {
			out = append(out, n)
		}
	}
	return out
}

// TestExportNotifications: a running export's progress and its completion
// reach its creator's notification stream (the websocket subscription and
// the REST catch-up list) with the export's id; a failed export announces
// export.failed with its error; other users hear of none of it.
func TestExportNotifications(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.ExportProgressEvery = 20 * time.Millisecond }, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		other := e.NewUser(t, "Other")
		sub := subscribeWS(t, e, d.owner.Key, "")
		x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, map[string]any{
			"formats": map[string]any{"vector": "application/x-ogc-gpkg", "table": "text/csv"},
			"items":   []map[string]any{{"item": d.points}, {"item": d.polys}, {"item": d.table}}}))
		if x.State != "complete" {
			t.Fatalf("export %+v", x)
		}
		id := float64(x.ID)
		var kinds []string
		for {
			n := sub.next()
			if !strings.HasPrefix(n.Kind, "export.") {
				continue
			}
			if n.Payload["export_id"] != id {
				t.Fatalf("notification %+v of another export (want %v)", n, id)
			}
			kinds = append(kinds, n.Kind)
			if n.Kind == "export.progress" {
				if p, _ := n.Payload["progress"].(float64); p <= 0 || p > 1 {
					t.Fatalf("progress %+v", n)
				}
			}
			if n.Kind == "export.completed" {
				break
			}
		}
		if len(kinds) < 2 || kinds[0] != "export.progress" {
			t.Fatalf("the websocket gave %v, want progress before completion", kinds)
		}
		rest := exportNotices(t, e, d.owner.Key)
		if len(rest) != len(kinds) || rest[len(rest)-1].Kind != "export.completed" || rest[len(rest)-1].Payload["export_id"] != id {
			t.Fatalf("the REST list gives %+v, the websocket %v", rest, kinds)
		}

		// A grid export whose crop area meets the raster's bounding box
		// but not its cells fails: export.failed with the error.
		owner := d.owner
		srcPath := filepath.Join(t.TempDir(), "dem.tif")
		writeDEM(t, srcPath)
		body, err := os.ReadFile(srcPath)
		if err != nil {
			t.Fatal(err)
		}
		src := upload(t, e, owner.Key, map[string][]byte{"dem.tif": body})
		if sc := waitScan(t, e, owner.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		lid := publishLayerFrom(t, e, owner, "NZ DEM", datasources(t, e, owner.Key, src.ID)["dem.tif"].ID)
		// The grid's north-west corner is at 174.5668 E, 36.6753 S; its
		// bounding box reaches 36.6686 S: this triangle is in the box,
		// north of the grid's top edge.
		corner := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{174.567, -36.6690}, {174.60, -36.6690}, {174.567, -36.6740}, {174.567, -36.6690}}}}
		f := waitExport(t, e, owner.Key, createExport(t, e, owner.Key, map[string]any{
			"formats": map[string]any{"grid": "image/tiff;subtype=geotiff"}, "extent": corner,
			"items": []map[string]any{{"item": fmt.Sprintf("%s/layers/%d/", e.API, lid)}}}))
		if f.State != "error" || f.Error == nil || !strings.Contains(*f.Error, "crop area") || f.DownloadURL != nil {
			t.Fatalf("failed export %+v (error %s)", f, deref(f.Error))
		}
		rest = exportNotices(t, e, owner.Key)
		last := rest[len(rest)-1]
		if last.Kind != "export.failed" || last.Payload["export_id"] != float64(f.ID) || !strings.Contains(fmt.Sprint(last.Payload["error"]), "crop area") {
			t.Fatalf("notifications %+v", rest)
		}
		if got := exportNotices(t, e, other.Key); len(got) != 0 {
			t.Fatalf("another user was told %+v", got)
		}
	})
}
