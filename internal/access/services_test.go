package access_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/dataservices"
)

func TestServiceOwners(t *testing.T) {
	g, pub := 3, 9
	for name, c := range map[string]struct {
		got, want access.ServiceOwner
	}{
		"Layer": {access.LayerOwner(&ent.Layer{ID: 1, Type: layer.TypeLayer, GroupID: &g, PublishedVersionID: &pub}),
			access.ServiceOwner{Kind: access.KindLayer, Type: dataservices.Layer, ID: 1, Group: &g, Published: true}},
		"Table": {access.LayerOwner(&ent.Layer{ID: 2, Type: layer.TypeTable}),
			access.ServiceOwner{Kind: access.KindLayer, Type: dataservices.Table, ID: 2}},
		"Set": {access.SetOwner(&ent.Set{ID: 3, GroupID: &g}),
			access.ServiceOwner{Kind: access.KindSet, Type: dataservices.Set, ID: 3, Group: &g}},
		"CatalogItem": {access.CatalogItemOwner(&ent.CatalogItem{ID: 4, PublishedVersionID: &pub}),
			access.ServiceOwner{Kind: access.KindCatalogItem, Type: dataservices.CatalogItem, ID: 4, Published: true}},
	} {
		if c.got != c.want {
			t.Errorf("%s: owner %+v, want %+v", name, c.got, c.want)
		}
	}
}

var layerOwner = access.ServiceOwner{Kind: access.KindLayer, Type: dataservices.Layer, ID: 5, Published: true}

func TestSwitchService(t *testing.T) {
	c, _, _ := grantsClient(t)
	ctx := context.Background()
	for _, on := range []bool{false, true, false} {
		st, ok, err := access.LoadService(ctx, c, layerOwner, "wfs")
		if err != nil || !ok {
			t.Fatalf("LoadService(wfs) = %v, %v", ok, err)
		}
		if err := access.SwitchService(ctx, c, layerOwner, st, on); err != nil {
			t.Fatal(err)
		}
		if st, _, _ = access.LoadService(ctx, c, layerOwner, "wfs"); st.Enabled != on {
			t.Errorf("switched to %v, the service is %v", on, st.Enabled)
		}
	}
	if n := c.DatasetService.Query().CountX(ctx); n != 1 {
		t.Errorf("%d switch rows after three switches, want 1", n)
	}
}

func TestReplaceServicePermissions(t *testing.T) {
	c, userID, groupID := grantsClient(t)
	ctx := context.Background()
	user := access.Subject{Kind: datasetpermission.SubjectUser, ID: userID}
	group := access.Subject{Kind: datasetpermission.SubjectGroup, ID: groupID}
	for _, subjects := range [][]access.Subject{{user, group}, {group}, nil} {
		if err := access.ReplaceServicePermissions(ctx, c, layerOwner, "wfs", subjects); err != nil {
			t.Fatal(err)
		}
		ps := access.ServicePermissions(c, layerOwner, "wfs").AllX(ctx)
		if len(ps) != len(subjects) {
			t.Fatalf("%d permissions after replacing them with %v", len(ps), subjects)
		}
		for _, p := range ps {
			if s := (access.Subject{Kind: datasetpermission.Subject(p.Subject), ID: p.SubjectID}); s != user && s != group {
				t.Errorf("unexpected permission for %s", s.Key())
			}
		}
	}
}

func TestDeleteExternalServices(t *testing.T) {
	c, userID, _ := grantsClient(t)
	ctx := context.Background()
	user := access.Subject{Kind: datasetpermission.SubjectUser, ID: userID}
	tmpl := c.ExternalServiceTemplate.Create().SetTitle("Maps").SetScope([]string{"all"}).
		SetTemplateUrls([]schematype.ServiceURL{{ServiceURL: "https://x.example.com/{id}"}}).SaveX(ctx)
	external := func(ownerID int) string {
		row := c.DatasetService.Create().SetOwnerKind(datasetservice.OwnerKindLayer).SetOwnerID(ownerID).
			SetKey(dataservices.ExternalKey).SetTemplateID(tmpl.ID).SaveX(ctx)
		id := strconv.Itoa(row.ID)
		o := layerOwner
		o.ID = ownerID
		if err := access.ReplaceServicePermissions(ctx, c, o, id, []access.Subject{user}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := external(5)
	external(6)
	if err := access.ReplaceServicePermissions(ctx, c, layerOwner, "wfs", []access.Subject{user}); err != nil {
		t.Fatal(err)
	}

	st, ok, err := access.LoadService(ctx, c, layerOwner, first)
	if err != nil || !ok || st.External == nil {
		t.Fatalf("LoadService(%s) = %+v, %v, %v", first, st, ok, err)
	}
	if err := access.DeleteExternalService(ctx, c, layerOwner, st); err != nil {
		t.Fatal(err)
	}
	if n := c.DatasetService.Query().CountX(ctx); n != 1 {
		t.Errorf("%d external services after deleting one of two", n)
	}
	if n := c.ServicePermission.Query().CountX(ctx); n != 2 {
		t.Errorf("%d service permissions after deleting one of three, want 2 (wfs's and the other external's)", n)
	}

	if _, err := access.DeleteTemplateServices(ctx, c, tmpl.ID); err != nil {
		t.Fatal(err)
	}
	if n := c.DatasetService.Query().CountX(ctx); n != 0 {
		t.Errorf("%d services of a deleted template remain", n)
	}
	if ps := c.ServicePermission.Query().AllX(ctx); len(ps) != 1 || ps[0].ServiceID != "wfs" {
		t.Errorf("service permissions %v, want wfs's alone", ps)
	}
}

func TestViewerOfRole(t *testing.T) {
	c, userID, groupID := grantsClient(t)
	ctx := context.Background()
	for _, tc := range []struct {
		role      string
		userID    int
		siteAdmin bool
	}{
		{"user." + strconv.Itoa(userID), userID, false},
		{"group." + strconv.Itoa(groupID), 0, false},
		{"group.everyone", 0, false},
		{"group.administrators", 0, true},
	} {
		v, err := access.ViewerOfRole(ctx, c, tc.role)
		if err != nil || v.UserID != tc.userID || v.SiteAdmin != tc.siteAdmin {
			t.Errorf("ViewerOfRole(%q) = %+v, %v", tc.role, v, err)
		}
	}
	if v, _ := access.ViewerOfRole(ctx, c, "group."+strconv.Itoa(groupID)); len(v.OwnerLevels()) != 0 {
		t.Errorf("a group's role owns %v; plain membership owns nothing", v.OwnerLevels())
	}
	for _, role := range []string{"user." + strconv.Itoa(userID+100), "group." + strconv.Itoa(groupID+100), "everyone", "staff", "team.1"} {
		if _, err := access.ViewerOfRole(ctx, c, role); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("ViewerOfRole(%q): %v, want NOT_FOUND", role, err)
		}
	}
}
