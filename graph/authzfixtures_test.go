package graph_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/search/searchtest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/webhooks"
)

// The GraphQL matrix's fixtures: a private and a public object of every
// dataset kind (layer, set, document, catalog item), each published with
// a draft, metadata, services and grants to the matrix's roles; the
// owner's source with a scan and datasources; a private and a public
// group with members and access requests; feedback with internal notes;
// notifications, tokens, a publish and an external service template.

// matrixRoles are the callers, from least to most trusted. viewer,
// downloader and editor hold the grant their name says on every dataset
// and are member, edit_data and edit_users in the groups; admin is the
// owner of everything (admin in the groups); siteadmin is a site
// administrator with no grant.
var matrixRoles = []string{"anonymous", "outsider", "viewer", "downloader", "editor", "admin", "siteadmin"}

// gqlFixtures are the callers and the variables the root queries take.
type gqlFixtures struct {
	e     *servertest.Env
	keys  map[string]string // by role; "" for anonymous
	users map[string]*servertest.User
	spare *servertest.User // a member and grantee the lists show
	// vars name fixture objects: "layer.private", "set.public.draft", ...
	vars map[string]any
	// suffix is appended to the names of the objects the add* helpers
	// make: the mutation matrix makes fresh ones to consume.
	suffix string
}

func (f *gqlFixtures) id(name string) any {
	v, ok := f.vars[name]
	if !ok {
		panic("no fixture " + name)
	}
	return v
}

// mutate runs a GraphQL operation as role and fails on an error.
func (f *gqlFixtures) mutate(t *testing.T, role, q string, vars map[string]any) map[string]any {
	t.Helper()
	g := f.e.GraphQL(t, f.keys[role], q, vars)
	if len(g.Errors) > 0 {
		t.Fatalf("fixture %s as %s: %+v", q, role, g.Errors)
	}
	var out map[string]any
	if err := jsonUnmarshal(g.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func newGQLFixtures(t *testing.T, st *store.Store) *gqlFixtures {
	t.Helper()
	e := servertest.New(t, st)
	f := &gqlFixtures{e: e, keys: map[string]string{"anonymous": ""}, users: map[string]*servertest.User{}, vars: map[string]any{}}
	for _, r := range matrixRoles[1:] {
		var opts []servertest.UserOption
		if r == "siteadmin" {
			opts = append(opts, servertest.SiteAdmin)
		}
		f.users[r] = e.NewUser(t, "Matrix"+strings.ToUpper(r[:1])+r[1:], opts...)
		f.keys[r] = f.users[r].Key
	}
	f.spare = e.NewUser(t, "MatrixSpare")
	f.addSource(t)
	for _, public := range []bool{false, true} {
		f.addLayer(t, public)
		f.addDocument(t, public)
	}
	for _, public := range []bool{false, true} {
		f.addSet(t, public)
		f.addItem(t, public)
		f.addGroup(t, public)
	}
	f.addServices(t)
	f.addFeedback(t)
	f.addAccountObjects(t)
	f.addOAuthClient(t)
	f.addCropLayer(t)
	// The catalogue's index, as the search feed keeps it.
	searchtest.Index(t, st, nil)
	return f
}

// vis names a fixture's visibility.
func vis(public bool) string {
	if public {
		return "public"
	}
	return "private"
}

// grantRoles gives the matrix's middle roles their levels on a dataset,
// the spare user view, and everyone download when public.
func (f *gqlFixtures) grantRoles(t *testing.T, kind access.Kind, id int, public bool) {
	t.Helper()
	ctx, c := context.Background(), f.e.Store.Client
	if err := access.GrantCreator(ctx, c, kind, id, f.users["admin"].User.ID); err != nil {
		t.Fatal(err)
	}
	grants := map[*servertest.User]access.Level{f.users["viewer"]: access.View, f.users["downloader"]: access.Download,
		f.users["editor"]: access.Edit, f.spare: access.View}
	for u, lv := range grants {
		if _, err := access.GrantAtLeast(ctx, c, kind, id, u.User.ID, lv); err != nil {
			t.Fatal(err)
		}
	}
	if public {
		c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id).
			SetSubject(datasetpermission.SubjectEveryone).SetPermission(datasetpermission.PermissionDownload).ExecX(ctx)
	}
}

// metadata stores an ISO document on a dataset version.
func (f *gqlFixtures) metadata(t *testing.T, kind string, id, version int) {
	t.Helper()
	xml, err := os.ReadFile("../rest/testdata/iso19139.xml")
	if err != nil {
		t.Fatal(err)
	}
	f.e.Store.Client.MetadataDocument.Create().SetDatasetKind(kind).SetDatasetID(id).SetVersionID(version).
		SetFormat(metadatadocument.FormatIso).SetXML(string(xml)).SetUploadedBy(f.users["admin"].User.ID).ExecX(context.Background())
}

// addSource adds the owner's private source: a scan with a log, two
// datasources, a view grant to the spare user, in the public group.
func (f *gqlFixtures) addSource(t *testing.T) {
	t.Helper()
	ctx, c, own := context.Background(), f.e.Store.Client, f.users["admin"].User
	// The URL is never fetched (the address guard refuses loopback), so
	// no test call leaves the machine; its path marks leaks.
	src := c.Source.Create().SetType(source.TypeURL).SetTitle("Matrix secret source").SetURLRemote("https://127.0.0.1:9/secret.example.com/data/").
		SetUserID(own.ID).SaveX(ctx)
	if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, own.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := access.GrantAtLeast(ctx, c, access.KindSource, src.ID, f.spare.User.ID, access.View); err != nil {
		t.Fatal(err)
	}
	sc := c.Scan.Create().SetSourceID(src.ID).SetStatus(scan.StatusCompleted).SetUserID(own.ID).SetLog("Matrix secret log").SaveX(ctx)
	for _, p := range []string{"used.geojson", "codes.csv", "readme.pdf"} {
		typ := map[string]datasource.DataType{"used.geojson": datasource.DataTypeVector, "codes.csv": datasource.DataTypeTable, "readme.pdf": datasource.DataTypeDocument}[p]
		d := c.Datasource.Create().SetSourceID(src.ID).SetPath("secret/" + p).SetTitle(p).SetDataType(typ).SaveX(ctx)
		f.vars["ds."+string(typ)] = d.ID
	}
	// The vector datasource's metadata, found beside it by the scan.
	f.metadata(t, scanning.MetadataKind, f.vars["ds.vector"].(int), f.vars["ds.vector"].(int))
	f.vars["source"], f.vars["scan"] = src.ID, sc.ID
}

// addLayer adds a published layer with a draft, both with metadata.
func (f *gqlFixtures) addLayer(t *testing.T, public bool) {
	t.Helper()
	ctx, c, own := context.Background(), f.e.Store.Client, f.users["admin"].User
	name := "Matrix " + vis(public) + " layer"
	l := c.Layer.Create().SetType(layer.TypeLayer).SetName(name).SetUserID(own.ID).SaveX(ctx)
	f.grantRoles(t, access.KindLayer, l.ID, public)
	now := time.Now().UTC()
	ds := []int{f.id("ds.vector").(int)}
	// An earlier version, superseded: what the sets' first versions
	// stand for (addSet), so set diffs have changed members.
	c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(own.ID).SetDatasourceIds(ds).
		SetState(layerversion.StateSuperseded).SetStatus(layerversion.StatusOk).SetPublishedAt(now.Add(-2 * time.Hour)).ExecX(ctx)
	v := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(own.ID).SetDatasourceIds(ds).
		SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetPublishedAt(now).
		SetLicenseID(1).SetTags([]string{"matrix"}).SetCategories([]string{"transportation"}).SaveX(ctx)
	c.Layer.UpdateOne(l).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
	d := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name + " draft").SetCreatedBy(own.ID).SetDatasourceIds(ds).
		SetStatus(layerversion.StatusOk).SaveX(ctx)
	f.metadata(t, "layer", l.ID, v.ID)
	f.metadata(t, "layer", l.ID, d.ID)
	p := "layer." + vis(public) + f.suffix
	f.vars[p], f.vars[p+".pub"], f.vars[p+".draft"] = l.ID, v.ID, d.ID
}

// addDocument adds a published document with a draft, both with
// metadata.
func (f *gqlFixtures) addDocument(t *testing.T, public bool) {
	t.Helper()
	ctx, c, own := context.Background(), f.e.Store.Client, f.users["admin"].User
	name := "Matrix " + vis(public) + " document"
	d := c.Document.Create().SetName(name).SetUserID(own.ID).SaveX(ctx)
	f.grantRoles(t, access.KindDocument, d.ID, public)
	mk := func(name string) *ent.DocumentVersionCreate {
		return c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(name).SetDatasourceID(f.id("ds.document").(int)).
			SetFileKey("documents/x").SetFileName("readme.pdf").SetExtension("pdf").SetFileSize(2048).SetCreatedBy(own.ID)
	}
	now := time.Now().UTC()
	v := mk(name).SetState("published").SetPublishedAt(now).SetLicenseID(1).SetTags([]string{"matrix"}).SaveX(ctx)
	c.Document.UpdateOne(d).SetPublishedVersionID(v.ID).SetPublishedAt(now).ExecX(ctx)
	draft := mk(name + " draft").SaveX(ctx)
	f.metadata(t, "document", d.ID, v.ID)
	f.metadata(t, "document", d.ID, draft.ID)
	p := "document." + vis(public) + f.suffix
	f.vars[p], f.vars[p+".pub"], f.vars[p+".draft"] = d.ID, v.ID, draft.ID
}

// addSet adds a published set and a draft holding both layers, and its
// first version holding the private one: the public set shows the private
// layer only to those who may read it.
func (f *gqlFixtures) addSet(t *testing.T, public bool) {
	t.Helper()
	ctx, c, own := context.Background(), f.e.Store.Client, f.users["admin"].User
	name := "Matrix " + vis(public) + " set"
	s := c.Set.Create().SetTitle(name).SetUserID(own.ID).SaveX(ctx)
	f.grantRoles(t, access.KindSet, s.ID, public)
	now := time.Now().UTC()
	// A first version, superseded by the published one before the
	// layers' published versions were: it stands for their earlier
	// versions (sets.Until), the published one for the current ones.
	old := c.SetVersion.Create().SetSetID(s.ID).SetTitle(name).SetCreatedBy(own.ID).SetState("superseded").
		SetPublishedAt(now.Add(-90 * time.Minute)).SaveX(ctx)
	v := c.SetVersion.Create().SetSetID(s.ID).SetTitle(name).SetCreatedBy(own.ID).SetState("published").SetPublishedAt(now.Add(-time.Hour)).
		SetLicenseID(1).SetTags([]string{"matrix"}).SaveX(ctx)
	c.Set.UpdateOne(s).SetPublishedVersionID(v.ID).SetPublishedAt(now).ExecX(ctx)
	d := c.SetVersion.Create().SetSetID(s.ID).SetTitle(name + " draft").SetCreatedBy(own.ID).SaveX(ctx)
	for _, sv := range []int{old.ID, v.ID, d.ID} {
		for i, l := range []string{"layer.private", "layer.public"} {
			if sv == old.ID && l == "layer.public" {
				continue // added by the published version
			}
			c.SetItem.Create().SetSetVersionID(sv).SetPosition(i).SetLayerID(f.id(l).(int)).ExecX(ctx)
		}
	}
	f.metadata(t, "set", s.ID, v.ID)
	f.metadata(t, "set", s.ID, d.ID)
	p := "set." + vis(public) + f.suffix
	f.vars[p], f.vars[p+".pub"], f.vars[p+".draft"] = s.ID, v.ID, d.ID
}

// addItem adds a published catalog item with a draft, metadata, both
// documents attached, a geotag and the outsider's access request.
func (f *gqlFixtures) addItem(t *testing.T, public bool) {
	t.Helper()
	ctx, c, own := context.Background(), f.e.Store.Client, f.users["admin"].User
	name := "Matrix " + vis(public) + " item"
	it := c.CatalogItem.Create().SetTitle(name).SetUserID(own.ID).SaveX(ctx)
	f.grantRoles(t, access.KindCatalogItem, it.ID, public)
	now := time.Now().UTC()
	v := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(name).SetCreatedBy(own.ID).
		SetState(catalogitemversion.StatePublished).SetPublishedAt(now).SaveX(ctx)
	c.CatalogItem.UpdateOne(it).SetPublishedVersionID(v.ID).SetPublishedAt(now).ExecX(ctx)
	d := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(name + " draft").SetCreatedBy(own.ID).SaveX(ctx)
	f.metadata(t, "item", it.ID, v.ID)
	f.metadata(t, "item", it.ID, d.ID)
	for _, doc := range []string{"document.private", "document.public"} {
		c.CatalogItemAttachment.Create().SetItemID(it.ID).SetDocumentID(f.id(doc).(int)).ExecX(ctx)
	}
	g := c.CatalogItemGeotag.Create().SetItemID(it.ID).SetName("Matrix geotag").
		SetGeometry(map[string]any{"type": "Point", "coordinates": []any{174.7, -41.3}}).SaveX(ctx)
	ar := c.DatasetAccessRequest.Create().SetDatasetKind("item").SetDatasetID(it.ID).SetUserID(f.users["outsider"].User.ID).SaveX(ctx)
	p := "item." + vis(public) + f.suffix
	f.vars[p], f.vars[p+".pub"], f.vars[p+".draft"] = graph.ItemPublicID(it.ID), v.ID, d.ID
	f.vars[p+".geotag"], f.vars[p+".request"], f.vars[p+".num"] = g.ID, ar.ID, it.ID
}

// addGroup adds a group where the roles hold the memberships their
// names say, with access requests by the outsider and the spare user.
func (f *gqlFixtures) addGroup(t *testing.T, public bool) {
	t.Helper()
	ctx, c := context.Background(), f.e.Store.Client
	name := "Matrix " + vis(public) + " group" + f.suffix
	g := c.Group.Create().SetName(name).SetURLSlug(strings.ReplaceAll(strings.ToLower(name), " ", "-")).
		SetCountry("NZ").SetAccessRequestsEnabled(public).SaveX(ctx)
	perms := map[string]groupmembership.Permission{
		"viewer": groupmembership.PermissionMember, "downloader": groupmembership.PermissionEditData,
		"editor": groupmembership.PermissionEditUsers, "admin": groupmembership.PermissionAdmin,
	}
	for r, p := range perms {
		c.GroupMembership.Create().SetGroupID(g.ID).SetUserID(f.users[r].User.ID).SetPermission(p).ExecX(ctx)
	}
	c.GroupMembership.Create().SetGroupID(g.ID).SetUserID(f.spare.User.ID).SetPermission(groupmembership.PermissionMember).ExecX(ctx)
	ar := c.AccessRequest.Create().SetGroupID(g.ID).SetUserID(f.users["outsider"].User.ID).SaveX(ctx)
	p := "group." + vis(public) + f.suffix
	f.vars[p], f.vars[p+".request"] = g.ID, ar.ID
	if public && f.suffix == "" {
		c.Source.UpdateOneID(f.id("source").(int)).SetGroupID(g.ID).ExecX(ctx)
		// A group grant, so that permissions name a group.
		for _, k := range []string{"layer", "set", "document", "item"} {
			kind := map[string]access.Kind{"layer": access.KindLayer, "set": access.KindSet, "document": access.KindDocument, "item": access.KindCatalogItem}[k]
			id := f.vars[k+".private"]
			if k == "item" {
				id = f.vars["item.private.num"]
			}
			c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id.(int)).SetSubject(datasetpermission.SubjectGroup).
				SetSubjectID(g.ID).SetPermission(datasetpermission.PermissionView).ExecX(ctx)
		}
	}
}

// addServices turns external services on, adds a template, attaches it
// to every layer, set and item, and gives a built-in service of each a
// user and a group permission.
func (f *gqlFixtures) addServices(t *testing.T) {
	t.Helper()
	f.mutate(t, "siteadmin", `mutation { updateSiteSettings(input: {externalServices: true}) { externalServices } }`, nil)
	tpl := f.mutate(t, "siteadmin", `mutation($in: ExternalServiceTemplateInput!) { createExternalServiceTemplate(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"title": "Matrix tiles", "shortName": "matrix", "description": "Tiles",
			"templateURLs": []any{map[string]any{"serviceURL": "https://tiles.example.com/{id}/{z}/{x}/{y}.png"}},
			"scope":        []string{"all"}, "enabled": true, "accessPolicy": "all-users"}})
	f.vars["template"] = tpl["createExternalServiceTemplate"].(map[string]any)["id"]
	for _, k := range []string{"layer", "set", "item"} {
		typ := map[string]string{"layer": "LAYER", "set": "SET", "item": "CATALOG_ITEM"}[k]
		for _, v := range []string{"private", "public"} {
			id := f.vars[k+"."+v]
			if k == "item" {
				id = f.vars[k+"."+v+".num"]
			}
			vars := map[string]any{"type": typ, "id": id, "tpl": f.vars["template"]}
			out := f.mutate(t, "admin", `mutation($type: DatasetType!, $id: ID!, $tpl: ID!) { attachExternalService(type: $type, id: $id, templateID: $tpl, enabled: true) { id } }`, vars)
			sid := out["attachExternalService"].(map[string]any)["id"]
			vars["sid"] = sid
			vars["grants"] = []any{map[string]any{"user": f.spare.User.ID}, map[string]any{"group": fmt.Sprint(f.vars["group.public"])}}
			f.mutate(t, "admin", `mutation($type: DatasetType!, $id: ID!, $sid: String!, $grants: [ServicePermissionInput!]!) {
				setServicePermissions(type: $type, id: $id, serviceID: $sid, grants: $grants) { user { id } } }`, vars)
			f.vars[k+"."+v+".service"] = sid
		}
	}
}

// addFeedback adds, on each layer and item, a comment by the spare user
// with an internal note by the owner assigning it, and a ticket by the
// spare user, each with both documents attached.
func (f *gqlFixtures) addFeedback(t *testing.T) {
	t.Helper()
	docs := []any{f.vars["document.private"], f.vars["document.public"]}
	for _, k := range []string{"layer", "item"} {
		for _, v := range []string{"private", "public"} {
			typ, id := "layer", f.vars[k+"."+v]
			if k == "item" {
				typ, id = "catalog item", f.vars[k+"."+v+".num"]
			}
			for _, status := range []string{"", "open"} {
				g := f.e.GraphQL(t, f.spare.Key, `mutation($in: CreateFeedbackInput!) { createFeedback(input: $in) { id } }`,
					map[string]any{"in": map[string]any{"description": "Matrix feedback on " + k + " " + v, "status": status, "attachments": docs,
						"ticketedObject": map[string]any{"type": typ, "id": id}}})
				if len(g.Errors) > 0 {
					t.Fatalf("feedback on %s %s: %+v", k, v, g.Errors)
				}
				var out struct{ CreateFeedback struct{ ID string } }
				if err := jsonUnmarshal(g.Data, &out); err != nil {
					t.Fatal(err)
				}
				fid := out.CreateFeedback.ID
				f.mutate(t, "admin", `mutation($id: ID!, $in: UpdateFeedbackInput!) { updateFeedback(id: $id, input: $in) { id } }`,
					map[string]any{"id": fid, "in": map[string]any{"description": "Matrix internal note", "isInternal": true,
						"assigneeID": f.users["editor"].User.ID, "attachments": docs}})
				name := "feedback." + k + "." + v
				if status != "" {
					name = "ticket." + k + "." + v
				}
				f.vars[name] = fid
			}
		}
	}
}

// addAccountObjects adds a notification for every signed-in role and a
// publish of the owner.
func (f *gqlFixtures) addAccountObjects(t *testing.T) {
	t.Helper()
	ctx, c := context.Background(), f.e.Store.Client
	for _, r := range matrixRoles[1:] {
		c.Notification.Create().SetUserID(f.users[r].User.ID).SetKind("scan_completed").
			SetPayload(map[string]any{"source": f.vars["source"]}).ExecX(ctx)
	}
	pg := c.PublishGroup.Create().SetVersionIds([]int{f.id("layer.private.pub").(int)}).SetCreatedBy(f.users["admin"].User.ID).SaveX(ctx)
	f.vars["publish"] = pg.ID
	f.vars["token"] = c.Token.Query().Where(token.UserID(f.users["admin"].User.ID)).FirstIDX(ctx)
	f.vars["export"] = f.newExport(export.StateComplete)
	// A webhook of the public group, made by its admin, subscribed to a
	// dataset that does not exist (so the matrix's writes send it
	// nothing), with one delivery.
	group := f.id("group.public").(int)
	ep, _, err := f.e.Server.Resolver.WebhookService.Create(ctx, webhooks.Owner{UserID: f.users["admin"].User.ID, GroupID: &group},
		webhooks.Input{URL: "http://127.0.0.1:9/matrix", Datasets: []string{"layer:999999"}})
	if err != nil {
		t.Fatal(err)
	}
	f.vars["webhook"] = ep.ID
	f.vars["webhook.delivery"] = c.WebhookDelivery.Create().SetEndpointID(ep.ID).SetEventID(999999).SetMessageID("msg_matrix").
		SetStatus(webhookdelivery.StatusFailed).SaveX(ctx).ID
}
