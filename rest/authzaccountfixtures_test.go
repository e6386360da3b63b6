package rest_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/webhooks"
)

// The matrix's other fixtures: groups with access requests, the owner's
// source, publish and token, feedback, and keys that must not work.

// addGroups builds two groups where the roles hold the memberships their
// names say, each with an access request by the joiner.
func (f *fixtures) addGroups(t *testing.T) {
	t.Helper()
	ctx, c := t.Context(), f.e.Store.Client
	perms := map[role]groupmembership.Permission{
		viewer: groupmembership.PermissionMember, downloader: groupmembership.PermissionEditData,
		editor: groupmembership.PermissionEditUsers, owner: groupmembership.PermissionAdmin,
	}
	for _, public := range []bool{false, true} {
		name := "Matrix " + vis(public) + " group"
		g := c.Group.Create().SetName(name).SetURLSlug(strings.ReplaceAll(strings.ToLower(name), " ", "-")).
			SetCountry("NZ").SetAccessRequestsEnabled(public).SaveX(ctx)
		for r, p := range perms {
			c.GroupMembership.Create().SetGroupID(g.ID).SetUserID(f.users[r].ID).SetPermission(p).ExecX(ctx)
		}
		c.GroupMembership.Create().SetGroupID(g.ID).SetUserID(f.spare.ID).SetPermission(groupmembership.PermissionMember).ExecX(ctx)
		ar := c.AccessRequest.Create().SetGroupID(g.ID).SetUserID(f.joiner.ID).SaveX(ctx)
		ar2 := c.AccessRequest.Create().SetGroupID(g.ID).SetUserID(f.joiner2.ID).SaveX(ctx)
		f.objects["groups"] = append(f.objects["groups"], &object{
			name:   "groups/" + vis(public),
			levels: [7]level{lvNone, lvNone, lvView, lvDownload, lvEdit, lvAdmin, lvAdmin},
			vars:   map[string]string{"id": itoa(g.ID), "uid": itoa(f.spare.ID), "req": itoa(ar.ID), "req2": itoa(ar2.ID)},
		})
	}
	// Members' e-mail addresses are for those who manage them.
	managers := func(r role) bool { return r >= editor }
	f.secrets = append(f.secrets, secret{f.spare.Email, managers}, secret{f.joiner.Email, managers})
}

// ownerOnly are the levels on the owner's personal objects.
var ownerOnly = [7]level{lvNone, lvNone, lvNone, lvNone, lvNone, lvAdmin, lvAdmin}

// addAccountObjects adds the owner's source (with its scan, a datasource
// and a publish) and token, the spare user as an object, and a comment by
// the spare user on each layer.
func (f *fixtures) addAccountObjects(t *testing.T) {
	t.Helper()
	ctx, c, own := t.Context(), f.e.Store.Client, f.users[owner]
	src := c.Source.Query().Where(source.UserID(own.ID)).Order(ent.Asc(source.FieldID)).FirstX(ctx)
	src = src.Update().SetTitle("Matrix secret source").SaveX(ctx)
	sc := c.Scan.Query().Where(scan.SourceID(src.ID)).FirstX(ctx)
	pg := c.PublishGroup.Query().Where(publishgroup.CreatedBy(own.ID)).FirstX(ctx)
	// The spare user views the source: the grant the per-grant routes use.
	if _, err := access.GrantAtLeast(ctx, c, access.KindSource, src.ID, f.spare.ID, access.View); err != nil {
		t.Fatal(err)
	}
	o := &object{name: "sources/owned", levels: ownerOnly, hidden: true, vars: map[string]string{
		"id": itoa(src.ID), "scan": itoa(sc.ID), "publish": itoa(pg.ID), "perm": "user." + itoa(f.spare.ID)}}
	// A datasource of each type, as ds.vector, ds.table, ds.document.
	for _, ds := range c.Datasource.Query().Where(datasource.SourceID(src.ID)).Order(ent.Asc(datasource.FieldID)).AllX(ctx) {
		o.vars["ds."+string(ds.DataType)] = itoa(ds.ID)
	}
	o.vars["ds"] = o.vars["ds.vector"]
	// The vector datasource's metadata, as a scan finds it beside the file.
	dsID, _ := strconv.Atoi(o.vars["ds"])
	c.MetadataDocument.Create().SetDatasetKind(scanning.MetadataKind).SetDatasetID(dsID).SetVersionID(dsID).
		SetFormat("iso").SetXML(f.iso).SetUploadedBy(own.ID).ExecX(ctx)
	f.objects["sources"] = []*object{o}
	f.secrets = append(f.secrets, secret{src.Title, readers(ownerOnly, lvAdmin)})

	tok, _, err := f.e.Server.Resolver.Auth.CreateToken(ctx, own.User, auth.TokenSpec{Name: "Matrix secret token", Scope: "query"})
	if err != nil {
		t.Fatal(err)
	}
	mine := [7]level{lvNone, lvNone, lvNone, lvNone, lvNone, lvAdmin, lvNone}
	f.objects["tokens"] = []*object{{name: "tokens/owned", levels: mine, hidden: true, vars: map[string]string{"id": itoa(tok.ID)}}}
	// Site administrators read token names in the audit log (GET /audit/).
	ownerOrSiteAdmin := func(r role) bool { return r == siteAdmin || readers(mine, lvAdmin)(r) }
	f.secrets = append(f.secrets, secret{tok.Name, ownerOrSiteAdmin})

	// A webhook of the owner's (subscribed to a dataset that does not
	// exist, so the matrix's writes send it nothing) with one delivery:
	// its owner and site administrators manage it.
	ep, _, err := f.e.Server.Resolver.WebhookService.Create(ctx, webhooks.Owner{UserID: own.ID},
		webhooks.Input{URL: "http://127.0.0.1:9/matrix", Datasets: []string{"layer:999999"}})
	if err != nil {
		t.Fatal(err)
	}
	d := c.WebhookDelivery.Create().SetEndpointID(ep.ID).SetEventID(999999).SetMessageID("msg_matrix").
		SetStatus(webhookdelivery.StatusFailed).SaveX(ctx)
	managers := [7]level{lvNone, lvNone, lvNone, lvNone, lvNone, lvAdmin, lvAdmin}
	f.objects["webhooks"] = []*object{{name: "webhooks/owned", levels: managers, hidden: true,
		vars: map[string]string{"id": itoa(ep.ID), "delivery": itoa(d.ID)}}}

	// The spare user belongs to the groups: their managers see them.
	f.objects["users"] = []*object{{name: "users/member", hidden: true, vars: map[string]string{"id": itoa(f.spare.ID)},
		levels: [7]level{lvNone, lvNone, lvNone, lvNone, lvAdmin, lvAdmin, lvAdmin}}}

	for _, o := range f.objects["layers"] {
		f.addFeedback(t, o)
	}
}

// addFeedback adds, on a layer, a comment by the spare user with an
// internal note by the owner, and a ticket by the spare user. Comments are
// for those who see the layer, internal notes and tickets for those who
// administer it (may edit the layer), and their authors.
func (f *fixtures) addFeedback(t *testing.T, o *object) {
	t.Helper()
	administrators := o.levels
	for r, lv := range administrators {
		if lv < lvEdit {
			administrators[r] = lvNone
		}
	}
	for _, status := range []string{"", "open"} {
		text := "Matrix comment on " + o.name
		levels := o.levels
		if status != "" {
			text, levels = "Matrix ticket on "+o.name, administrators
		}
		fb := postFeedback(t, f.e, f.spare.Key, map[string]any{"description": text, "status": status,
			"ticketed_object": map[string]any{"type": "layer", "id": atoi(t, o.vars["id"])}})
		name := "feedback/" + o.name
		if status != "" {
			name = "ticket/" + o.name
		}
		f.objects["feedback"] = append(f.objects["feedback"], &object{name: name, levels: levels, hidden: true, vars: map[string]string{"id": itoa(fb.ID)}})
		f.secrets = append(f.secrets, secret{text, readers(levels, lvView)})
		if status == "" {
			note := "Matrix internal note on " + o.name
			putFeedback(t, f.e, f.users[owner].Key, fb.ID, map[string]any{"description": note, "is_internal": true})
			f.secrets = append(f.secrets, secret{note, readers(administrators, lvView)})
		}
	}
}

// addDeadKeys adds the keys of a locked site administrator and an expired
// key of another.
func (f *fixtures) addDeadKeys(t *testing.T) {
	t.Helper()
	ctx, c := t.Context(), f.e.Store.Client
	locked := f.e.NewUser(t, "MatrixLocked", servertest.SiteAdmin)
	c.User.UpdateOneID(locked.ID).SetIsLocked(true).ExecX(ctx)
	expired := f.e.NewUser(t, "MatrixExpired", servertest.SiteAdmin)
	c.Token.Update().Where(token.UserID(expired.ID)).SetExpiresAt(time.Now().Add(-time.Minute)).ExecX(ctx)
	f.deadKeys = map[string]string{"locked": locked.Key, "expired": expired.Key}
}
