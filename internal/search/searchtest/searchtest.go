// Package searchtest fills the search index from the store for tests,
// the way the search feed keeps it: a published doc for every published
// dataset and a latest doc for each, with Tweak to set doc fields a test
// cannot easily put in the store. Tests import it; the service keeps the
// index with internal/searchfeed.
package searchtest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
)

// Tweak adjusts the docs of the dataset with a given title (both its
// published and latest docs) before they are indexed: the catalogue
// fields the store cannot hold yet (tags, categories, licenses, ...).
type Tweak map[string]func(*search.Doc)

// Index puts every layer, table, set, document, catalog item and source of st
// into the search index, a published doc for each published dataset and
// a latest doc for each (its draft when it has one).
func Index(t testing.TB, st *store.Store, tweak Tweak) {
	t.Helper()
	ctx := context.Background()
	c := st.Client
	var docs []search.Doc
	add := func(d search.Doc, published bool, latestStatus string) {
		if f := tweak[d.Title]; f != nil {
			f(&d)
		}
		if published {
			p := d
			p.Ref.State, p.VersionStatus = search.Published, "published"
			docs = append(docs, p)
		}
		d.Ref.State, d.VersionStatus = search.Latest, latestStatus
		docs = append(docs, d)
	}
	cats := map[string]string{}
	for _, ct := range c.Category.Query().AllX(ctx) {
		cats[ct.Key] = ct.Name
	}
	licenses := map[int]*ent.License{}
	for _, l := range c.License.Query().AllX(ctx) {
		licenses[l.ID] = l
	}
	// fields fills the catalogue fields versions hold: tags, categories
	// (with their names) and the license.
	fields := func(d *search.Doc, tags, categories []string, license *int) {
		d.Tags = append(d.Tags, tags...)
		for _, k := range categories {
			d.Categories = append(d.Categories, search.KeyName{Key: k, Name: cats[k]})
		}
		if license != nil && licenses[*license] != nil {
			d.LicenseType, d.LicenseVersion = licenses[*license].Type, licenses[*license].Version
		}
	}
	group := func(id *int) (int, string) {
		if id == nil {
			return 0, ""
		}
		g := c.Group.GetX(ctx, *id)
		return g.ID, g.Name
	}
	for _, ly := range c.Layer.Query().AllX(ctx) {
		vs := ly.QueryVersions().Where(layerversion.StateIn(layerversion.StatePublished, layerversion.StateDraft)).AllX(ctx)
		for _, v := range vs {
			gid, gname := group(ly.GroupID)
			typ := search.TypeLayer
			if ly.Type == "table" {
				typ = search.TypeTable
			}
			d := search.Doc{Ref: search.Ref{Type: typ, ID: ly.ID}, Kind: string(ly.Kind), Title: v.Name, Description: v.Description,
				GroupID: gid, GroupName: gname, UserID: ly.UserID, GeometryType: v.GeometryType, RasterResolution: v.RasterResolution,
				HasPK: len(v.PrimaryKeyFields) > 0, CreatedAt: ly.CreatedAt, UpdatedAt: v.UpdatedAt, FirstPublishedAt: ly.FirstPublishedAt,
				PermKind: "layer", PermID: ly.ID}
			if typ == search.TypeTable {
				d.Kind = "table"
			}
			for _, f := range v.Fields {
				d.FieldNames = append(d.FieldNames, f.Name)
			}
			fields(&d, v.Tags, v.Categories, v.LicenseID)
			latest := v.State == layerversion.StateDraft || len(vs) == 1
			if v.State == layerversion.StatePublished && !latest {
				add(d, true, "")
				docs = docs[:len(docs)-1] // the draft gives the latest doc
				continue
			}
			add(d, v.State == layerversion.StatePublished, statusOf(v.State == layerversion.StatePublished, string(v.Status)))
		}
	}
	for _, s := range c.Set.Query().AllX(ctx) {
		vs := s.QueryVersions().Where(setversion.StateIn(setversion.StatePublished, setversion.StateDraft)).AllX(ctx)
		for _, v := range vs {
			gid, gname := group(s.GroupID)
			d := search.Doc{Ref: search.Ref{Type: search.TypeSet, ID: s.ID}, Kind: "set", Title: v.Title, Description: v.Description,
				GroupID: gid, GroupName: gname, UserID: s.UserID, CreatedAt: s.CreatedAt, UpdatedAt: v.UpdatedAt,
				FirstPublishedAt: s.FirstPublishedAt, PermKind: "set", PermID: s.ID}
			fields(&d, v.Tags, v.Categories, v.LicenseID)
			latest := v.State == setversion.StateDraft || len(vs) == 1
			if v.State == setversion.StatePublished && !latest {
				add(d, true, "")
				docs = docs[:len(docs)-1]
				continue
			}
			add(d, v.State == setversion.StatePublished, statusOf(v.State == setversion.StatePublished, ""))
		}
	}
	for _, dd := range c.Document.Query().AllX(ctx) {
		vs := dd.QueryVersions().Where(documentversion.StateIn(documentversion.StatePublished, documentversion.StateDraft)).AllX(ctx)
		for _, v := range vs {
			gid, gname := group(dd.GroupID)
			d := search.Doc{Ref: search.Ref{Type: search.TypeDocument, ID: dd.ID}, Kind: "document", Title: v.Name, Description: v.Description,
				GroupID: gid, GroupName: gname, UserID: dd.UserID, CreatedAt: dd.CreatedAt, UpdatedAt: dd.UpdatedAt,
				FirstPublishedAt: dd.FirstPublishedAt, PermKind: "document", PermID: dd.ID}
			fields(&d, v.Tags, v.Categories, v.LicenseID)
			latest := v.State == documentversion.StateDraft || len(vs) == 1
			if v.State == documentversion.StatePublished && !latest {
				add(d, true, "")
				docs = docs[:len(docs)-1]
				continue
			}
			add(d, v.State == documentversion.StatePublished, statusOf(v.State == documentversion.StatePublished, ""))
		}
	}
	for _, it := range c.CatalogItem.Query().AllX(ctx) {
		vs := it.QueryVersions().Where(catalogitemversion.StateIn(catalogitemversion.StatePublished, catalogitemversion.StateDraft)).AllX(ctx)
		for _, v := range vs {
			gid, gname := group(it.GroupID)
			d := search.Doc{Ref: search.Ref{Type: search.TypeItem, ID: it.ID}, Kind: "item", Title: v.Title, Description: v.Description,
				Tags: v.Tags, GroupID: gid, GroupName: gname, UserID: it.UserID, CreatedAt: it.CreatedAt, UpdatedAt: v.UpdatedAt,
				FirstPublishedAt: it.FirstPublishedAt, PermKind: "catalog_item", PermID: it.ID}
			latest := v.State == catalogitemversion.StateDraft || len(vs) == 1
			if v.State == catalogitemversion.StatePublished && !latest {
				add(d, true, "")
				docs = docs[:len(docs)-1]
				continue
			}
			add(d, v.State == catalogitemversion.StatePublished, statusOf(v.State == catalogitemversion.StatePublished, ""))
		}
	}
	// Sources have no versions: both docs describe the source as it is.
	for _, src := range c.Source.Query().AllX(ctx) {
		gid, gname := group(src.GroupID)
		d := search.Doc{Ref: search.Ref{Type: search.TypeSource, ID: src.ID}, Kind: "source", Title: src.Title, Description: src.Description,
			GroupID: gid, GroupName: gname, UserID: src.UserID, CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt,
			PermKind: "source", PermID: src.ID, SourceType: string(src.Type)}
		add(d, true, "published")
	}
	ix := search.New(st)
	err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error { return ix.Put(ctx, tx, docs...) })
	if err != nil {
		t.Fatal(err)
	}
}

// Day is a date at midnight UTC, for docs' times in filter tests.
func Day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// statusOf is a latest doc's version status, as the search feed gives it:
// "published" for a published version, else the draft's import status
// (layers and tables) or "ok".
func statusOf(published bool, importStatus string) string {
	switch {
	case published:
		return "published"
	case importStatus != "":
		return importStatus
	}
	return "ok"
}
