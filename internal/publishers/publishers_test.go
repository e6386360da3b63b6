package publishers

import (
	"context"
	"slices"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/store/storetest"
)

func names(ps []Publisher) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name()
	}
	return out
}

func TestName(t *testing.T) {
	if got := (Publisher{Group: &ent.Group{Name: "Land Info"}}).Name(); got != "Land Info" {
		t.Errorf("group publisher's name %q", got)
	}
	if got := (Publisher{User: &ent.User{FirstName: "Ada", LastName: "Lovelace"}}).Name(); got != "Ada Lovelace" {
		t.Errorf("user publisher's name %q", got)
	}
	if got := (Publisher{User: &ent.User{LastName: "Lovelace"}}).Name(); got != "Lovelace" {
		t.Errorf("a user without a first name: %q", got)
	}
}

func TestNamedAndSorted(t *testing.T) {
	ps := func() []Publisher {
		return []Publisher{
			{Group: &ent.Group{Name: "beta maps"}, DatasetCount: 2},
			{Group: &ent.Group{Name: "Alpha Roads"}, DatasetCount: 2},
			{User: &ent.User{FirstName: "Gamma", LastName: "Ray"}, DatasetCount: 5},
		}
	}
	for _, c := range []struct {
		q    string
		by   Sort
		want []string
	}{
		{"", "popularity", []string{"Gamma Ray", "Alpha Roads", "beta maps"}},
		{"", "", []string{"Gamma Ray", "Alpha Roads", "beta maps"}},
		{"", "name", []string{"Alpha Roads", "beta maps", "Gamma Ray"}},
		{"", "-name", []string{"Gamma Ray", "beta maps", "Alpha Roads"}},
		{"ROADS ray", "name", []string{"Alpha Roads", "Gamma Ray"}},
		{"rivers", "name", []string{}},
	} {
		got := named(ps(), c.q)
		sortBy(got, c.by)
		if !slices.Equal(names(got), c.want) {
			t.Errorf("q %q, sort %q: %v, want %v", c.q, c.by, names(got), c.want)
		}
	}
}

func TestList(t *testing.T) {
	c := storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	ada := c.User.Create().SetEmail("ada@example.com").SetFirstName("Ada").SetLastName("Lovelace").SaveX(ctx)
	g := c.Group.Create().SetName("Land Info").SetURLSlug("land-info").SaveX(ctx)
	doc := func(group *int, published bool) *ent.Document {
		d := c.Document.Create().SetName("D").SetUserID(ada.ID).SetNillableGroupID(group)
		if published {
			d.SetPublishedVersionID(1)
		}
		return d.SaveX(ctx)
	}
	for _, d := range []*ent.Document{doc(&g.ID, true), doc(&g.ID, true), doc(nil, true), doc(nil, false)} {
		c.DatasetPermission.Create().SetDatasetKind(access.KindDocument).SetDatasetID(d.ID).
			SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionView).ExecX(ctx)
	}
	doc(nil, true) // published, but no one may see it

	anyone, err := access.NewViewer(ctx, c, auth.Principal{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := List(ctx, c, anyone, "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(ps), []string{"Land Info", "Ada Lovelace"}) || ps[0].DatasetCount != 2 || ps[1].DatasetCount != 1 {
		t.Errorf("publishers %v with %+v, want Land Info (2), then Ada Lovelace (1)", names(ps), ps)
	}
	for kind, want := range map[string][]string{KindSite: {"Land Info"}, KindUser: {"Ada Lovelace"}, "none": {}} {
		ps, err := List(ctx, c, anyone, "", []string{kind}, "name")
		if err != nil || !slices.Equal(names(ps), want) {
			t.Errorf("kind %s: %v, %v; want %v", kind, names(ps), err, want)
		}
	}
	admin, err := access.NewViewer(ctx, c, auth.Principal{User: &ent.User{ID: ada.ID + 100, IsSiteAdmin: true}})
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := List(ctx, c, admin, "ada", nil, ""); len(ps) != 1 || ps[0].DatasetCount != 2 {
		t.Errorf("a site administrator sees %+v, want Ada with both her published documents", ps)
	}
}
