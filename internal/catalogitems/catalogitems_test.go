package catalogitems_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogitems"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func ptr(s string) *string { return &s }

// A new item's title, link and labels are checked in that order, each
// refusal a 400 naming its field.
func TestCheckNew(t *testing.T) {
	for _, tc := range []struct {
		name, title, link string
		tags              []string
		field, msg        string
	}{
		{"blank title", "  ", "https://example.com/", nil, "title", "may not be blank"},
		{"long title", strings.Repeat("t", 501), "https://example.com/", nil, "title", "no more than 500"},
		{"title before link", "", "", nil, "title", "may not be blank"},
		{"no link", "Roads", " ", nil, "link_url", "This field is required."},
		{"ftp link", "Roads", "ftp://example.com/roads", nil, "link_url", "absolute http or https URL"},
		{"credentials", "Roads", "https://u:p@example.com/", nil, "link_url", "without credentials"},
		{"relative", "Roads", "/roads", nil, "link_url", "absolute http or https URL"},
		{"long link", "Roads", "https://example.com/" + strings.Repeat("a", 2000), nil, "link_url", "no more than 2000"},
	} {
		_, err := catalogitems.CheckNew(tc.title, "", tc.link, tc.tags, nil)
		if err == nil || apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(strings.Join(apperr.As(err).Fields[tc.field], " "), tc.msg) {
			t.Errorf("%s: %v, want a 400 on %s containing %q", tc.name, err, tc.field, tc.msg)
		}
	}
	if _, err := catalogitems.CheckNew(" Roads ", "", " https://example.com/roads ", []string{"transport"}, nil); err != nil {
		t.Fatalf("a good item: %v", err)
	}
}

// Create writes the item, its creator's grants and a draft; NewDraft
// starts from a version with its metadata document; UpdateDraft changes
// only what the change sets, and an empty tag list clears the tags.
func TestCreateDraftAndUpdate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		u := storetest.User(t, c, "o@example.com")
		svc := &catalogitems.Service{Store: st}
		n, err := catalogitems.CheckNew(" Roads ", "All roads", " https://example.com/roads ", []string{"transport", "Transport"}, []string{"roads"})
		if err != nil {
			t.Fatal(err)
		}
		vid, err := svc.Create(ctx, u.ID, nil, n)
		if err != nil {
			t.Fatal(err)
		}
		v := c.CatalogItemVersion.Query().Where(catalogitemversion.ID(vid)).WithItem().OnlyX(ctx)
		if v.Title != "Roads" || v.LinkURL != "https://example.com/roads" || v.Description != "All roads" ||
			v.State != catalogitemversion.StateDraft || v.Edges.Item.Title != "Roads" || v.Edges.Item.UserID != u.ID {
			t.Fatalf("created %+v (item %+v)", v, v.Edges.Item)
		}
		grants := c.DatasetPermission.Query().Where(datasetpermission.DatasetID(v.ItemID),
			datasetpermission.DatasetKindEQ(datasetpermission.DatasetKindCatalogItem)).AllX(ctx)
		if len(grants) != 2 {
			t.Fatalf("grants %v, want the creator's admin and everyone's download", grants)
		}

		if err := c.MetadataDocument.Create().SetDatasetKind(metadata.KindItem).SetDatasetID(v.ItemID).SetVersionID(v.ID).
			SetFormat("dc").SetXML("<dc/>").SetTitle("Roads").SetUploadedBy(u.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		it := v.Edges.Item
		did, err := svc.NewDraft(ctx, it, v, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		d := c.CatalogItemVersion.GetX(ctx, did)
		if d.Title != v.Title || d.LinkURL != v.LinkURL || !reflect.DeepEqual(d.Tags, v.Tags) || !reflect.DeepEqual(d.Categories, v.Categories) {
			t.Fatalf("draft %+v from %+v", d, v)
		}
		if doc, err := metadata.Document(ctx, c, metadata.KindItem, d.ID); err != nil || doc == nil || doc.XML != "<dc/>" {
			t.Fatalf("draft's metadata %v, %v", doc, err)
		}

		ch, err := catalogitems.CheckChange(nil, ptr("New text"), nil, []string{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.UpdateDraft(ctx, d, ch); err != nil {
			t.Fatal(err)
		}
		got := c.CatalogItemVersion.GetX(ctx, d.ID)
		if got.Description != "New text" || len(got.Tags) != 0 || got.Title != "Roads" || !reflect.DeepEqual(got.Categories, d.Categories) {
			t.Fatalf("after the change %+v", got)
		}
		if _, err := catalogitems.CheckChange(ptr(" "), nil, nil, nil, nil); apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("a blank title: %v", err)
		}
	})
}
