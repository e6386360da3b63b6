package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
)

// The matrix's dataset fixtures: a private and a public object of each
// dataset kind, with their parts, services and links between them.

// addDatasets builds one published dataset of each kind, with a draft,
// named so that its titles are recognisable in any response, granted to
// the matrix's roles, and (unless public) hidden from everyone else.
func (f *fixtures) addDatasets(t *testing.T, public bool) {
	t.Helper()
	e, ctx, c := f.e, t.Context(), f.e.Store.Client
	own := f.users[owner]
	for _, d := range publishedDatasets(t, e, own) {
		pubName := fmt.Sprintf("Matrix %s %s published", vis(public), d.name)
		draftName := fmt.Sprintf("Matrix %s %s draft", vis(public), d.name)
		kind, pubID := f.rename(t, d, pubName, draftName)
		if !public {
			c.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(d.id),
				datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(ctx)
		}
		for r, lv := range map[role]access.Level{viewer: access.View, downloader: access.Download, editor: access.Edit} {
			if _, err := access.GrantAtLeast(ctx, c, kind, d.id, f.users[r].ID, lv); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := access.GrantAtLeast(ctx, c, kind, d.id, f.spare.ID, access.View); err != nil {
			t.Fatal(err)
		}
		o := &object{name: d.name + "/" + vis(public), levels: datasetLevels(public), hidden: !public, vars: map[string]string{
			"id": d.ref, "pub": itoa(pubID), "draft": itoa(d.draftID), "perm": "user." + itoa(f.spare.ID),
		}}
		f.objects[d.name] = append(f.objects[d.name], o)
		f.secrets = append(f.secrets, secret{pubName, readers(o.levels, lvView)}, secret{draftName, readers(o.levels, lvEdit)})
		// Metadata on the draft, for the metadata reads.
		r := e.Do(t, req{Method: "POST", Path: d.draftURL + "metadata/", Key: own.Key, Body: f.iso,
			Header: map[string]string{"Content-Type": "text/xml"}})
		expectStatus(t, r, http.StatusCreated)
		if d.name == "items" {
			f.addItemParts(t, o, d)
		}
		if d.name != "documents" {
			f.addServices(t, o, d)
		}
	}
}

// rename gives a dataset's published version and its draft the matrix's
// names and returns its permission kind and published version.
func (f *fixtures) rename(t *testing.T, d permDataset, pubName, draftName string) (access.Kind, int) {
	t.Helper()
	ctx, c := t.Context(), f.e.Store.Client
	switch d.name {
	case "layers", "tables":
		l := c.Layer.UpdateOneID(d.id).SetName(pubName).SaveX(ctx)
		c.LayerVersion.Update().Where(layerversion.LayerID(d.id)).SetName(pubName).ExecX(ctx)
		c.LayerVersion.UpdateOneID(d.draftID).SetName(draftName).ExecX(ctx)
		return access.KindLayer, *l.PublishedVersionID
	case "documents":
		doc := c.Document.UpdateOneID(d.id).SetName(pubName).SaveX(ctx)
		c.DocumentVersion.Update().Where(documentversion.DocumentID(d.id)).SetName(pubName).ExecX(ctx)
		c.DocumentVersion.UpdateOneID(d.draftID).SetName(draftName).ExecX(ctx)
		return access.KindDocument, *doc.PublishedVersionID
	case "sets":
		s := c.Set.UpdateOneID(d.id).SetTitle(pubName).SaveX(ctx)
		c.SetVersion.Update().Where(setversion.SetID(d.id)).SetTitle(pubName).ExecX(ctx)
		c.SetVersion.UpdateOneID(d.draftID).SetTitle(draftName).ExecX(ctx)
		return access.KindSet, *s.PublishedVersionID
	}
	it := c.CatalogItem.UpdateOneID(d.id).SetTitle(pubName).SaveX(ctx)
	c.CatalogItemVersion.Update().Where(catalogitemversion.ItemID(d.id)).SetTitle(pubName).ExecX(ctx)
	c.CatalogItemVersion.UpdateOneID(d.draftID).SetTitle(draftName).ExecX(ctx)
	return access.KindCatalogItem, *it.PublishedVersionID
}

// addItemParts gives a catalog item an attachment, a geotag and an access
// request by the spare user.
func (f *fixtures) addItemParts(t *testing.T, o *object, d permDataset) {
	t.Helper()
	ctx, c, own := t.Context(), f.e.Store.Client, f.users[owner]
	doc := c.Document.Query().Where(document.UserID(own.ID)).Order(ent.Desc(document.FieldID)).FirstX(ctx)
	r := f.e.Do(t, req{Method: "POST", Path: d.url + "attachments/", Key: own.Key, Body: map[string]any{"document": doc.ID}})
	expectStatus(t, r, http.StatusCreated)
	o.vars["att"] = itoa(doc.ID)
	r = f.e.Do(t, req{Method: "POST", Path: d.url + "geotags/", Key: own.Key, Body: map[string]any{
		"name": "Matrix geotag", "geometry": map[string]any{"type": "Point", "coordinates": []float64{174.7, -41.3}}}})
	expectStatus(t, r, http.StatusCreated)
	var g struct {
		ID int `json:"id"`
	}
	r.JSON(t, &g)
	o.vars["geo"] = itoa(g.ID)
	for v, u := range map[string]*user{"req": f.joiner, "req2": f.joiner2} {
		ar := c.DatasetAccessRequest.Create().SetDatasetKind("item").SetDatasetID(d.id).SetUserID(u.ID).SaveX(ctx)
		o.vars[v] = itoa(ar.ID)
	}
}

// addCrossLinks links public objects to private ones, so that what a
// public object shows of its links is checked too: the public set holds
// the private layer, the public catalog item has a document only its
// owner may see attached.
func (f *fixtures) addCrossLinks(t *testing.T) {
	t.Helper()
	ctx, c := t.Context(), f.e.Store.Client
	publicSet, privateLayer := f.objects["sets"][1], f.objects["layers"][0]
	c.SetItem.Create().SetSetVersionID(num(publicSet.vars["pub"])).SetPosition(1).SetLayerID(num(privateLayer.vars["id"])).ExecX(ctx)
	name := "Matrix owner-only attachment"
	doc := seedDocument(t, f.e, f.users[owner], name, true)
	c.DatasetPermission.Delete().Where(datasetpermission.DatasetKindEQ(access.KindDocument), datasetpermission.DatasetID(doc),
		datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).ExecX(ctx)
	c.CatalogItemAttachment.Create().SetItemID(num(f.objects["items"][1].vars["id"][1:])).SetDocumentID(doc).ExecX(ctx)
	f.secrets = append(f.secrets, secret{name, readers(ownerOnly, lvAdmin)})
}

// enableExternalServices turns the external services feature on and adds
// a template every dataset type may use.
func (f *fixtures) enableExternalServices(t *testing.T) {
	t.Helper()
	root := f.users[siteAdmin].Key
	expectStatus(t, f.e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: root, Body: map[string]any{"external_services": true}}), http.StatusOK)
	r := f.e.Do(t, req{Method: "POST", Path: "/site/external-service-templates/", Key: root, Body: matrixTemplate()})
	expectStatus(t, r, http.StatusCreated)
	var tpl struct {
		ID int `json:"id"`
	}
	r.JSON(t, &tpl)
	f.vars["tpl"] = itoa(tpl.ID)
}

// matrixTemplate is the body of an external service template.
func matrixTemplate() map[string]any {
	return map[string]any{
		"title": "Matrix tiles", "short_name": "matrix", "description": "Tiles for the matrix",
		"template_urls": []map[string]any{{"service_url": "https://tiles.example.com/{id}/{z}/{x}/{y}.png"}},
		"scope":         []string{"all"}, "enabled": true, "access_policy": "all-users",
	}
}

// addServices records a built-in service of the dataset and attaches an
// external one.
func (f *fixtures) addServices(t *testing.T, o *object, d permDataset) {
	t.Helper()
	own := f.users[owner].Key
	var list []struct {
		ID           string `json:"id"`
		Configurable bool   `json:"configurable"`
	}
	r := f.e.Do(t, req{Path: d.url + "services/", Key: own})
	expectStatus(t, r, http.StatusOK)
	r.JSON(t, &list)
	for _, s := range list {
		if s.Configurable && o.vars["svc"] == "" {
			o.vars["svc"] = s.ID
		}
	}
	r = f.e.Do(t, req{Method: "POST", Path: d.url + "external-services/", Key: own, Body: map[string]any{"template_id": atoi(t, f.vars["tpl"]), "enabled": true}})
	expectStatus(t, r, http.StatusCreated)
	var ext struct {
		ID string `json:"id"`
	}
	r.JSON(t, &ext)
	o.vars["ext"] = ext.ID
	if o.vars["svc"] == "" {
		o.vars["svc"] = ext.ID // the only configurable service of sets and items
	}
}

// pairTwins gives each private object the variables of its public twin as
// other.NAME, and back, for the cross targets (addCrossTargets).
func (f *fixtures) pairTwins() {
	for _, kind := range []string{"layers", "tables", "documents", "sets", "items", "groups"} {
		a, b := f.objects[kind][0], f.objects[kind][1]
		for _, v := range childVars {
			if x, ok := a.vars[v]; ok {
				b.vars["other."+v] = x
			}
			if x, ok := b.vars[v]; ok {
				a.vars["other."+v] = x
			}
		}
	}
}

// addReferenceItem adds a public catalog item the editor may edit, for
// the reference rules to attach documents to ({refitem}).
func (f *fixtures) addReferenceItem(t *testing.T) {
	t.Helper()
	it := createItem(t, f.e, f.users[owner], map[string]any{"title": "Matrix reference item", "link_url": "https://example.org/ref"})
	if _, err := access.GrantAtLeast(t.Context(), f.e.Store.Client, access.KindCatalogItem, num(it.ID[1:]), f.users[editor].ID, access.Edit); err != nil {
		t.Fatal(err)
	}
	f.vars["refitem"] = it.ID
}
