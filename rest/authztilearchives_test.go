package rest_test

import (
	"net/http"

	"github.com/go-chi/chi/v5"

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
		route := "/services/tiles/v1/{owner}/" + a.file
		p := "{origin}/services/tiles/v1/" + a.owner + "/" + a.file
		files := []target{{p, canView}, {p + "?key={key}", canView},
			{"{origin}/services;key={key}/tiles/v1/" + a.owner + "/" + a.file, canView}}
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			// 404 to allowed callers too: the first request queues the
			// build and answers its state until the file is there.
			rules[m+" "+route] = rule{kind: a.kind, plain: true, ok: []int{http.StatusNotFound}, targets: files, check: notShared}
			rules[m+" "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared,
				targets: []target{{p + ".json", canView}, {p + ".json?key={key}", canView}}}
		}
		rules["POST "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared,
			targets: []target{{p + ".json?minzoom=0&maxzoom=3", canEdit}}}
		rules["OPTIONS "+route] = rule{kind: a.kind, plain: true, check: notShared, targets: []target{{p, anyone}}}
		rules["OPTIONS "+route+".json"] = rule{kind: a.kind, plain: true, check: notShared, targets: []target{{p + ".json", anyone}}}
	}
}
