package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/geo/country"
	"github.com/geopub/geopub/internal/search"
)

// The catalogue: /data/ (the published version of every dataset the
// caller may see), /data/latest/ (the latest version of each, drafts
// included for those who may edit them, with version.status) and
// /users/me/data/ (the caller's own), all answered by the search engine
// (internal/search) with the query language of catalogquery.go.
//
// Entries are heterogeneous (api-shapes §4.1, §4.3): each is its
// dataset's own list representation with `type`, `kind` and `title`;
// `Expand: list` gives the full representation (plus `title` and `kind`),
// `list.publisher` inlines the publisher and `list.styles` the styles
// (none yet: an empty list).

// expandCatalog are the expansions the catalogue lists offer (the
// desktop plugin sends `list,list.publisher,list.styles,list.data.source_summary`;
// unknown names are ignored).
var expandCatalog = []string{"list", "list.publisher", "list.styles"}

func (a *API) catalogRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
	r.Get("/data", a.handle(a.listCatalog(catalogAll)))
	r.Get("/data/latest", a.handle(a.listCatalog(catalogLatest)))
	r.Get("/users/me/data", a.handle(a.listCatalog(catalogMine)))
}

// catalogList says which catalogue list a handler serves.
type catalogList int

const (
	catalogAll catalogList = iota
	catalogLatest
	catalogMine
)

func (a *API) listCatalog(which catalogList) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cr, err := catalogQuery(r, which != catalogAll)
		if err != nil {
			return err
		}
		ex, err := expandOf(r, expandCatalog)
		if err != nil {
			return err
		}
		var page *graph.CatalogPage
		if which == catalogMine {
			page, err = a.res.MyCatalogSearch(r.Context(), cr.query)
		} else {
			page, err = a.res.CatalogSearch(r.Context(), cr.query)
		}
		if err != nil {
			return err
		}
		return a.writeCatalog(w, r, cr, page, ex, cr.query.State == search.Latest)
	}
}

// writeCatalog writes a catalogue answer: the facet object when asked,
// else the page of entries, with the list headers either way
// (api-shapes §1.5: the desktop plugin reads X-Resource-Range's total on
// every /data/ answer, `0-0/0` when nothing matched).
func (a *API) writeCatalog(w http.ResponseWriter, r *http.Request, cr catalogRequest, page *graph.CatalogPage, ex expansions, latest bool) error {
	pr := pageResult{page: cr.page.Number, size: cr.page.Size, total: page.Result.TotalCount, nextCursor: page.Result.NextCursor}
	if cr.facets {
		f, err := a.facetsJSON(r, cr, page.Result.Facets)
		if err != nil {
			return err
		}
		a.writePage(w, r, pr, catalogSortRels, f)
		return nil
	}
	body := make([]any, 0, len(page.Entries))
	for _, e := range page.Entries {
		js, err := a.catalogEntry(r, e, ex, latest)
		if err != nil {
			return err
		}
		body = append(body, js)
	}
	pr.count = len(body)
	a.writePage(w, r, pr, catalogSortRels, body)
	return nil
}

// catalogSummary is a catalogue entry's summary form: what the desktop
// plugin and the Python client read from list results (api-shapes §4.1,
// §4.3) that every dataset type has.
type catalogSummary struct {
	ID               any        `json:"id"`
	URL              string     `json:"url"`
	URLHTML          string     `json:"url_html"`
	Type             string     `json:"type"`
	Kind             string     `json:"kind"`
	Title            string     `json:"title"`
	CreatedAt        *time.Time `json:"created_at,omitempty"`
	UpdatedAt        *time.Time `json:"updated_at,omitempty"`
	FirstPublishedAt *time.Time `json:"first_published_at"`
	PublishedAt      *time.Time `json:"published_at"`
	// Version is the described version's record on /data/latest/
	// (its status: api-shapes §4.1 "with version.status").
	Version   *catalogVersion `json:"version,omitempty"`
	Publisher any             `json:"publisher,omitempty"`
	Styles    any             `json:"styles,omitempty"`
	// Deprecated: the dataset's deprecation notice, null when it is not
	// deprecated (and for sources, which are not datasets).
	Deprecated *deprecatedJSON `json:"deprecated"`
}

// catalogVersion is the version part of a /data/latest/ summary. Status
// is what the version.status filter matches (as the index holds it):
// "published" for a published version, else a layer's or table's import
// status (pending, importing, ok, failed, cancelled) or "ok"; State is
// the version's state (draft, published).
type catalogVersion struct {
	ID     int    `json:"id"`
	URL    string `json:"url"`
	Status string `json:"status"`
	State  string `json:"state"`
}

// versionStatus is a catalogue version's status: see catalogVersion.
func versionStatus(state, importStatus string) string {
	switch {
	case state == "published":
		return "published"
	case importStatus != "":
		return importStatus
	}
	return "ok"
}

// catalogExtra are the catalogue fields set on a full representation:
// title and kind always, type where the representation lacks it (or,
// for sources, names the source type, which moves to source_type).
type catalogExtra struct {
	Title, Kind, Type, SourceType string
	Publisher, Styles             any
}

// withCatalogFields renders a full representation with the catalogue's
// fields set on it.
func withCatalogFields(v any, x catalogExtra) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	set := func(k string, v any) error {
		raw, err := json.Marshal(v)
		m[k] = raw
		return err
	}
	fields := map[string]any{"title": x.Title, "kind": x.Kind}
	for k, v := range map[string]any{"type": x.Type, "source_type": x.SourceType} {
		if v != "" {
			fields[k] = v
		}
	}
	if x.Publisher != nil {
		fields["publisher"] = x.Publisher
	}
	if x.Styles != nil {
		fields["styles"] = x.Styles
	}
	for k, v := range fields {
		if err := set(k, v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// catalogEntry renders one entry: the summary, or with Expand: list the
// dataset's full representation as of the listed version (the latest on
// /data/latest/ and /users/me/data/, else the published one).
func (a *API) catalogEntry(r *http.Request, e graph.CatalogEntry, ex expansions, latest bool) (any, error) {
	ctx := r.Context()
	l := a.links(r)
	var full any
	var sum catalogSummary
	var x catalogExtra
	var userID int
	var groupID *int
	switch {
	case e.Layer != nil:
		ly := e.Layer
		var v *ent.LayerVersion
		if latest {
			lv, err := a.res.Layer().LatestVersion(ctx, ly)
			if err != nil {
				return nil, err
			}
			v = lv
		}
		js, err := a.renderLayer(r, ly, v)
		if err != nil {
			return nil, err
		}
		full = js
		kind := js.Kind
		if ly.Type == layer.TypeTable {
			kind = "table" // the catalogue's kind of tables (api-shapes §4.2)
		}
		sum = catalogSummary{ID: ly.ID, URL: js.URL, URLHTML: js.URLHTML, Type: js.Type, Kind: kind, Title: js.Name,
			CreatedAt: &js.CreatedAt, UpdatedAt: &js.UpdatedAt, FirstPublishedAt: ly.FirstPublishedAt, PublishedAt: ly.PublishedAt,
			Deprecated: js.Deprecated}
		if latest {
			sum.Version = &catalogVersion{ID: js.Version.ID, URL: js.Version.URL, Status: versionStatus(js.Version.State, js.Version.Status), State: js.Version.State}
		}
		userID, groupID = ly.UserID, ly.GroupID
	case e.Set != nil:
		s := e.Set
		var v *ent.SetVersion
		if latest {
			sv, err := a.res.Set().LatestVersion(ctx, s)
			if err != nil {
				return nil, err
			}
			v = sv
		}
		js, err := a.renderSet(r, s, v, false)
		if err != nil {
			return nil, err
		}
		full = js
		sum = catalogSummary{ID: s.ID, URL: js.URL, URLHTML: js.URLHTML, Type: js.Type, Kind: "set", Title: js.Title,
			CreatedAt: &js.CreatedAt, UpdatedAt: &js.UpdatedAt, FirstPublishedAt: s.FirstPublishedAt, PublishedAt: s.PublishedAt,
			Deprecated: js.Deprecated}
		if latest {
			sum.Version = &catalogVersion{ID: js.Version.ID, URL: js.Version.URL, Status: versionStatus(js.Version.State, ""), State: js.Version.State}
		}
		userID, groupID = s.UserID, s.GroupID
	case e.Document != nil:
		d := e.Document
		var v *ent.DocumentVersion
		if latest {
			dv, err := a.res.Document().LatestVersion(ctx, d)
			if err != nil {
				return nil, err
			}
			v = dv
		}
		// Documents are listed in their list form, expanded or not
		// (api-shapes §4.1 shows it for /data/ entries).
		js, err := a.renderDocument(r, d, v, false)
		if err != nil {
			return nil, err
		}
		full, x.Type = js, "document"
		sum = catalogSummary{ID: d.ID, URL: js.URL, URLHTML: js.URLHTML, Type: "document", Kind: "document", Title: js.Name,
			CreatedAt: &d.CreatedAt, UpdatedAt: &d.UpdatedAt, FirstPublishedAt: d.FirstPublishedAt, PublishedAt: d.PublishedAt,
			Deprecated: js.Deprecated}
		if latest && v != nil {
			sum.Version = &catalogVersion{ID: v.ID, URL: l.api("documents/%d/versions/%d/", d.ID, v.ID), Status: versionStatus(string(v.State), ""), State: string(v.State)}
		}
		userID, groupID = d.UserID, d.GroupID
	case e.Item != nil:
		it := e.Item
		var v *ent.CatalogItemVersion
		if latest {
			iv, err := a.res.CatalogItem().LatestVersion(ctx, it)
			if err != nil {
				return nil, err
			}
			v = iv
		}
		js, err := a.renderItem(r, it, v)
		if err != nil {
			return nil, err
		}
		full = js
		sum = catalogSummary{ID: js.ID, URL: js.URL, URLHTML: js.URLHTML, Type: js.Type, Kind: "item", Title: js.Title,
			CreatedAt: &js.CreatedAt, UpdatedAt: &js.UpdatedAt, FirstPublishedAt: it.FirstPublishedAt, PublishedAt: it.PublishedAt,
			Deprecated: js.Deprecated}
		if latest {
			sum.Version = &catalogVersion{ID: js.Version.ID, URL: js.Version.URL, Status: versionStatus(js.Version.State, ""), State: js.Version.State}
		}
		userID, groupID = it.UserID, it.GroupID
	case e.Source != nil:
		s := e.Source
		js, err := a.renderSource(r, s)
		if err != nil {
			return nil, err
		}
		full, x.Type, x.SourceType = js, "source", js.Type
		sum = catalogSummary{ID: s.ID, URL: js.URL, URLHTML: js.URLHTML, Type: "source", Kind: "source", Title: s.Title,
			CreatedAt: &s.CreatedAt, UpdatedAt: &s.UpdatedAt}
		userID, groupID = s.UserID, s.GroupID
	}
	if ex["list.publisher"] {
		p, err := a.publisherOf(r, userID, groupID)
		if err != nil {
			return nil, err
		}
		x.Publisher = p
	}
	if ex["list.styles"] && (e.Layer != nil || e.Set != nil) {
		x.Styles = []any{}
	}
	if !ex["list"] {
		sum.Publisher, sum.Styles = x.Publisher, x.Styles
		return sum, nil
	}
	x.Title, x.Kind = sum.Title, sum.Kind
	return withCatalogFields(full, x)
}

// facetJSON is one list facet entry (spec: "Each entry has key (value to
// filter by) and total (count); geotag and category entries also carry
// name; geotag entries carry has_children and geom").
type facetJSON struct {
	Key         string  `json:"key"`
	Total       int     `json:"total"`
	Name        *string `json:"name,omitempty"`
	HasChildren *bool   `json:"has_children,omitempty"`
	Geom        *any    `json:"geom,omitempty"`
}

// rangeJSON is the span of a date or number facet.
type rangeJSON struct {
	Min any `json:"min"`
	Max any `json:"max"`
}

// facetsJSON renders the engine's facets: the spec's list facets (tag,
// group, geotag, category, license, raster_resolution, raster_band) and
// kind as {key, total} lists; created_at and updated_at as {min, max}
// (api-shapes §4.4), null when nothing matched; raster_resolution_range
// {min, max} for the desktop plugin's slider (the spec makes
// raster_resolution itself a list).
//
// Geotag entries carry has_children (false: an item's geotags are flat)
// and geom: null, or with geotag.geometry=true the geotag's GeoJSON
// geometry from an item the caller may see.
func (a *API) facetsJSON(r *http.Request, cr catalogRequest, f *search.Facets) (map[string]any, error) {
	if f == nil {
		f = &search.Facets{}
	}
	var geoms map[string]any
	if cr.geotagGeometry && len(f.Geotag) > 0 {
		names := make([]string, 0, len(f.Geotag))
		for _, e := range f.Geotag {
			names = append(names, e.Key)
		}
		var err error
		if geoms, err = a.res.GeotagGeometries(r.Context(), names); err != nil {
			return nil, err
		}
	}
	list := func(es []search.FacetEntry, named, geotag bool) []facetJSON {
		out := make([]facetJSON, 0, len(es))
		for _, e := range es {
			fj := facetJSON{Key: e.Key, Total: e.Total}
			if named {
				name := e.Name
				if name == "" {
					name = e.Key
				}
				fj.Name = &name
			}
			if geotag {
				no := false
				geom := geoms[e.Key]
				fj.HasChildren, fj.Geom = &no, &geom
			}
			out = append(out, fj)
		}
		return out
	}
	out := map[string]any{
		"tag":               list(f.Tag, false, false),
		"group":             list(f.Group, true, false),
		"geotag":            list(f.Geotag, true, true),
		"category":          list(f.Category, true, false),
		"license":           list(f.License, false, false),
		"raster_resolution": list(f.RasterResolution, false, false),
		"raster_band":       list(f.RasterBand, false, false),
		"kind":              list(f.Kind, false, false),
	}
	timeRange := func(tr *search.TimeRange) any {
		if tr == nil {
			return nil
		}
		return rangeJSON{Min: tr.Min, Max: tr.Max}
	}
	out["created_at"] = timeRange(f.CreatedAt)
	out["updated_at"] = timeRange(f.UpdatedAt)
	if rr := f.RasterResolutionRange; rr != nil {
		out["raster_resolution_range"] = rangeJSON{Min: rr.Min, Max: rr.Max}
	} else {
		out["raster_resolution_range"] = nil
	}
	return out, nil
}

// publisherID is a publisher's id (api-shapes §10.3): "user:{id}" for a
// user, "group:{id}" for a site group (any id not of the form
// "<main-site-domain>:{n}" is a site publisher to the desktop plugin).
func publisherID(userID int, groupID *int) string {
	if groupID != nil {
		return "group:" + strconv.Itoa(*groupID)
	}
	return "user:" + strconv.Itoa(userID)
}

// catalogFilters are the filter choices OPTIONS on a catalogue list
// describes (api-shapes §4.1): the countries of the desktop plugin's
// "popular in country" menu, `global` (no bias) first, then every ISO
// 3166-1 country by name.
func catalogFilters() map[string]any {
	choices := []country.Choice{{Value: "global", DisplayName: "Global"}}
	choices = append(choices, country.Choices()...)
	return map[string]any{"country": map[string]any{"choices": choices}}
}
