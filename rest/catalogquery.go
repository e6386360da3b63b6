package rest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/textrules"
)

// The catalogue's query language (spec "Conventions for list endpoints";
// api-shapes §1.6 and §4.2), read in this one place by every
// search-backed list: /data/, /data/latest/, /users/me/data/ and
// publishers' dataset counts.
//
//   - "Repeated values of one filter are OR-ed; different filters are
//     AND-ed": every filter but the booleans, numbers and dates repeats
//     (a comma-separated value counts as repeats too).
//   - "Unknown parameters are ignored; recognised parameters with invalid
//     values give 400": every error below names its parameter.
//   - Booleans are true/false in any case: the desktop plugin sends
//     Python's True and False (api-shapes §1.6).

// catalogKinds are the kind values a catalogue filter takes
// (api-shapes §4.2, plus the engine's own types).
var catalogKinds = []string{"vector", "raster", "grid", "attribute-grid", "pointcloud", "table", "set", "repo", "document",
	"layer", "item", "catalogitem", "source"}

// geometryTypes maps the data.geometry_type values onto the index's three
// geometry families (a multipolygon layer is a polygon layer).
var geometryTypes = map[string]string{
	"point": "point", "multipoint": "point", "linestring": "linestring", "multilinestring": "linestring",
	"polygon": "polygon", "multipolygon": "polygon",
}

// catalogSortRels are the spec's Link sort relations of search-backed
// lists: rel="sort-name" → ?sort=name, and so on.
var catalogSortRels = []sortRel{
	{"name", "name"}, {"name-desc", "-name"}, {"most-popular", "popularity"},
	{"recently-added", "created_at"}, {"recently-updated", "updated_at"},
}

// catalogRequest is a parsed catalogue request: the engine query and the
// page it was asked as.
type catalogRequest struct {
	query search.Query
	page  paging.Page
	// facets: the answer is the facet object instead of the list.
	facets bool
	// geotagGeometry: geotag facet entries carry their geometry.
	geotagGeometry bool
}

// catalogQuery parses a catalogue request's query string. latest allows
// the version.status filter (/data/latest/ only).
func catalogQuery(r *http.Request, latest bool) (catalogRequest, error) {
	q := queryOf(r)
	var out catalogRequest
	sq := &out.query
	number, size, err := q.paging()
	if err != nil {
		return out, err
	}
	if out.page, err = paging.New(number, size, paging.MaxSize); err != nil {
		return out, err
	}
	sq.Limit, sq.Offset = out.page.Size, out.page.Offset()
	if c := strings.TrimSpace(q.v.Get("cursor")); c != "" {
		// The cursor of page-next links: keyset paging from the previous
		// page's last hit, so a deep page costs what the first one does.
		if err := textrules.Check("cursor", c); err != nil {
			return out, err
		}
		sq.Cursor = c
	}
	sq.Q = q.v.Get("q")
	if err := textrules.Query("q", &sq.Q); err != nil {
		return out, err
	}

	if sq.Kinds, err = q.oneOf("kind", catalogKinds...); err != nil {
		return out, err
	}
	for i, k := range sq.Kinds {
		if k == "catalogitem" {
			sq.Kinds[i] = "item"
		}
	}
	gts, err := q.oneOf("data.geometry_type", "point", "multipoint", "linestring", "multilinestring", "polygon", "multipolygon")
	if err != nil {
		return out, err
	}
	for _, g := range gts {
		sq.GeometryTypes = appendOnce(sq.GeometryTypes, geometryTypes[g])
	}
	for name, dst := range map[string]*[]string{
		"tag": &sq.Tags, "category": &sq.Categories, "geotag": &sq.Geotags, "raster_band": &sq.RasterBands,
		"license.type": &sq.LicenseTypes, "license.version": &sq.LicenseVersions,
	} {
		if *dst, err = texts(q, name); err != nil {
			return out, err
		}
	}
	if latest {
		if sq.VersionStatuses, err = texts(q, "version.status"); err != nil {
			return out, err
		}
		sq.State = search.Latest
	}
	if sq.GroupIDs, err = ids(q, "group"); err != nil {
		return out, err
	}
	if sq.UserIDs, err = ids(q, "user"); err != nil {
		return out, err
	}
	if err := fromFilter(q, sq); err != nil {
		return out, err
	}
	for name, dst := range map[string]**bool{
		"public": &sq.Public, "is_starred": &sq.IsStarred, "has_z": &sq.HasZ, "has_pk": &sq.HasPK, "is_imagery": &sq.IsImagery,
	} {
		if *dst, err = q.boolPtr(name); err != nil {
			return out, err
		}
	}
	for name, dst := range map[string]**float64{"raster_resolution.gt": &sq.RasterResolutionGT, "raster_resolution.lt": &sq.RasterResolutionLT} {
		if *dst, err = number64(q, name); err != nil {
			return out, err
		}
	}
	for name, dst := range map[string]**time.Time{
		"created_at.after": &sq.CreatedAfter, "created_at.before": &sq.CreatedBefore,
		"updated_at.after": &sq.UpdatedAfter, "updated_at.before": &sq.UpdatedBefore,
	} {
		if *dst, err = parseTime(name, q.v.Get(name)); err != nil {
			return out, err
		}
	}
	if s := strings.TrimSpace(q.v.Get("sort")); s != "" {
		// The set lists' title sorts are the name sorts.
		s = strings.Replace(s, "title", "name", 1)
		sort, err := search.ParseSort(s)
		if err != nil {
			return out, apperr.Field("sort", "Select a valid choice: popularity, name, -name, created_at, -created_at, updated_at, -updated_at or relevance.")
		}
		sq.Sort = sort
	}
	facets, err := q.boolPtr("facets")
	if err != nil {
		return out, err
	}
	out.facets = facets != nil && *facets
	sq.Facets = out.facets
	geom, err := q.boolPtr("geotag.geometry")
	if err != nil {
		return out, err
	}
	out.geotagGeometry = geom != nil && *geom
	return out, nil
}

// texts reads a repeatable text filter; each value passes the text rules.
func texts(q query, name string) ([]string, error) {
	vals := q.all(name)
	for _, v := range vals {
		if err := textrules.Check(name, v); err != nil {
			return nil, err
		}
		if len(v) > 200 {
			return nil, apperr.Field(name, "Each value takes at most 200 characters.")
		}
	}
	if len(vals) > 100 {
		return nil, apperr.Field(name, "Give at most 100 values.")
	}
	return vals, nil
}

// ids reads a repeatable id filter.
func ids(q query, name string) ([]int, error) {
	var out []int
	for _, v := range q.all(name) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, apperr.Field(name, fmt.Sprintf("A valid id is required, not %q.", v))
		}
		out = append(out, n)
	}
	if len(out) > 100 {
		return nil, apperr.Field(name, "Give at most 100 values.")
	}
	return out, nil
}

// number64 reads an optional finite number.
func number64(q query, name string) (*float64, error) {
	s := strings.TrimSpace(q.v.Get(name))
	if s == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 1e300 || f < -1e300 {
		return nil, apperr.Field(name, fmt.Sprintf("A valid number is required, not %q.", s))
	}
	return &f, nil
}

// fromFilter reads `from` (api-shapes §4.2): "all" (or nothing) is every
// publisher; a publisher id (publishers/) names a group ("group:12") or a
// user ("user:4"), whose datasets are added to the group and user
// filters.
func fromFilter(q query, sq *search.Query) error {
	for _, v := range q.all("from") {
		if v == "all" {
			continue
		}
		kind, id, ok := parsePublisherID(v)
		if !ok {
			return apperr.Field("from", fmt.Sprintf("Use all or a publisher id (group:{id} or user:{id}), not %q.", v))
		}
		if kind == "user" {
			sq.UserIDs = append(sq.UserIDs, id)
		} else {
			sq.GroupIDs = append(sq.GroupIDs, id)
		}
	}
	return nil
}

// parsePublisherID reads "group:{id}" or "user:{id}".
func parsePublisherID(s string) (kind string, id int, ok bool) {
	kind, rest, found := strings.Cut(s, ":")
	if !found || (kind != "group" && kind != "user") {
		return "", 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return "", 0, false
	}
	return kind, n, true
}

func appendOnce(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
