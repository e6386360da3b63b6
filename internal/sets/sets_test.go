package sets_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func ids(ls []*ent.Layer) []int {
	out := []int{}
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

// Published gives the members of a set's published version in set order,
// limited by the visibility predicate; Replace and Copy keep the order.
func TestPublishedMembersInOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		u := storetest.User(t, c, "o@example.com")
		var ls []int
		for _, name := range []string{"a", "b", "c", "d"} {
			typ := layer.TypeLayer
			if name == "c" {
				typ = layer.TypeTable
			}
			ls = append(ls, c.Layer.Create().SetType(typ).SetName(name).SetUserID(u.ID).SaveX(ctx).ID)
		}
		s := c.Set.Create().SetTitle("S").SetUserID(u.ID).SaveX(ctx)
		if _, ok, err := sets.Published(ctx, c, s.ID); ok || err != nil {
			t.Fatalf("unpublished set: ok %v, err %v", ok, err)
		}
		v1 := c.SetVersion.Create().SetSetID(s.ID).SetTitle("S").SetCreatedBy(u.ID).SetState(setversion.StatePublished).SaveX(ctx)
		order := []int{ls[2], ls[0], ls[3]}
		if err := sets.Replace(ctx, c, v1.ID, order); err != nil {
			t.Fatal(err)
		}
		s.Update().SetPublishedVersionID(v1.ID).ExecX(ctx)

		got, ok, err := sets.Published(ctx, c, s.ID)
		if err != nil || !ok || !reflect.DeepEqual(ids(got), order) {
			t.Fatalf("published members %v (ok %v, err %v), want %v", ids(got), ok, err, order)
		}
		// The visibility predicate narrows, keeping the order.
		got, _, _ = sets.Published(ctx, c, s.ID, layer.IDNEQ(ls[0]))
		if !reflect.DeepEqual(ids(got), []int{ls[2], ls[3]}) {
			t.Fatalf("filtered members %v", ids(got))
		}
		// A draft copies the members; replacing them leaves the published
		// version alone.
		v2 := c.SetVersion.Create().SetSetID(s.ID).SetTitle("S").SetCreatedBy(u.ID).SaveX(ctx)
		if err := sets.Copy(ctx, c, v1.ID, v2.ID); err != nil {
			t.Fatal(err)
		}
		if err := sets.Replace(ctx, c, v2.ID, []int{ls[1], ls[2]}); err != nil {
			t.Fatal(err)
		}
		m, err := sets.Members(ctx, c, []int{v1.ID, v2.ID, 999999})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids(m[v1.ID]), order) || !reflect.DeepEqual(ids(m[v2.ID]), []int{ls[1], ls[2]}) || m[999999] == nil || len(m[999999]) != 0 {
			t.Fatalf("members %v / %v / %v", ids(m[v1.ID]), ids(m[v2.ID]), m[999999])
		}
		// Deleting a layer removes it from every version (the key cascades).
		c.Layer.DeleteOneID(ls[2]).ExecX(ctx)
		m, _ = sets.Members(ctx, c, []int{v1.ID, v2.ID})
		if !reflect.DeepEqual(ids(m[v1.ID]), []int{ls[0], ls[3]}) || !reflect.DeepEqual(ids(m[v2.ID]), []int{ls[1]}) {
			t.Fatalf("after delete %v / %v", ids(m[v1.ID]), ids(m[v2.ID]))
		}
	})
}

// Create refuses members named twice or not visible, writing nothing;
// UpdateDraft keeps the set's title with its draft's until the first
// publish, and refuses (405) a version that is no longer a draft.
func TestCreateAndUpdateDraft(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		u := storetest.User(t, c, "o@example.com")
		a := c.Layer.Create().SetType(layer.TypeLayer).SetName("a").SetUserID(u.ID).SaveX(ctx).ID
		hidden := c.Layer.Create().SetType(layer.TypeLayer).SetName("hidden").SetUserID(u.ID).SaveX(ctx).ID
		svc := &sets.Service{Store: st}
		visible := layer.IDNEQ(hidden)
		for _, tc := range []struct {
			items []int
			msg   string
		}{
			{[]int{a, a}, "Item 2 repeats item 1 (layer or table " + strconv.Itoa(a) + ")"},
			{[]int{a, hidden}, "Item 2: there is no layer or table " + strconv.Itoa(hidden) + " that you may see."},
			{make([]int, sets.MaxItems+1), "A set holds at most 1000 members, not 1001."},
		} {
			_, err := svc.Create(ctx, u.ID, sets.New{Title: "S", Items: tc.items, Visible: visible})
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("members %v: %v, want a 400 with %q", tc.items[:2], err, tc.msg)
			}
		}
		if n := c.Set.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d sets written by refused creates", n)
		}

		vid, err := svc.Create(ctx, u.ID, sets.New{Title: "S", Items: []int{a}, Visible: visible})
		if err != nil {
			t.Fatal(err)
		}
		v := c.SetVersion.GetX(ctx, vid)
		s := c.Set.GetX(ctx, v.SetID)
		if err := svc.UpdateDraft(ctx, s, v, sets.Change{Title: "Renamed", Items: []int{}}); err != nil {
			t.Fatal(err)
		}
		if got := c.Set.GetX(ctx, s.ID).Title; got != "Renamed" {
			t.Fatalf("unpublished set's title %q, want its draft's", got)
		}
		if m, _ := sets.Members(ctx, c, []int{v.ID}); len(m[v.ID]) != 0 {
			t.Fatalf("members %v after emptying", ids(m[v.ID]))
		}
		c.SetVersion.UpdateOneID(v.ID).SetState(setversion.StatePublished).ExecX(ctx)
		err = svc.UpdateDraft(ctx, s, v, sets.Change{Title: "Late"})
		if apperr.CodeOf(err) != apperr.NotAllowed {
			t.Fatalf("editing a published version: %v, want 405", err)
		}
	})
}
