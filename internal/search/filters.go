package search

import (
	"strings"

	"github.com/geopub/geopub/internal/access"
)

// conds collects AND-ed SQL conditions over the doc row `d`.
type conds struct {
	parts []string
	args  []any
}

func (c *conds) add(sql string, args ...any) {
	c.parts = append(c.parts, sql)
	c.args = append(c.args, args...)
}

// in adds "expr IN (values)" when values is not empty.
func in[T any](c *conds, expr string, values []T) {
	if len(values) == 0 {
		return
	}
	c.add(expr+" IN ("+marks(len(values))+")", anys(values)...)
}

// child adds the filter on a multi-valued child table: the doc has one
// of values.
func child(c *conds, table, col string, values []string) {
	if len(values) == 0 {
		return
	}
	c.add("d.id IN (SELECT doc FROM "+table+" WHERE "+col+" IN ("+marks(len(values))+"))", anys(values)...)
}

func boolean(c *conds, expr string, v *bool) {
	if v != nil {
		c.add(expr+" = ?", *v)
	}
}

// buildFilters renders q's filters, its state, its full-text match (on
// PostgreSQL) and the caller's permissions as one WHERE condition.
func buildFilters(q Query, pg bool, terms []string) (string, []any) {
	var c conds
	c.add("d.state = ?", string(q.State))
	if pg && len(terms) > 0 {
		c.add("d.tsv @@ tq")
	}
	in(&c, "d.doc_type", q.Types)
	kindFilter(&c, q.Kinds, q.GeometryTypes)
	child(&c, "search_doc_tags", "tag", q.Tags)
	child(&c, "search_doc_categories", "key", q.Categories)
	child(&c, "search_doc_geotags", "key", q.Geotags)
	child(&c, "search_doc_bands", "band", q.RasterBands)
	in(&c, "d.group_id", q.GroupIDs)
	in(&c, "d.user_id", q.UserIDs)
	ownerFilter(&c, q.Owner)
	licenseFilter(&c, q.LicenseTypes)
	in(&c, "d.license_version", q.LicenseVersions)
	in(&c, "d.version_status", q.VersionStatuses)
	boolean(&c, "d.has_z", q.HasZ)
	boolean(&c, "d.has_pk", q.HasPK)
	boolean(&c, "d.is_imagery", q.IsImagery)
	if q.RasterResolutionGT != nil {
		c.add("d.raster_resolution > ?", *q.RasterResolutionGT)
	}
	if q.RasterResolutionLT != nil {
		c.add("d.raster_resolution < ?", *q.RasterResolutionLT)
	}
	if q.CreatedAfter != nil {
		c.add("d.created_at > ?", micros(*q.CreatedAfter))
	}
	if q.CreatedBefore != nil {
		c.add("d.created_at < ?", micros(*q.CreatedBefore))
	}
	if q.UpdatedAfter != nil {
		c.add("d.updated_at > ?", micros(*q.UpdatedAfter))
	}
	if q.UpdatedBefore != nil {
		c.add("d.updated_at < ?", micros(*q.UpdatedBefore))
	}
	if q.Public != nil {
		pub, args := access.PublicSQL("d.perm_kind", "d.perm_id")
		if !*q.Public {
			pub = "NOT " + pub
		}
		c.add(pub, args...)
	}
	if q.IsStarred != nil {
		star := "EXISTS (SELECT 1 FROM search_stars st WHERE st.user_id = ? AND st.doc_type = d.doc_type AND st.doc_id = d.doc_id)"
		if !*q.IsStarred {
			star = "NOT " + star
		}
		c.add(star, q.Viewer.UserID)
	}
	visible(&c, q)
	return strings.Join(c.parts, " AND "), c.args
}

// kindFilter: a kind value matches the doc's kind or type; geometry types
// select vector layers and, given with kinds, widen them.
func kindFilter(c *conds, kinds, geoms []string) {
	var ors []string
	var args []any
	if len(kinds) > 0 {
		ors = append(ors, "d.kind IN ("+marks(len(kinds))+")", "d.doc_type IN ("+marks(len(kinds))+")")
		args = append(append(args, anys(kinds)...), anys(kinds)...)
	}
	if len(geoms) > 0 {
		ors = append(ors, "d.geometry_type IN ("+marks(len(geoms))+")")
		args = append(args, anys(geoms)...)
	}
	if len(ors) > 0 {
		c.add("("+strings.Join(ors, " OR ")+")", args...)
	}
}

// ownerFilter keeps the docs the user publishes or the groups own.
func ownerFilter(c *conds, o *Owner) {
	if o == nil {
		return
	}
	cond, args := "d.user_id = ?", []any{o.UserID}
	if len(o.GroupIDs) > 0 {
		cond += " OR d.group_id IN (" + marks(len(o.GroupIDs)) + ")"
		args = append(args, anys(o.GroupIDs)...)
	}
	c.add("("+cond+")", args...)
}

// licenseFilter: plain values include, "-" values exclude.
func licenseFilter(c *conds, types []string) {
	var inc, exc []string
	for _, t := range types {
		if rest, ok := strings.CutPrefix(t, "-"); ok {
			exc = append(exc, rest)
		} else {
			inc = append(inc, t)
		}
	}
	in(c, "d.license_type", inc)
	if len(exc) > 0 {
		c.add("d.license_type NOT IN ("+marks(len(exc))+")", anys(exc)...)
	}
}

// visible applies the caller's permissions, live: view on published docs;
// on latest docs, view when the version is published and edit otherwise.
func visible(c *conds, q Query) {
	view, viewArgs := q.Viewer.VisibleSQL(access.View, "d.perm_kind", "d.perm_id", "d.group_id")
	if q.State == Published {
		c.add(view, viewArgs...)
		return
	}
	edit, editArgs := q.Viewer.VisibleSQL(access.Edit, "d.perm_kind", "d.perm_id", "d.group_id")
	args := append([]any{string(Published)}, viewArgs...)
	c.add("((d.version_status = ? AND "+view+") OR "+edit+")", append(args, editArgs...)...)
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func anys[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = any(v)
	}
	return out
}
