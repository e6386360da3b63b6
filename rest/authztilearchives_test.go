package rest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/ogc"
)

// mountTileArchives adds the tile archive routes to the service router
// the matrix walks (serviceRouterKeys).
func mountTileArchives(r chi.Router) { ogc.NewTileArchives(nil, "", nil).Mount(r) }

// tileArchiveRules: a layer's vector PMTiles and MBTiles and a layer's or
// set's raster PMTiles serve, like the tiles, those holding view whose
// tiles service is on (an archive not built yet answers 404, with its
// state, while its first build runs); their descriptions too; a build request needs edit.
// CORS preflights carry no credentials: anyone gets them.
func tileArchiveRules(rules map[string]rule) {
	for _, a := range []struct{ file, kind, owner string }{
		{"tiles.pmtiles", "layers", "layer={id}"},
		{"tiles.mbtiles", "layers", "layer={id}"},
		{"raster.pmtiles", "tileowners", "{tk}={id}"},
	} {
		ok := []int{http.StatusNotFound}
		check := notShared
		if a.file == "raster.pmtiles" {
			// The public set's file draws its private member: callers
			// who may not see that member get the set's refusal (401
			// to anonymous callers, 404 to others), never the file.
			ok = append(ok, http.StatusUnauthorized)
			check = checks(notShared, archiveHidesMembers)
		}
		route := "/services/tiles/v1/{owner}/" + a.file
		p := "{origin}/services/tiles/v1/" + a.owner + "/" + a.file
		files := []target{{p, canView}, {p + "?key={key}", canView},
			{"{origin}/services;key={key}/tiles/v1/" + a.owner + "/" + a.file, canView}}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			// 404 to allowed callers too: the first request queues the
			// build and answers its state until the file is there.
			rules[m+" "+route] = rule{kind: a.kind, plain: true, ok: ok, targets: files, check: check}
			rules[m+" "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared,
				targets: []target{{p + ".json", canView}, {p + ".json?key={key}", canView}}}
		}
		rules["POST "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared,
			targets: []target{{p + ".json?minzoom=0&maxzoom=3", canEdit}}}
		rules["OPTIONS "+route] = rule{kind: a.kind, plain: true, check: notShared, targets: []target{{p, anyone}}}
		rules["OPTIONS "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared, targets: []target{{p + ".json", anyone}}}
	}
}

// archiveHidesMembers checks that a set's raster archive, which draws its
// members, is served only to those who may view every member (the
// public set holds the private layer), and that a 401 is the refusal of
// that member to an anonymous caller, not of an owner they may use.
func archiveHidesMembers(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response) {
	t.Helper()
	public, member := f.objects["sets"][1], f.objects["layers"][0]
	if resp.Status == http.StatusUnauthorized && o.levels[ro] >= lvView && (o != public || ro != anonymous) {
		t.Errorf("%s as %s: 401, want the archive", path, ro)
	}
	if o == public && resp.Status == http.StatusOK && member.levels[ro] < lvView {
		t.Errorf("%s as %s: the set's archive, which draws %s, served to a caller who may not view it", path, ro, member.name)
	}
}
