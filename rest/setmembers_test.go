package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/setitem"
)

// Issue acceptance: "a set lists only members the caller may see", and "a
// set version's members cannot reference a deleted layer silently": a
// deleted layer leaves every set version that held it (documented in the
// README), and writes naming it are refused with the item named.
func TestSetMembersFollowVisibilityAndDeletes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		pub := e.NewUser(t, "Publisher")
		reader := e.NewUser(t, "Reader")
		mine := seedLayer(t, e, pub.User, layer.TypeLayer, "Unpublished roads", true)
		shared := seedLayer(t, e, pub.User, layer.TypeTable, "Published codes", false)
		last := seedLayer(t, e, pub.User, layer.TypeLayer, "Published rivers", false)

		r := e.Do(t, req{Method: "POST", Path: "/sets/", Key: pub.Key, Body: map[string]any{
			"title": "Mixed", "items": []int{mine.ID, shared.ID, last.ID}}})
		expectStatus(t, r, http.StatusCreated)
		var s setRecord
		r.JSON(t, &s)
		r = e.Do(t, req{Method: "POST", Path: s.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)

		// The publisher sees all three; a reader only the published ones,
		// in set order, over REST and GraphQL alike.
		all := []string{memberURL(e, mine), memberURL(e, shared), memberURL(e, last)}
		visible := []string{memberURL(e, shared), memberURL(e, last)}
		if got := getSet(t, e, pub.Key, s.URL, nil).itemURLs(t); !reflect.DeepEqual(got, all) {
			t.Fatalf("publisher sees %v", got)
		}
		if got := getSet(t, e, reader.Key, s.URL, nil).itemURLs(t); !reflect.DeepEqual(got, visible) {
			t.Fatalf("reader sees %v", got)
		}
		if got := getSet(t, e, "", s.URL, nil).itemURLs(t); !reflect.DeepEqual(got, visible) {
			t.Fatalf("anonymous sees %v", got)
		}
		gqlItems := func(key string) []int {
			g := e.GraphQL(t, key, `query($id: ID!) { set(id: $id) { items { id } publishedVersion { items { id } } } }`, map[string]any{"id": s.ID})
			var d struct {
				Set struct {
					Items            []struct{ ID string }
					PublishedVersion struct{ Items []struct{ ID string } }
				}
			}
			if err := json.Unmarshal(g.Data, &d); err != nil || len(g.Errors) > 0 {
				t.Fatalf("GraphQL %s %+v", g.Data, g.Errors)
			}
			var ids []int
			for i, it := range d.Set.Items {
				if it != d.Set.PublishedVersion.Items[i] {
					t.Fatalf("set items and published version items differ: %s", g.Data)
				}
				var id int
				fmt.Sscan(it.ID, &id)
				ids = append(ids, id)
			}
			return ids
		}
		if got := gqlItems(reader.Key); !reflect.DeepEqual(got, []int{shared.ID, last.ID}) {
			t.Fatalf("GraphQL reader items %v", got)
		}
		if got := gqlItems(pub.Key); !reflect.DeepEqual(got, []int{mine.ID, shared.ID, last.ID}) {
			t.Fatalf("GraphQL publisher items %v", got)
		}

		// A draft holding the same members; then the table is deleted.
		r = e.Do(t, req{Method: "POST", Path: s.URL + "versions/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		var d setRecord
		r.JSON(t, &d)
		expectStatus(t, e.Do(t, req{Method: "DELETE", Path: memberURL(e, shared), Key: pub.Key}), http.StatusNoContent)

		// Both versions lost it (the foreign key cascades); nothing points
		// at the deleted table.
		if n := e.Store.Client.SetItem.Query().Where(setitem.LayerID(shared.ID)).CountX(t.Context()); n != 0 {
			t.Fatalf("%d set items still reference the deleted table", n)
		}
		after := []string{memberURL(e, mine), memberURL(e, last)}
		if got := getSet(t, e, pub.Key, s.URL, nil).itemURLs(t); !reflect.DeepEqual(got, after) {
			t.Fatalf("published after delete %v", got)
		}
		if got := getSet(t, e, pub.Key, d.ThisVersion, nil).itemURLs(t); !reflect.DeepEqual(got, after) {
			t.Fatalf("draft after delete %v", got)
		}
		// Writing it back is a 400 naming the item; nothing changes.
		r = e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{"items": []string{memberURL(e, last), memberURL(e, shared)}}})
		expectStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "Item 2") || !strings.Contains(string(r.Body), fmt.Sprint(shared.ID)) {
			t.Fatalf("PUT with a deleted member: %s", r.Body)
		}
		if got := getSet(t, e, pub.Key, d.ThisVersion, nil).itemURLs(t); !reflect.DeepEqual(got, after) {
			t.Fatalf("draft changed by a refused PUT: %v", got)
		}
		// The order of what remains survives the next publish.
		r = e.Do(t, req{Method: "PUT", Path: d.ThisVersion, Key: pub.Key, Body: map[string]any{"items": []int{last.ID, mine.ID}}})
		expectStatus(t, r, http.StatusOK)
		expectStatus(t, e.Do(t, req{Method: "POST", Path: d.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}}), http.StatusCreated)
		if got := getSet(t, e, pub.Key, s.URL, nil).itemURLs(t); !reflect.DeepEqual(got, []string{memberURL(e, last), memberURL(e, mine)}) {
			t.Fatalf("republished %v", got)
		}
	})
}
