package sets_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 26.2, a set "per member": which layer version a set version
// stands for (Until), and what changed from one set version to the next.
// A standalone member publish between two set versions lands in the older
// one; a member published with the next set version (same moment) in the
// newer.
func TestSetVersionDiff(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		u := storetest.User(t, c, "o@example.com")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		layers := map[string]*ent.Layer{}
		publish := func(name string, h int) *ent.LayerVersion {
			l := layers[name]
			if l == nil {
				l = c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(u.ID).SaveX(ctx)
				layers[name] = l
			}
			c.LayerVersion.Update().Where(layerversion.LayerID(l.ID), layerversion.StateEQ(layerversion.StatePublished)).
				SetState(layerversion.StateSuperseded).ExecX(ctx)
			v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(u.ID).SetDatasourceIds([]int{}).
				SetState(layerversion.StatePublished).SetPublishedAt(at(h)).SaveX(ctx)
			layers[name] = l.Update().SetPublishedVersionID(v.ID).SaveX(ctx)
			return v
		}
		_, b1, c1, d1 := publish("A", 0), publish("B", 0), publish("C", 0), publish("D", 0)
		s := c.Set.Create().SetTitle("S").SetUserID(u.ID).SaveX(ctx)
		setVersion := func(title string, h int, members ...string) *ent.SetVersion {
			q := c.SetVersion.Create().SetSetID(s.ID).SetTitle(title).SetCreatedBy(u.ID)
			if h >= 0 {
				c.SetVersion.Update().Where(setversion.SetID(s.ID), setversion.StateEQ(setversion.StatePublished)).
					SetState(setversion.StateSuperseded).ExecX(ctx)
				q.SetState(setversion.StatePublished).SetPublishedAt(at(h))
			}
			v := q.SaveX(ctx)
			var ids []int
			for _, m := range members {
				ids = append(ids, layers[m].ID)
			}
			if err := sets.Replace(ctx, c, v.ID, ids); err != nil {
				t.Fatal(err)
			}
			return v
		}
		s1 := setVersion("S", 1, "A", "B", "C")
		a2 := publish("A", 2) // on its own, between set versions
		s2 := setVersion("S two", 3, "A", "B", "D")
		b2 := publish("B", 3)              // with set version 2
		publish("C", 4)                    // no longer a member
		s3 := setVersion("S two", -1, "A") // a draft

		if until, ok, err := sets.Until(ctx, c, s1); err != nil || !ok || !until.Equal(at(3)) {
			t.Fatalf("Until(version 1) = %v %v %v, want %v", until, ok, err, at(3))
		}
		for _, v := range []*ent.SetVersion{s2, s3} {
			if _, ok, err := sets.Until(ctx, c, v); ok || err != nil {
				t.Fatalf("Until(version %d): bounded (%v), want the current versions", v.ID, err)
			}
		}
		stands := func(v *ent.SetVersion) string {
			ms, err := sets.MemberVersions(ctx, c, v)
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, m := range ms {
				out += fmt.Sprintf("%s@%d ", m.Layer.Name, m.Version.ID)
			}
			return out
		}
		if got, want := stands(s1), fmt.Sprintf("A@%d B@%d C@%d ", a2.ID, b1.ID, c1.ID); got != want {
			t.Fatalf("set version 1 stands for %q, want %q", got, want)
		}
		if got, want := stands(s2), fmt.Sprintf("A@%d B@%d D@%d ", a2.ID, b2.ID, d1.ID); got != want {
			t.Fatalf("set version 2 stands for %q, want %q", got, want)
		}

		d, err := sets.CompareVersions(ctx, c, s1, s2)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Added) != 1 || d.Added[0].Layer.Name != "D" || d.Added[0].Version.ID != d1.ID ||
			len(d.Removed) != 1 || d.Removed[0].Layer.Name != "C" || d.Removed[0].Version.ID != c1.ID ||
			len(d.Changed) != 1 || d.Changed[0].Layer.Name != "B" || d.Changed[0].From.ID != b1.ID || d.Changed[0].To.ID != b2.ID ||
			d.Kept != 2 {
			t.Fatalf("1→2: %+v", d)
		}
		if len(d.Fields) != 1 || d.Fields[0].Name != "title" || d.Fields[0].Old != "S" || d.Fields[0].New != "S two" {
			t.Fatalf("1→2 fields %+v", d.Fields)
		}
		// To the draft: B and D removed, A kept unchanged; backwards, from
		// the draft, added.
		d, err = sets.CompareVersions(ctx, c, s2, s3)
		if err != nil || len(d.Removed) != 2 || len(d.Added) != 0 || len(d.Changed) != 0 || d.Kept != 1 || len(d.Fields) != 0 {
			t.Fatalf("2→draft: %+v %v", d, err)
		}
		d, err = sets.CompareVersions(ctx, c, s3, s2)
		if err != nil || len(d.Added) != 2 || d.Added[0].Layer.Name != "B" || len(d.Removed) != 0 {
			t.Fatalf("draft→2: %+v %v", d, err)
		}
		// From nothing: every member added, every field set new.
		d, err = sets.CompareVersions(ctx, c, nil, s1)
		if err != nil || len(d.Added) != 3 || len(d.Fields) != 1 || d.Fields[0].Old != nil {
			t.Fatalf("nothing→1: %+v %v", d, err)
		}
		// Only the visible members are compared.
		d, err = sets.CompareVersions(ctx, c, s1, s2, layer.NameNEQ("B"))
		if err != nil || len(d.Changed) != 0 || d.Kept != 1 {
			t.Fatalf("without B: %+v %v", d, err)
		}
	})
}
