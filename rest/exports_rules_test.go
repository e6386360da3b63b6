package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server"
)

// Who sees an export, and why an item cannot be exported: every reason
// named, nothing dropped; the limits named with their values.
func TestExportRulesAndReasons(t *testing.T) {
	eachWith(t, func(c *server.Config) { c.Exports.MaxFeatures = 250 }, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		other := e.NewUser(t, "Other")
		gpkg := map[string]any{"vector": "application/x-ogc-gpkg", "table": "application/x-ogc-gpkg"}

		// Anonymous 401; a token without exports:write 401 naming it.
		authMatrix(t, e, req{Method: "POST", Path: "/exports/validate/", Body: map[string]any{}}, "exports:write", nil)
		wrong := e.Token(t, d.owner.User, "exports:read")
		r := e.Do(t, req{Method: "POST", Path: "/exports/", Key: wrong, Body: map[string]any{}})
		expectDetail(t, r, http.StatusUnauthorized, "exports:write")
		if got := r.Header.Get("Accepted-OAuth-Scopes"); got != "exports:write" {
			t.Errorf("Accepted-OAuth-Scopes %q", got)
		}

		// Invalid items: an unknown URL, a table as DXF, an extent that
		// misses the data, a layer over the feature limit (300 > 250).
		far := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{170, -46}, {170.1, -46}, {170.1, -45.9}, {170, -46}}}}
		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: map[string]any{
			"crs": "EPSG:2193", "formats": map[string]any{"vector": "application/x-ogc-gpkg", "table": "image/vnd.dxf"},
			"items": []map[string]any{{"item": d.points}, {"item": d.table}, {"item": e.API + "/layers/987654/"}}}}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.points), "limit-features: 300 features exceed the limit of 250") ||
			!hasReason(v.reasonsOf(t, d.table), "format-unsupported") || !hasReason(v.reasonsOf(t, e.API+"/layers/987654/"), "not-found") {
			t.Errorf("validation %+v", v)
		}
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: map[string]any{
			"formats": gpkg, "extent": far, "items": []map[string]any{{"item": d.polys}}}}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.polys), "outside-extent") {
			t.Errorf("outside: %+v", v)
		}
		// Top-level reasons: no items, an unknown CRS, an open ring; a
		// create that is not valid is a 400 with the validation body.
		r = e.Do(t, req{Method: "POST", Path: "/exports/", Key: d.owner.Key, Body: map[string]any{
			"crs": "EPSG:999999", "formats": gpkg, "items": []any{},
			"extent": map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{174, -41}, {175, -41}, {175, -40}, {174, -40.5}}}}}})
		expectStatus(t, r, http.StatusBadRequest)
		r.JSON(t, &v)
		for _, w := range []string{"items-missing", "crs-invalid", "extent-invalid"} {
			if !hasReason(v.InvalidReasons, w) {
				t.Errorf("no %s in %v", w, v.InvalidReasons)
			}
		}

		// Without download permission the item is invalid; with the export
		// service turned off, too.
		base := d.polys[strings.Index(d.polys, "/layers/"):]
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: base + "permissions/group.everyone/", Key: d.owner.Key}), http.StatusNoContent)
		grantOn(t, e, d.owner.Key, base, other, "view")
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: other.Key, Body: map[string]any{
			"formats": gpkg, "items": []map[string]any{{"item": d.polys}}}}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.polys), "no-permission") {
			t.Errorf("view only: %+v", v)
		}
		expectStatus(t, e.Do(t, req{Method: "PUT", Path: base + "services/export/", Key: d.owner.Key, Body: map[string]any{"enabled": false}}), http.StatusOK)
		v = doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: d.owner.Key, Body: map[string]any{
			"formats": gpkg, "items": []map[string]any{{"item": d.polys}}}}, http.StatusOK)
		if v.IsValid || !hasReason(v.reasonsOf(t, d.polys), "export-service-disabled") {
			t.Errorf("service off: %+v", v)
		}

		// A valid export is its creator's: others get 404 on it and its file,
		// and never see it in their list; Range gives 206 with the bytes.
		x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, map[string]any{
			"formats": gpkg, "items": []map[string]any{{"item": d.table}}}))
		if x.State != "complete" || !strings.HasPrefix(x.Name, "geopub-codes") {
			t.Fatalf("export %+v", x)
		}
		_, whole := download(t, e, d.owner.Key, x)
		expectStatus(t, e.Do(t, req{Path: x.URL, Key: other.Key}), http.StatusNotFound)
		expectStatus(t, e.Do(t, req{Path: *x.DownloadURL, Key: other.Key}), http.StatusNotFound)
		if list := doJSON[[]exportRecord](t, e, req{Path: "/exports/", Key: other.Key}, http.StatusOK); len(list) != 0 {
			t.Errorf("another user lists %v", list)
		}
		if list := doJSON[[]exportRecord](t, e, req{Path: "/exports/", Key: d.owner.Key}, http.StatusOK); len(list) != 1 || list[0].DownloadURL == nil {
			t.Errorf("the owner lists %+v", list)
		}
		rr := e.Do(t, req{Path: *x.DownloadURL, Key: d.owner.Key, Header: map[string]string{"Range": "bytes=10-29"}})
		if rr.Status != http.StatusPartialContent || !bytes.Equal(rr.Body, whole[10:30]) ||
			rr.Header.Get("Content-Range") != fmt.Sprintf("bytes 10-29/%d", len(whole)) {
			t.Errorf("range: %d %q %q", rr.Status, rr.Header.Get("Content-Range"), rr.Body)
		}
		// A complete export cannot be cancelled.
		r = e.Do(t, req{Method: "DELETE", Path: x.URL, Key: d.owner.Key})
		if r.Status != http.StatusConflict || strings.TrimSpace(string(r.Body)) != `{"errors":["Can't cancel"]}` {
			t.Errorf("cancel a complete export: %d %s", r.Status, r.Body)
		}
		// OPTIONS lists the formats per kind.
		var opts struct {
			Actions struct {
				POST struct {
					Formats struct {
						Children map[string]struct {
							Choices []struct{ Value, DisplayName string }
						}
					}
				}
			}
		}
		doJSONInto(t, e, req{Method: "OPTIONS", Path: "/exports/", Key: d.owner.Key}, &opts)
		if ch := opts.Actions.POST.Formats.Children; len(ch["vector"].Choices) < 5 || len(ch["grid"].Choices) == 0 || len(ch["table"].Choices) == 0 {
			t.Errorf("OPTIONS %+v", opts)
		}
	})
}

// doJSONInto runs r, expects 200 and decodes the answer into v.
func doJSONInto(t *testing.T, e *env, r req, v any) {
	t.Helper()
	resp := e.Do(t, r)
	expectStatus(t, resp, http.StatusOK)
	resp.JSON(t, v)
}

// An export cancelled mid-run stops within seconds and leaves no file:
// neither in the work area nor in blob storage.
func TestExportCancelMidRunLeavesNoFiles(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		svc := e.Server.Resolver.Exports
		started := make(chan struct{}, 1)
		// The real writer, fed slowly: each row waits a little, so the
		// export is still writing when it is cancelled.
		svc.Writers.Vector = func(ctx context.Context, dir string, item exportfile.VectorItem, f exportfile.Format, o exportfile.Options) (exportfile.Result, error) {
			rows := item.Rows
			item.Rows = func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
				return rows(ctx, func(r *featurerows.RawRow) error {
					select {
					case started <- struct{}{}:
					default:
					}
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
					return fn(r)
				})
			}
			return exportfile.WriteVector(ctx, dir, item, f, o)
		}
		url := createExport(t, e, d.owner.Key, map[string]any{"formats": map[string]any{"vector": "application/x-ogc-gpkg"},
			"items": []map[string]any{{"item": d.points}}})
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("the export never started writing")
		}
		x := doJSON[exportRecord](t, e, req{Method: "DELETE", Path: url, Key: d.owner.Key}, http.StatusAccepted)
		if x.State != "cancelled" || x.Progress != nil || x.DownloadURL != nil {
			t.Fatalf("cancelled %+v", x)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			left, _ := filepath.Glob(filepath.Join(e.Server.TempDir(), "export-*"))
			if len(left) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the work folder is still there: %v", left)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if ok, err := e.Server.Resolver.Blobs.Exists(t.Context(), exports.BlobKey(x.ID)); err != nil || ok {
			t.Errorf("blob exists %v %v", ok, err)
		}
		if x = doJSON[exportRecord](t, e, req{Path: url, Key: d.owner.Key}, http.StatusOK); x.State != "cancelled" {
			t.Errorf("after the worker stopped: %+v", x)
		}
		if _, err := os.Stat(e.Server.TempDir()); err != nil {
			t.Fatal(err)
		}
	})
}

// A complete export past its expiry becomes gone: no download URL, no
// file, its download 404.
func TestExportExpires(t *testing.T) {
	eachWith(t, func(c *server.Config) {
		c.Exports.Expiry = 300 * time.Millisecond
		c.ExportSweepEvery = 50 * time.Millisecond
	}, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		x := waitExport(t, e, d.owner.Key, createExport(t, e, d.owner.Key, map[string]any{
			"formats": map[string]any{"table": "text/csv"}, "items": []map[string]any{{"item": d.table}}}))
		if x.State != "complete" {
			t.Fatalf("export %+v", x)
		}
		dl := *x.DownloadURL
		deadline := time.Now().Add(10 * time.Second)
		for x.State != "gone" {
			if time.Now().After(deadline) {
				t.Fatalf("never gone: %+v", x)
			}
			time.Sleep(50 * time.Millisecond)
			x = doJSON[exportRecord](t, e, req{Path: x.URL, Key: d.owner.Key}, http.StatusOK)
		}
		if x.DownloadURL != nil {
			t.Errorf("gone with a download URL %v", *x.DownloadURL)
		}
		expectStatus(t, e.Do(t, req{Path: dl, Key: d.owner.Key}), http.StatusNotFound)
		if ok, err := e.Server.Resolver.Blobs.Exists(t.Context(), exports.BlobKey(x.ID)); err != nil || ok {
			t.Errorf("blob exists %v %v", ok, err)
		}
	})
}
