package graph

import (
	"context"
	"testing"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Search terms are written into the ORDER BY as literals: quotes,
// backslashes and LIKE wildcards in them must stay inert.
func TestGroupSearchTermsAreInert(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		for _, n := range []string{"O'Brien Survey", `Back\slash 100%`, "Plain"} {
			st.Client.Group.Create().SetName(n).SetURLSlug(slugify(n)).SetCountry("NZ").ExecX(ctx)
		}
		for q, want := range map[string]int{
			"o'brien":                  1,
			`'; DROP TABLE groups; --`: 0,
			`back\slash`:               1,
			"100%":                     1,
			"%":                        1,
			"_":                        0,
		} {
			q := q
			page, err := searchGroups(ctx, st.Client, &GroupSearchInput{Q: &q})
			if err != nil {
				t.Fatalf("q=%q: %v", q, err)
			}
			if len(page.Items) != want || page.PageInfo.Total != want {
				t.Fatalf("q=%q: %d items, total %d; want %d", q, len(page.Items), page.PageInfo.Total, want)
			}
		}
		if n := st.Client.Group.Query().CountX(ctx); n != 5 {
			t.Fatalf("groups = %d", n)
		}
	})
}
