package publishing_test

import (
	"context"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/publishing"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Publishing a document's draft supersedes the published version, names
// the document after the draft, keeps its first publish time and notifies
// the draft's creator.
func TestPublishDocumentVersion(t *testing.T) {
	c := storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	u := c.User.Create().SetEmail("pub@example.com").SaveX(ctx)
	d := c.Document.Create().SetName("Old").SetUserID(u.ID).SaveX(ctx)
	version := func(name string) int {
		return c.DocumentVersion.Create().SetDocumentID(d.ID).SetName(name).SetDatasourceID(1).
			SetFileKey("k").SetFileName("f.pdf").SetCreatedBy(u.ID).SaveX(ctx).ID
	}
	first, second := version("First"), version("Second")
	t1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []int{first, second} {
		d = c.Document.GetX(ctx, d.ID)
		if err := publishing.PublishDocumentVersion(ctx, c, nil, d, c.DocumentVersion.GetX(ctx, id), t1.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	d = c.Document.GetX(ctx, d.ID)
	if d.Name != "Second" || d.PublishedVersionID == nil || *d.PublishedVersionID != second ||
		!d.FirstPublishedAt.Equal(t1) || !d.PublishedAt.Equal(t1.Add(time.Hour)) {
		t.Errorf("document after two publishes: %+v", d)
	}
	if s := c.DocumentVersion.GetX(ctx, first).State; s != documentversion.StateSuperseded {
		t.Errorf("first version is %s, want superseded", s)
	}
	if n := c.Notification.Query().Where(notification.UserID(u.ID), notification.Kind("publish.completed")).CountX(ctx); n != 2 {
		t.Errorf("%d notifications, want one per publish", n)
	}
}

// Publishing a catalog item's draft does the same, and refuses a version
// that is no longer a draft.
func TestPublishCatalogItemVersion(t *testing.T) {
	c := storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	u := c.User.Create().SetEmail("pub@example.com").SaveX(ctx)
	it := c.CatalogItem.Create().SetTitle("Old").SetUserID(u.ID).SaveX(ctx)
	version := func(title string) int {
		return c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(title).SetCreatedBy(u.ID).SaveX(ctx).ID
	}
	first, second := version("First"), version("Second")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, id := range []int{first, second} {
		it = c.CatalogItem.GetX(ctx, it.ID)
		if err := publishing.PublishCatalogItemVersion(ctx, c, nil, it, c.CatalogItemVersion.GetX(ctx, id), u.ID, "c1", now); err != nil {
			t.Fatal(err)
		}
	}
	it = c.CatalogItem.GetX(ctx, it.ID)
	if it.Title != "Second" || it.PublishedVersionID == nil || *it.PublishedVersionID != second || it.FirstPublishedAt == nil {
		t.Errorf("item after two publishes: %+v", it)
	}
	if s := c.CatalogItemVersion.GetX(ctx, first).State; s != catalogitemversion.StateSuperseded {
		t.Errorf("first version is %s, want superseded", s)
	}
	err := publishing.PublishCatalogItemVersion(ctx, c, nil, it, c.CatalogItemVersion.GetX(ctx, first), u.ID, "c1", now)
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("publishing a superseded version: %v, want CONFLICT", err)
	}
	n := c.Notification.Query().Where(notification.UserID(u.ID)).AllX(ctx)
	if len(n) != 2 || n[0].Payload["item_id"] != "c1" {
		t.Errorf("notifications %+v, want two naming item c1", n)
	}
}
