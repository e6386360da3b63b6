package access_test

import (
	"context"
	"slices"
	"testing"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/dataservices"
)

// UsableServices is MayUseService for many owners at once: for every
// viewer, owner and key of a mixed fixture (grants of every level, an
// unpublished owner, a switched-off service, a service within a
// switched-off one, permission lists that do and do not name the viewer)
// the two agree.
func TestUsableServicesAgreesWithMayUseService(t *testing.T) {
	c, userID, groupID := grantsClient(t)
	ctx := context.Background()
	g := groupID
	owners := []access.ServiceOwner{
		{Kind: access.KindLayer, Type: dataservices.Layer, ID: 5, Published: true},
		{Kind: access.KindLayer, Type: dataservices.Layer, ID: 6, Published: true},
		{Kind: access.KindLayer, Type: dataservices.Layer, ID: 7, Group: &g},
		{Kind: access.KindLayer, Type: dataservices.Table, ID: 8, Published: true},
		{Kind: access.KindSet, Type: dataservices.Set, ID: 9, Published: true},
		{Kind: access.KindCatalogItem, Type: dataservices.CatalogItem, ID: 10, Published: true, Group: &g},
	}
	grant := func(kind access.Kind, id int, s access.Subject, p datasetpermission.Permission) {
		if _, err := access.CreateGrant(ctx, c, kind, id, s, p); err != nil {
			t.Fatal(err)
		}
	}
	everyone := access.Subject{Kind: datasetpermission.SubjectEveryone}
	member := access.Subject{Kind: datasetpermission.SubjectGroup, ID: groupID}
	person := access.Subject{Kind: datasetpermission.SubjectUser, ID: userID}
	grant(access.KindLayer, 5, everyone, datasetpermission.PermissionView)
	grant(access.KindLayer, 6, everyone, datasetpermission.PermissionDownload)
	grant(access.KindLayer, 6, person, datasetpermission.PermissionAdmin)
	grant(access.KindLayer, 8, member, datasetpermission.PermissionDownload)
	grant(access.KindSet, 9, everyone, datasetpermission.PermissionView)
	switchOff := func(o access.ServiceOwner, key string) {
		st, _, err := access.LoadService(ctx, c, o, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := access.SwitchService(ctx, c, o, st, false); err != nil {
			t.Fatal(err)
		}
	}
	switchOff(owners[1], "wfs")
	switchOff(owners[4], "tiles")
	switchOff(owners[3], "wfs")
	if err := access.ReplaceServicePermissions(ctx, c, owners[1], "export", []access.Subject{member}); err != nil {
		t.Fatal(err)
	}
	if err := access.ReplaceServicePermissions(ctx, c, owners[3], "export", []access.Subject{member}); err != nil {
		t.Fatal(err)
	}
	c.GroupMembership.Create().SetUserID(userID).SetGroupID(groupID).SaveX(ctx)
	u := c.User.Query().Where(user.ID(userID)).OnlyX(ctx)
	signedIn, err := access.NewViewer(ctx, c, auth.Principal{Method: auth.SessionAuth, User: u})
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"wfs", "wfs-changesets", "export", "tiles", "wmts", "csw", "esri-map", "kart"}
	for name, v := range map[string]*access.Viewer{
		"anonymous": access.RoleViewer(0, false), "member": access.RoleViewer(groupID, false),
		"administrators": access.RoleViewer(0, true), "signed-in": signedIn,
	} {
		got, err := v.UsableServices(ctx, c, owners, keys)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range owners {
			var want []string
			for _, k := range keys {
				ok, err := v.MayUseService(ctx, c, o, k)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					want = append(want, k)
				}
			}
			if testing.Verbose() {
				t.Logf("%s on %s %d: %v", name, o.Type, o.ID, want)
			}
			if g := got[o.Kind][o.ID]; !slices.Equal(g, want) {
				t.Errorf("%s on %s %d: UsableServices %v, MayUseService %v", name, o.Type, o.ID, g, want)
			}
		}
	}
}
