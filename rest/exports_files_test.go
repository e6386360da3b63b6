package rest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportCarriesMetadataLicenceAndCountsDownloads: the zip holds a
// dataset's metadata XML and licence text beside its data when its
// version has them (and none for a dataset without), and downloading the
// file counts one download on each exported dataset.
func TestExportCarriesMetadataLicenceAndCountsDownloads(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		owner := d.owner
		// A new version of the parcels with ISO 19139 metadata and a
		// licence, published.
		r := e.Do(t, req{Method: "POST", Path: d.polys + "versions/", Key: owner.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var draft layerRecord
		r.JSON(t, &draft)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: draft.ThisVersion + "metadata/", Key: owner.Key,
			Body: xmlFixture(t, "iso19139.xml"), Header: map[string]string{"Content-Type": "text/xml"}}), http.StatusCreated)
		cc := doJSON[license](t, e, req{Path: "/licenses/cc-by/nz/"}, http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "PATCH", Path: draft.ThisVersion, Key: owner.Key, Body: map[string]any{"license": cc.ID}}), http.StatusOK)
		if l := waitVersion(t, e, owner.Key, draft.ThisVersion); l.Version.Status != "ok" {
			t.Fatalf("draft %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: draft.ThisVersion + "publish/", Key: owner.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		waitPublish(t, e, owner.Key, r.Header.Get("Location"))

		body := map[string]any{"formats": map[string]any{"vector": "application/x-ogc-gpkg"},
			"items": []map[string]any{{"item": d.points}, {"item": d.polys}}}
		v := doJSON[validationRecord](t, e, req{Method: "POST", Path: "/exports/validate/", Key: owner.Key, Body: body}, http.StatusOK)
		if lic := v.Items[1].License; lic == nil || lic["id"] != float64(cc.ID) || v.Items[0].License != nil {
			t.Errorf("validation licences %+v", v.Items)
		}
		x := waitExport(t, e, owner.Key, createExport(t, e, owner.Key, body))
		if x.State != "complete" {
			t.Fatalf("export %+v (error %s)", x, deref(x.Error))
		}
		if _, err := e.Server.Resolver.Popularity.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		before := map[string]int64{}
		for _, u := range []string{d.points, d.polys, d.table} {
			before[u] = doJSON[catalogueRecord](t, e, req{Path: u, Key: owner.Key}, http.StatusOK).NumDownloads
		}
		dir, _ := download(t, e, owner.Key, x)

		xml, err := os.ReadFile(findFile(t, dir, "nz-parcels", ".xml"))
		if err != nil || !strings.Contains(string(xml), "5b3c2d8e-0c5f-4a4f-9d3e-2f6f7f0d1a11") {
			t.Errorf("metadata %.200s (%v)", xml, err)
		}
		lic, err := os.ReadFile(findFile(t, dir, "nz-parcels", ".license.txt"))
		if err != nil || !strings.HasPrefix(string(lic), cc.Title+"\n") || !strings.Contains(string(lic), "Licence type: cc-by") {
			t.Errorf("licence %q (%v)", lic, err)
		}
		for _, pattern := range []string{"nz-sites*.xml", "nz-sites*.license.txt"} {
			if m, _ := filepath.Glob(filepath.Join(dir, "*", pattern)); len(m) != 0 {
				t.Errorf("the points have no metadata or licence, yet the zip holds %v", m)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) != 0 {
				t.Errorf("the points have no metadata or licence, yet the zip holds %v", m)
			}
		}

		if _, err := e.Server.Resolver.Popularity.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		for u, want := range map[string]int64{d.points: before[d.points] + 1, d.polys: before[d.polys] + 1, d.table: before[d.table]} {
			if got := doJSON[catalogueRecord](t, e, req{Path: u, Key: owner.Key}, http.StatusOK).NumDownloads; got != want {
				t.Errorf("%s: %d downloads, want %d", u, got, want)
			}
		}
	})
}
