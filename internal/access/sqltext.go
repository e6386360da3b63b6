package access

import (
	"strings"

	"github.com/geopub/geopub/ent/datasetpermission"
)

// VisibleSQL renders the rule of Filter as a plain SQL condition with `?`
// placeholders, for hand-written queries over rows that name their
// dataset by columns rather than by an Ent table: kindCol holds the
// permission kind (layer, set, document, catalog_item, source), idCol the
// dataset id and groupCol the owning group (NULL when a user owns it). The
// condition is true on the rows v holds at least min on, by a grant in the
// live dataset_permissions table or by owning-group membership; site
// administrators hold admin on everything. The column arguments are
// trusted SQL expressions written by the caller, never user input.
func (v *Viewer) VisibleSQL(min Level, kindCol, idCol, groupCol string) (string, []any) {
	if v.SiteAdmin {
		return "(1 = 1)", nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("(EXISTS (SELECT 1 FROM " + datasetpermission.Table + " vp WHERE vp.dataset_kind = " + kindCol +
		" AND vp.dataset_id = " + idCol + " AND vp.permission IN (")
	for i, l := range min.atLeast() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?")
		args = append(args, l)
	}
	b.WriteString(") AND (")
	for i, t := range v.subjectTerms() {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(vp.subject = ?")
		args = append(args, string(t.subject))
		if len(t.ids) > 0 {
			b.WriteString(" AND vp.subject_id IN (" + placeholders(len(t.ids)) + ")")
			args = append(args, t.ids...)
		}
		b.WriteString(")")
	}
	b.WriteString("))")
	if groups := v.ownerGroups(min); len(groups) > 0 {
		b.WriteString(" OR " + groupCol + " IN (" + placeholders(len(groups)) + ")")
		args = append(args, groups...)
	}
	b.WriteString(")")
	return b.String(), args
}

// PublicSQL is the SQL condition (with `?` placeholders) that is true on
// rows whose dataset everyone may at least view: what the catalogue calls
// public. Like VisibleSQL it reads the live grants, so it never goes stale
// when permissions change.
func PublicSQL(kindCol, idCol string) (string, []any) {
	args := []any{string(datasetpermission.SubjectEveryone)}
	args = append(args, View.atLeast()...)
	return "EXISTS (SELECT 1 FROM " + datasetpermission.Table + " pp WHERE pp.dataset_kind = " + kindCol +
		" AND pp.dataset_id = " + idCol + " AND pp.subject = ? AND pp.permission IN (" +
		placeholders(len(View.atLeast())) + "))", args
}

// placeholders returns n comma-separated `?`.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
