package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/textrules"
)

// searchGroups runs the group list: free text, filters, sort, offset paging
// and facet counts over the whole result.
func searchGroups(ctx context.Context, c *ent.Client, in *GroupSearchInput) (*GroupPage, error) {
	page, err := paging.New(in.Page, in.PageSize, paging.MaxSizeLarge)
	if err != nil {
		return nil, err
	}
	var preds []predicate.Group
	terms, err := searchTerms(in.Q)
	if err != nil {
		return nil, err
	}
	if len(terms) > 0 {
		any := make([]predicate.Group, 0, 2*len(terms))
		for _, t := range terms {
			any = append(any, group.NameContainsFold(t), group.URLSlugContainsFold(t))
		}
		preds = append(preds, group.Or(any...))
	}
	if in.AccessRequestsEnabled != nil {
		preds = append(preds, group.AccessRequestsEnabled(*in.AccessRequestsEnabled))
	}
	if len(in.Types) > 0 {
		preds = append(preds, group.TypeIn(in.Types...))
	}
	if in.CreatedAfter != nil {
		preds = append(preds, group.CreatedAtGT(*in.CreatedAfter))
	}
	if in.CreatedBefore != nil {
		preds = append(preds, group.CreatedAtLT(*in.CreatedBefore))
	}
	if in.UpdatedAfter != nil {
		preds = append(preds, group.UpdatedAtGT(*in.UpdatedAfter))
	}
	if in.UpdatedBefore != nil {
		preds = append(preds, group.UpdatedAtLT(*in.UpdatedBefore))
	}
	total, err := c.Group.Query().Where(preds...).Count(ctx)
	if err != nil {
		return nil, err
	}
	q := c.Group.Query().Where(preds...).Offset(page.Offset()).Limit(page.Size)
	for _, o := range groupOrder(in.Sort, terms) {
		q.Order(o)
	}
	items, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	facets, err := groupFacets(ctx, c, preds)
	if err != nil {
		return nil, err
	}
	return &GroupPage{
		Items:    items,
		PageInfo: &PageInfoOffset{Page: page.Number, PageSize: page.Size, Total: total},
		Facets:   facets,
	}, nil
}

// searchTerms checks search text q by the text rules (a 400 naming q when
// it breaks one, such as being longer than textrules.MaxQuery) and splits
// it into distinct lower-case terms. Every search resolver takes its terms
// from here.
func searchTerms(q *string) ([]string, error) {
	if err := textrules.Query("q", q); err != nil {
		return nil, err
	}
	if q == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range strings.Fields(strings.ToLower(*q)) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// groupOrder returns the ordering of a sort value. With terms and no
// explicit sort the order is relevance: each term found in the name scores
// 3, in the slug 1, so more matched terms rank higher and the name weighs
// most. Ties fall back to name, then id, so pages are stable.
func groupOrder(sort *GroupSort, terms []string) []group.OrderOption {
	s := GroupSortRelevance
	if sort != nil {
		s = *sort
	}
	stable := []group.OrderOption{byNameFold(false), group.ByID()}
	switch s {
	case GroupSortName:
		return stable
	case GroupSortNameDesc:
		return []group.OrderOption{byNameFold(true), group.ByID()}
	case GroupSortPopularity:
		return append([]group.OrderOption{group.ByMembershipsCount(entsql.OrderDesc())}, stable...)
	case GroupSortCreatedAt:
		return []group.OrderOption{group.ByCreatedAt(), group.ByID()}
	case GroupSortCreatedAtDesc:
		return []group.OrderOption{group.ByCreatedAt(entsql.OrderDesc()), group.ByID(entsql.OrderDesc())}
	case GroupSortUpdatedAt:
		return []group.OrderOption{group.ByUpdatedAt(), group.ByID()}
	case GroupSortUpdatedAtDesc:
		return []group.OrderOption{group.ByUpdatedAt(entsql.OrderDesc()), group.ByID(entsql.OrderDesc())}
	}
	if len(terms) == 0 {
		return stable
	}
	return append([]group.OrderOption{relevance(terms)}, stable...)
}

// relevance orders by the weighted count of terms found, highest first.
// The patterns are written as quoted literals: Ent drops the arguments of
// ORDER BY expressions, and quoting doubles every single quote, so the
// term cannot end the literal.
func relevance(terms []string) group.OrderOption {
	return func(s *entsql.Selector) {
		var b strings.Builder
		b.WriteString("(")
		for i, t := range terms {
			if i > 0 {
				b.WriteString(" + ")
			}
			lit := "'%" + strings.ReplaceAll(likeEscape(t), "'", "''") + "%'"
			fmt.Fprintf(&b, "CASE WHEN LOWER(%s) LIKE %s ESCAPE '\\' THEN 3 ELSE 0 END + CASE WHEN LOWER(%s) LIKE %s ESCAPE '\\' THEN 1 ELSE 0 END",
				s.C(group.FieldName), lit, s.C(group.FieldURLSlug), lit)
		}
		b.WriteString(") DESC")
		s.OrderExpr(entsql.Expr(b.String()))
	}
}

// byNameFold orders by name without regard to case, so "Water and Land"
// sorts before "Water Quality" on every database.
func byNameFold(desc bool) group.OrderOption {
	return func(s *entsql.Selector) {
		dir := ""
		if desc {
			dir = " DESC"
		}
		s.OrderExpr(entsql.Expr("LOWER(" + s.C(group.FieldName) + ")" + dir))
	}
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// groupFacets counts the result by type and by country.
func groupFacets(ctx context.Context, c *ent.Client, preds []predicate.Group) ([]*Facet, error) {
	var facets []*Facet
	for _, fld := range []string{group.FieldType, group.FieldCountry} {
		var rows []struct {
			Key   string `json:"key"`
			Count int    `json:"count"`
		}
		err := c.Group.Query().Where(preds...).
			Modify(func(s *entsql.Selector) {
				s.Select(entsql.As(s.C(fld), "key"), entsql.As(entsql.Count("*"), "count")).GroupBy(s.C(fld))
			}).Scan(ctx, &rows)
		if err != nil {
			return nil, err
		}
		f := &Facet{Name: fld}
		for _, r := range rows {
			if r.Key != "" {
				f.Entries = append(f.Entries, &FacetEntry{Key: r.Key, Total: r.Count})
			}
		}
		sort.Slice(f.Entries, func(i, j int) bool {
			if f.Entries[i].Total != f.Entries[j].Total {
				return f.Entries[i].Total > f.Entries[j].Total
			}
			return f.Entries[i].Key < f.Entries[j].Key
		})
		if f.Entries == nil {
			f.Entries = []*FacetEntry{}
		}
		facets = append(facets, f)
	}
	return facets, nil
}
