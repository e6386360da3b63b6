package rest

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/publishers"
	"github.com/geopub/geopub/internal/search"
)

// The desktop plugin's browsing endpoints (api-shapes §10.1): publishers
// and the explore sections.

func (a *API) exploreRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
	r.Get("/publishers", a.handle(a.listPublishers))
	r.Get("/publishers/{pid:(?:group|user):[0-9]+}", a.handle(a.getPublisher))
	r.Get("/explore-sections", a.handle(a.listExploreSections))
	r.Get("/explore-sections/{slug:[a-z-]+}", a.handle(a.getExploreSection))
}

// publisherKinds are the publisher types (api-shapes §10.1): site groups
// and users; this site mirrors no other, so "mirror" matches nothing.
var publisherKinds = []string{"site", "user", "mirror"}

// listPublishers is GET /publishers/: the publishers the caller may see
// with their dataset_count, filtered by type and q, sorted by popularity
// (most datasets first), name or -name; facets=true answers
// {type: [{key, total}]} instead.
func (a *API) listPublishers(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	kinds, err := q.oneOf("type", publisherKinds...)
	if err != nil {
		return err
	}
	if _, err := q.boolPtr("public"); err != nil {
		return err
	}
	sortBy, err := q.oneOf("sort", "popularity", "name", "-name")
	if err != nil {
		return err
	}
	facets, err := q.boolPtr("facets")
	if err != nil {
		return err
	}
	number, size, err := q.paging()
	if err != nil {
		return err
	}
	pg, err := paging.New(number, size, paging.MaxSize)
	if err != nil {
		return err
	}
	s := publishers.Sort("popularity")
	if len(sortBy) > 0 {
		s = publishers.Sort(sortBy[0])
	}
	if len(kinds) > 0 && !slices.Contains(kinds, "site") && !slices.Contains(kinds, "user") {
		kinds = []string{"none"} // mirrors only: there are none
	}
	ps, err := a.res.Publishers(r.Context(), q.v.Get("q"), kinds, s)
	if err != nil {
		return err
	}
	l := a.links(r)
	if facets != nil && *facets {
		counts := map[string]int{}
		for _, p := range ps {
			counts[publisherType(p)]++
		}
		types := []facetJSON{}
		for _, k := range []string{"site", "user"} {
			if counts[k] > 0 {
				types = append(types, facetJSON{Key: k, Total: counts[k]})
			}
		}
		a.writePage(w, r, pageResult{page: 1, size: pg.Size, total: len(ps)}, nil, map[string]any{"type": types})
		return nil
	}
	start := min(pg.Offset(), len(ps))
	end := min(start+pg.Size, len(ps))
	out := make([]publisherJSON, 0, end-start)
	for _, p := range ps[start:end] {
		out = append(out, l.publisher(p))
	}
	a.writePage(w, r, pageResult{page: pg.Number, size: pg.Size, total: len(ps), count: len(out)}, nil, out)
	return nil
}

// getPublisher is GET /publishers/{group:id|user:id}/: one publisher the
// caller may see (one with a published dataset they may see), else 404.
func (a *API) getPublisher(w http.ResponseWriter, r *http.Request) error {
	kind, id, ok := parsePublisherID(chi.URLParam(r, "pid"))
	if !ok {
		return apperr.ErrNotFound
	}
	want := "site"
	if kind == "user" {
		want = "user"
	}
	ps, err := a.res.Publishers(r.Context(), "", []string{want}, "popularity")
	if err != nil {
		return err
	}
	for _, p := range ps {
		if (p.Group != nil && kind == "group" && p.Group.ID == id) || (p.User != nil && kind == "user" && p.User.ID == id) {
			writeJSON(w, http.StatusOK, a.links(r).publisher(p))
			return nil
		}
	}
	return apperr.New(apperr.NotFound, "Publisher %q not found.", chi.URLParam(r, "pid"))
}

func publisherType(p publishers.Publisher) string {
	if p.Group != nil {
		return "site"
	}
	return "user"
}

func (l links) publisher(p publishers.Publisher) publisherJSON {
	var out publisherJSON
	if p.Group != nil {
		out = l.groupPublisher(p.Group)
	} else {
		out = l.userPublisher(p.User)
	}
	n := p.DatasetCount
	out.DatasetCount = &n
	return out
}

// exploreSection is one entry of GET /explore-sections/.
type exploreSection struct {
	Slug        string `json:"slug"`
	Label       string `json:"label"`
	Description string `json:"description"`
	IconURL     string `json:"icon_url"`
}

// exploreIcon is a plain square icon as a data URL (api-shapes §10.1:
// icon_url may be data:image/svg+xml;base64,…).
const exploreIcon = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3Qgd2lkdGg9IjE2IiBoZWlnaHQ9IjE2IiByeD0iMyIgZmlsbD0iIzMzNjY5OSIvPjwvc3ZnPg=="

var exploreSections = []exploreSection{
	{"popular", "Popular", "The most viewed and downloaded datasets.", exploreIcon},
	{"recent", "Recent", "The datasets added and updated most recently.", exploreIcon},
	{"browse", "Browse", "Datasets by kind.", exploreIcon},
	{"publishers", "Publishers", "The groups and people who publish datasets.", exploreIcon},
}

func (a *API) listExploreSections(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.RequireCatalog(r.Context()); err != nil {
		return err
	}
	return writeList(a, w, r, exploreSections)
}

// explorePanel is one panel of an explore section: items are
// {kind: "layer.<kind>", content: <catalogue entry>} (api-shapes §10.1;
// the plugin keeps the items whose kind starts with "layer."; other
// datasets are set.set, document.document, item.item).
type explorePanel struct {
	Title string        `json:"title"`
	Items []exploreItem `json:"items"`
}

type exploreItem struct {
	Kind    string `json:"kind"`
	Content any    `json:"content"`
}

// panelQuery is what one panel lists.
type panelQuery struct {
	title string
	sort  search.Sort
	kinds []string
}

var explorePanels = map[string][]panelQuery{
	"popular": {{"Popular", search.SortPopularity, nil}},
	"recent":  {{"Recently added", search.SortCreated, nil}, {"Recently updated", search.SortUpdated, nil}},
	"browse": {
		{"Vector layers", search.SortPopularity, []string{"vector"}}, {"Raster layers", search.SortPopularity, []string{"raster"}},
		{"Grids", search.SortPopularity, []string{"grid", "attribute-grid"}}, {"Tables", search.SortPopularity, []string{"table"}},
		{"Sets", search.SortPopularity, []string{"set"}}, {"Documents", search.SortPopularity, []string{"document"}},
		{"Catalog items", search.SortPopularity, []string{"item"}},
	},
}

// getExploreSection is GET /explore-sections/{slug}/: {panels: [...]},
// each panel the first page_size (default 20) datasets of its query the
// caller may see, of the types item_type names (exploretypes.go), rendered as the catalogue renders them (Expand applies
// to each item's content); empty panels are left out.
func (a *API) getExploreSection(w http.ResponseWriter, r *http.Request) error {
	slug := chi.URLParam(r, "slug")
	q := queryOf(r)
	_, size, err := q.paging()
	if err != nil {
		return err
	}
	if size == nil {
		n := 20
		size = &n
	}
	pg, err := paging.New(nil, size, paging.MaxSize)
	if err != nil {
		return err
	}
	ex, err := expandOf(r, expandCatalog)
	if err != nil {
		return err
	}
	panels := []explorePanel{}
	if slug == "publishers" {
		ps, err := a.res.Publishers(r.Context(), "", nil, "popularity")
		if err != nil {
			return err
		}
		items := []exploreItem{}
		l := a.links(r)
		for _, p := range ps[:min(len(ps), pg.Size)] {
			items = append(items, exploreItem{Kind: "publisher." + publisherType(p), Content: l.publisher(p)})
		}
		if len(items) > 0 {
			panels = append(panels, explorePanel{Title: "Publishers", Items: items})
		}
		writeJSON(w, http.StatusOK, map[string]any{"panels": panels})
		return nil
	}
	queries, ok := explorePanels[slug]
	if !ok {
		return apperr.New(apperr.NotFound, "There is no explore section %q.", slug)
	}
	its, err := parseItemTypes(q)
	if err != nil {
		return err
	}
	for _, pq := range queries {
		kinds := its.panel(pq.kinds)
		if len(kinds) == 0 {
			continue
		}
		page, err := a.res.CatalogSearch(r.Context(), search.Query{Sort: pq.sort, Types: its.types, Kinds: kinds, Limit: pg.Size})
		if err != nil {
			return err
		}
		items := []exploreItem{}
		for _, e := range page.Entries {
			js, err := a.catalogEntry(r, e, ex, false)
			if err != nil {
				return err
			}
			items = append(items, exploreItem{Kind: exploreItemKind(e.Hit), Content: js})
		}
		if len(items) > 0 {
			panels = append(panels, explorePanel{Title: pq.title, Items: items})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"panels": panels})
	return nil
}
