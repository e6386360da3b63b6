package rest

import (
	"net/http"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/search"
)

// The dataset lists (/layers/, /tables/, /sets/, /documents/, /items/,
// /sources/) take the catalogue's query language (spec: "Search-backed
// lists ... share query parameters documented on /data/"), restricted to
// their own type, with their own shapes, scopes and headers.
//
// A list answers from the store, as it did before the catalogue, when
// the request uses only paging (and sort on sets): existing clients keep
// their id order. /layers/ holds layers and tables (api-shapes §2: the
// Python client's tables accessor uses the /layers/ paths); kind narrows
// either path. It answers from the search engine (kept current by
// internal/searchfeed) when the request uses q, any filter, facets, a
// sort the store path lacks or a cursor. /sources/ keeps q as the store's
// substring match, since its type filter is the store's.

// engineParams are the query-language parameters only the engine reads.
var engineParams = []string{
	"kind", "data.geometry_type", "tag", "category", "geotag", "group", "user", "from", "license.type", "license.version",
	"raster_band", "public", "is_starred", "has_z", "has_pk", "is_imagery", "raster_resolution.gt", "raster_resolution.lt",
	"created_at.after", "created_at.before", "updated_at.after", "updated_at.before", "facets", "cursor", "geotag.geometry",
}

// usesEngine reports whether a list request needs the search engine;
// storeSorts says whether the list's store path reads sort.
func usesEngine(r *http.Request, storeSorts bool) bool {
	v := r.URL.Query()
	for _, p := range engineParams {
		if v.Has(p) {
			return true
		}
	}
	return v.Get("sort") != "" && !storeSorts
}

// datasetListUsesEngine is usesEngine for the lists of datasets the
// engine indexes in full (layers, tables, sets, documents, items): there
// q is the catalogue's free text too (stemmed words, relevance order),
// not the store's substring match.
func datasetListUsesEngine(r *http.Request, storeSorts bool) bool {
	return usesEngine(r, storeSorts) || r.URL.Query().Get("q") != ""
}

// entryRenderer renders one dataset of a list in the list's own shape.
type entryRenderer func(r *http.Request, e graph.CatalogEntry, ex expansions) (any, error)

// searchList answers a dataset list from the search engine: the query
// language of catalogquery.go, the list's type, its expansions, its
// shape (render) and its Link sort relations; facets=true answers the
// facet object.
func (a *API) searchList(w http.ResponseWriter, r *http.Request, t search.Type, offered []string, sorts []sortRel, render entryRenderer, more ...search.Type) error {
	cr, err := catalogQuery(r, false)
	if err != nil {
		return err
	}
	if t == search.TypeSource {
		// /sources/'s own filter, kept beside the catalogue's.
		if cr.query.SourceTypes, err = queryOf(r).oneOf("type", sourceTypes...); err != nil {
			return err
		}
	}
	ex, err := expandOf(r, offered)
	if err != nil {
		return err
	}
	page, err := a.res.DatasetListSearch(r.Context(), cr.query, t, more...)
	if err != nil {
		return err
	}
	pr := pageResult{page: cr.page.Number, size: cr.page.Size, total: page.Result.TotalCount, nextCursor: page.Result.NextCursor}
	if cr.facets {
		f, err := a.facetsJSON(r, cr, page.Result.Facets)
		if err != nil {
			return err
		}
		a.writePage(w, r, pr, sorts, f)
		return nil
	}
	body := make([]any, 0, len(page.Entries))
	for _, e := range page.Entries {
		js, err := render(r, e, ex)
		if err != nil {
			return err
		}
		body = append(body, js)
	}
	pr.count = len(body)
	a.writePage(w, r, pr, sorts, body)
	return nil
}
