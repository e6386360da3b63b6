package catalogrecords

import (
	"strings"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/cql2"
)

// Queryables are the properties a filter may name, with what each holds.
// Doors map their standard's names onto these (CSW's dc:title and
// csw:AnyText, Records' q and type).
var Queryables = map[string]string{
	"id":          "the record identifier (layer-12, item-c7)",
	"type":        "the dataset type: layer, table, set, document or item",
	"kind":        "vector, raster, grid, pointcloud, table, set, document or item",
	"title":       "the title",
	"description": "the abstract",
	"keywords":    "the keywords, joined by commas",
	"themes":      "the category names, joined by commas",
	"anytext":     "title, abstract, keywords, themes and publisher, joined",
	"publisher":   "the publishing group's or user's name",
	"license":     "the licence type (cc-by, public-domain, ...)",
	"created":     "when the dataset was created (RFC 3339)",
	"updated":     "when the published version was last modified (RFC 3339)",
	"published":   "when the version was published (RFC 3339)",
	"geometry":    "the extent, a polygon in EPSG:4326 (records without one have none)",
}

// Feature is r as CQL2 evaluates it (internal/cql2), with the properties
// of Queryables.
func (r *Record) Feature() *cql2.Feature {
	themes := make([]string, len(r.Themes))
	for i, t := range r.Themes {
		themes[i] = t.Name
	}
	props := map[string]any{
		"id":          r.Identifier,
		"type":        string(r.Type),
		"kind":        r.Kind,
		"title":       r.Title,
		"description": r.Abstract,
		"keywords":    strings.Join(r.Keywords, ", "),
		"themes":      strings.Join(themes, ", "),
		"anytext":     strings.Join([]string{r.Title, r.Abstract, strings.Join(r.Keywords, ", "), strings.Join(themes, ", "), r.Publisher.Name}, "\n"),
		"publisher":   r.Publisher.Name,
		"created":     stamp(r.Created),
		"updated":     stamp(r.Modified),
		"published":   stamp(r.Published),
	}
	if r.License != nil {
		props["license"] = r.License.Type
	}
	return &cql2.Feature{
		Props:      props,
		Geometry:   r.Geometry,
		IsGeometry: func(name string) bool { return name == "geometry" },
	}
}

// Geometry is r's extent as a polygon, nil when it has none.
func (r *Record) Geometry() geom.T {
	if len(r.BBox) != 4 {
		return nil
	}
	w, s, e, n := r.BBox[0], r.BBox[1], r.BBox[2], r.BBox[3]
	p, err := geom.NewPolygon(geom.XY).SetCoords([][]geom.Coord{{{w, s}, {e, s}, {e, n}, {w, n}, {w, s}}})
	if err != nil {
		return nil
	}
	return p
}

// stamp formats t as RFC 3339 in UTC; nil for the zero time, so filters on
// a missing date are unknown rather than false.
func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}
