package graph

import (
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/textrules"
)

// The GraphQL search's input, read into the engine's query: the same
// filters as REST /data/ (rest/catalogquery.go reads the query string
// into the same search.Query).

// searchSorts maps the GraphQL sorts onto the engine's.
var searchSorts = map[SearchSort]search.Sort{
	SearchSortRelevance: search.SortRelevance, SearchSortPopularity: search.SortPopularity,
	SearchSortName: search.SortName, SearchSortNameDesc: search.SortNameDesc,
	SearchSortCreated: search.SortCreated, SearchSortCreatedOldest: search.SortCreatedOld,
	SearchSortUpdated: search.SortUpdated, SearchSortUpdatedOldest: search.SortUpdatedOld,
}

// defaultSearchFirst is the page size without first.
const defaultSearchFirst = 20

// searchQuery checks a search's arguments and builds its query: first
// between 1 and 200, text values under the text rules.
func searchQuery(in *SearchInput, first *int, after *string) (search.Query, error) {
	var q search.Query
	q.Limit = defaultSearchFirst
	if first != nil {
		if *first < 1 || *first > paging.MaxSize {
			return q, apperr.Field("first", "first must be between 1 and 200.")
		}
		q.Limit = *first
	}
	if after != nil && *after != "" {
		if err := textrules.Check("after", *after); err != nil {
			return q, err
		}
		q.Cursor = *after
	}
	if in == nil {
		return q, nil
	}
	if in.Q != nil {
		q.Q = *in.Q
	}
	if in.State != nil && *in.State == SearchStateLatest {
		q.State = search.Latest
	}
	lists := []struct {
		name string
		in   []string
		out  *[]string
	}{
		{"kind", in.Kind, &q.Kinds}, {"geometryType", in.GeometryType, &q.GeometryTypes}, {"tag", in.Tag, &q.Tags},
		{"category", in.Category, &q.Categories}, {"geotag", in.Geotag, &q.Geotags}, {"licenseType", in.LicenseType, &q.LicenseTypes},
		{"licenseVersion", in.LicenseVersion, &q.LicenseVersions}, {"rasterBand", in.RasterBand, &q.RasterBands},
		{"versionStatus", in.VersionStatus, &q.VersionStatuses},
	}
	for _, l := range lists {
		for _, v := range l.in {
			if err := textrules.Check(l.name, v); err != nil {
				return q, err
			}
			if len(v) > 200 {
				return q, apperr.Field(l.name, "Each value takes at most 200 characters.")
			}
		}
		*l.out = l.in
	}
	for i, k := range q.Kinds {
		if k == "catalogitem" {
			q.Kinds[i] = "item"
		}
	}
	q.GroupIDs, q.UserIDs = in.Group, in.User
	q.Public, q.IsStarred, q.HasZ, q.HasPK, q.IsImagery = in.Public, in.IsStarred, in.HasZ, in.HasPk, in.IsImagery
	q.RasterResolutionGT, q.RasterResolutionLT = in.RasterResolutionGt, in.RasterResolutionLt
	q.CreatedAfter, q.CreatedBefore, q.UpdatedAfter, q.UpdatedBefore = in.CreatedAfter, in.CreatedBefore, in.UpdatedAfter, in.UpdatedBefore
	if in.Sort != nil {
		q.Sort = searchSorts[*in.Sort]
	}
	return q, nil
}

// searchConnection renders a catalogue page as a Relay connection: each
// edge's cursor is the engine's keyset cursor after it.
func searchConnection(page *CatalogPage, afterGiven bool) *SearchConnection {
	out := &SearchConnection{Edges: []*SearchEdge{}, TotalCount: page.Result.TotalCount,
		PageInfo: &SearchPageInfo{HasNextPage: page.Result.NextCursor != "", HasPreviousPage: afterGiven}}
	for _, e := range page.Entries {
		var node Dataset
		switch {
		case e.Layer != nil:
			node = e.Layer
		case e.Set != nil:
			node = e.Set
		case e.Document != nil:
			node = e.Document
		case e.Item != nil:
			node = e.Item
		case e.Source != nil:
			node = e.Source
		}
		out.Edges = append(out.Edges, &SearchEdge{Node: node, Cursor: e.Hit.Cursor})
	}
	if n := len(out.Edges); n > 0 {
		start, end := out.Edges[0].Cursor, out.Edges[n-1].Cursor
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = &start, &end
	}
	if f := page.Result.Facets; f != nil {
		out.Facets = searchFacets(f)
	}
	return out
}

func searchFacets(f *search.Facets) *SearchFacets {
	list := func(es []search.FacetEntry, named bool) []*SearchFacetEntry {
		out := make([]*SearchFacetEntry, 0, len(es))
		for _, e := range es {
			fe := &SearchFacetEntry{Key: e.Key, Total: e.Total}
			if named {
				name := e.Name
				if name == "" {
					name = e.Key
				}
				fe.Name = &name
			}
			out = append(out, fe)
		}
		return out
	}
	out := &SearchFacets{
		Tag: list(f.Tag, false), Group: list(f.Group, true), Geotag: list(f.Geotag, true), Category: list(f.Category, true),
		License: list(f.License, false), RasterResolution: list(f.RasterResolution, false), RasterBand: list(f.RasterBand, false),
		Kind: list(f.Kind, false),
	}
	if f.CreatedAt != nil {
		out.CreatedAt = &TimeRange{Min: f.CreatedAt.Min, Max: f.CreatedAt.Max}
	}
	if f.UpdatedAt != nil {
		out.UpdatedAt = &TimeRange{Min: f.UpdatedAt.Min, Max: f.UpdatedAt.Max}
	}
	if r := f.RasterResolutionRange; r != nil {
		out.RasterResolutionRange = &FloatRange{Min: r.Min, Max: r.Max}
	}
	return out
}
