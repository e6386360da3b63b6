package catalogitems_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/catalogitems"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 26.2, "for a catalog item, its metadata": the fields of a version
// that changed, old and new, in the item's field order; the metadata
// document's extracted fields with them; unchanged fields (and empty
// against none) left out.
func TestCompareItemVersions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		u := storetest.User(t, c, "o@example.com")
		it := c.CatalogItem.Create().SetTitle("Roads").SetUserID(u.ID).SaveX(ctx)
		v1 := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle("Roads").SetLinkURL("https://example.org/roads").
			SetTags([]string{"roads"}).SetCreatedBy(u.ID).SaveX(ctx)
		v2 := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle("Roads").SetDescription("All roads.").
			SetLinkURL("https://example.org/roads/v2").SetTags([]string{"roads", "transport"}).SetCategories([]string{}).
			SetCreatedBy(u.ID).SaveX(ctx)
		c.MetadataDocument.Create().SetDatasetKind(metadata.KindItem).SetDatasetID(it.ID).SetVersionID(v2.ID).
			SetFormat(metadatadocument.FormatDc).SetXML("<x/>").SetTitle("Roads of the region").SetUploadedBy(u.ID).ExecX(ctx)

		got, err := catalogitems.Compare(ctx, c, v1, v2)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got)
		want := `[{"name":"description","old":"","new":"All roads."},` +
			`{"name":"link_url","old":"https://example.org/roads","new":"https://example.org/roads/v2"},` +
			`{"name":"tags","old":["roads"],"new":["roads","transport"]},` +
			`{"name":"metadata.format","old":null,"new":"dc"},{"name":"metadata.title","old":null,"new":"Roads of the region"}]`
		if string(b) != want {
			t.Fatalf("1→2:\n%s\nwant\n%s", b, want)
		}
		if got, err := catalogitems.Compare(ctx, c, v2, v2); err != nil || len(got) != 0 {
			t.Fatalf("2→2: %+v %v", got, err)
		}
		got, err = catalogitems.Compare(ctx, c, nil, v1)
		if b, _ := json.Marshal(got); err != nil || string(b) != `[{"name":"title","old":null,"new":"Roads"},`+
			`{"name":"link_url","old":null,"new":"https://example.org/roads"},{"name":"tags","old":null,"new":["roads"]}]` {
			t.Fatalf("nothing→1: %s %v", b, err)
		}
	})
}
