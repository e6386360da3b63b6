package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Entries are batch-loaded (one query per dataset type, then the lists'
// loaders): a page of /data/ costs the same number of statements for 10
// entries as for 75, summary or expanded.
func TestDataStatementCountDoesNotGrowWithThePage(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owner := e.NewUser(t, "Owner")
		seed := func(from, to int) {
			var members []*ent.Layer
			for i := from; i < to; i++ {
				members = append(members, seedLayer(t, e, owner.User, layer.TypeLayer, fmt.Sprintf("Layer %03d", i), false))
				seedDocument(t, e, owner, fmt.Sprintf("Doc %03d", i), true)
			}
			seedSets(t, e, owner.User, (to-from)/2, members[:2])
			indexCatalog(t, e, nil)
		}
		count := func(expand string) int {
			counter.Reset()
			r := e.Do(t, req{Path: "/data/?page_size=200&sort=name", Key: owner.Key, Header: map[string]string{"Expand": expand}})
			expectStatus(t, r, http.StatusOK)
			return int(counter.Count())
		}
		seed(0, 5)
		small := map[string]int{}
		for _, ex := range []string{"", "list,list.publisher"} {
			small[ex] = count(ex)
		}
		seed(5, 30)
		for _, ex := range []string{"", "list,list.publisher"} {
			if n := count(ex); n > small[ex] {
				t.Errorf("Expand %q: %d statements for 10 entries, %d for 60", ex, small[ex], n)
			} else {
				t.Logf("Expand %q: %d statements", ex, n)
			}
		}
	})
}

// The GraphQL search batches too: its nodes' versions load through the
// lists' loaders, so a page of 75 costs what a page of 10 does.
func TestGraphQLSearchStatementCountDoesNotGrowWithThePage(t *testing.T) {
	eachCounted(t, func(t *testing.T, e *env, counter *storetest.Counter) {
		owner := e.NewUser(t, "Owner")
		seed := func(from, to int) {
			var members []*ent.Layer
			for i := from; i < to; i++ {
				members = append(members, seedLayer(t, e, owner.User, layer.TypeLayer, fmt.Sprintf("Layer %03d", i), false))
				seedDocument(t, e, owner, fmt.Sprintf("Doc %03d", i), true)
			}
			seedSets(t, e, owner.User, (to-from)/2, members[:2])
			indexCatalog(t, e, nil)
		}
		const q = `{ search(first: 200) { totalCount edges { cursor node {
			... on Layer { name publishedVersion { name } latestVersion { id } }
			... on Document { name publishedVersion { name } }
			... on Set { title publishedVersion { title } }
		} } } }`
		count := func() int {
			counter.Reset()
			r := e.GraphQL(t, owner.Key, q, nil)
			if len(r.Errors) > 0 {
				t.Fatalf("%+v", r.Errors)
			}
			return int(counter.Count())
		}
		seed(0, 4)
		small := count()
		seed(4, 30)
		if n := count(); n > small {
			t.Errorf("%d statements for a small page, %d for 75 results", small, n)
		} else {
			t.Logf("%d statements", n)
		}
	})
}
