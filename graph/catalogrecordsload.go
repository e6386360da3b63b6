package graph

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/category"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/license"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	cr "github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/search"
)

// describedRecord is a record with the index hit it came from.
type describedRecord struct {
	rec cr.Record
	hit search.Hit
}

// recordVersion is what a record takes from a published version.
type recordVersion struct {
	id                 int
	title, description string
	tags, categories   []string
	licenseID          *int
	extent             []float64
	crs                string
	updated            time.Time
	published          *time.Time
}

// describeRecords turns catalogue entries into records: their versions,
// licences, categories, owners and uploaded metadata, a constant number
// of queries for any number of entries. Entries without a published
// version (unpublished since the index was read) are left out.
func (r *Resolver) describeRecords(ctx context.Context, entries []CatalogEntry) ([]describedRecord, error) {
	versions, err := r.recordVersions(ctx, entries)
	if err != nil {
		return nil, err
	}
	var licenseIDs, groupIDs, userIDs []int
	cats := map[string]bool{}
	for _, v := range versions {
		if v.licenseID != nil {
			licenseIDs = append(licenseIDs, *v.licenseID)
		}
		for _, c := range v.categories {
			cats[c] = true
		}
	}
	out := make([]describedRecord, 0, len(entries))
	for _, e := range entries {
		t, id, created, owner, gid := entryFacts(e)
		v, ok := versions[versionKey{t, id}]
		if !ok {
			continue
		}
		rec := cr.Record{
			Identifier: cr.Identifier(t, id), Type: t, Kind: e.Hit.Kind, ID: id, VersionID: v.id,
			Title: v.title, Abstract: v.description, Keywords: v.tags, BBox: v.extent, CRS: v.crs,
			Created: created, Modified: v.updated,
		}
		if v.published != nil {
			rec.Published = *v.published
		}
		if gid != nil {
			rec.GroupID = *gid
			groupIDs = append(groupIDs, *gid)
		} else {
			userIDs = append(userIDs, owner)
			rec.Publisher.ID = owner
		}
		out = append(out, describedRecord{rec: rec, hit: e.Hit})
	}
	if err := r.nameRecordParties(ctx, out, groupIDs, userIDs); err != nil {
		return nil, err
	}
	licenses, err := r.Client.License.Query().Where(license.IDIn(licenseIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byLicense := map[int]*ent.License{}
	for _, l := range licenses {
		byLicense[l.ID] = l
	}
	names, err := r.categoryNames(ctx, slices.Collect(maps.Keys(cats)))
	if err != nil {
		return nil, err
	}
	for i := range out {
		rec := &out[i].rec
		v := versions[versionKey{rec.Type, rec.ID}]
		if v.licenseID != nil {
			if l := byLicense[*v.licenseID]; l != nil {
				rec.License = &cr.License{Type: l.Type, Version: l.Version, Title: l.Title, URL: l.LegalCodeURL}
			}
		}
		for _, c := range v.categories {
			rec.Themes = append(rec.Themes, cr.Theme{Key: c, Name: names[c]})
		}
		rec.Contact = rec.Publisher
	}
	return out, r.applyRecordMetadata(ctx, out)
}

type versionKey struct {
	t  cr.Type
	id int
}

// entryFacts are an entry's type, id, creation time, creator and group.
func entryFacts(e CatalogEntry) (cr.Type, int, time.Time, int, *int) {
	switch {
	case e.Layer != nil:
		t := cr.Layer
		if e.Layer.Type == layer.TypeTable {
			t = cr.Table
		}
		return t, e.Layer.ID, e.Layer.CreatedAt, e.Layer.UserID, e.Layer.GroupID
	case e.Set != nil:
		return cr.Set, e.Set.ID, e.Set.CreatedAt, e.Set.UserID, e.Set.GroupID
	case e.Document != nil:
		return cr.Document, e.Document.ID, e.Document.CreatedAt, e.Document.UserID, e.Document.GroupID
	case e.Item != nil:
		return cr.Item, e.Item.ID, e.Item.CreatedAt, e.Item.UserID, e.Item.GroupID
	}
	return "", 0, time.Time{}, 0, nil
}

// recordVersions loads the published versions of entries, one query per
// dataset type.
func (r *Resolver) recordVersions(ctx context.Context, entries []CatalogEntry) (map[versionKey]recordVersion, error) {
	var layerV, setV, docV, itemV []int
	tables := map[int]bool{}
	for _, e := range entries {
		switch {
		case e.Layer != nil && e.Layer.PublishedVersionID != nil:
			layerV = append(layerV, *e.Layer.PublishedVersionID)
			tables[e.Layer.ID] = e.Layer.Type == layer.TypeTable
		case e.Set != nil && e.Set.PublishedVersionID != nil:
			setV = append(setV, *e.Set.PublishedVersionID)
		case e.Document != nil && e.Document.PublishedVersionID != nil:
			docV = append(docV, *e.Document.PublishedVersionID)
		case e.Item != nil && e.Item.PublishedVersionID != nil:
			itemV = append(itemV, *e.Item.PublishedVersionID)
		}
	}
	out := map[versionKey]recordVersion{}
	if len(layerV) > 0 {
		vs, err := r.Client.LayerVersion.Query().Where(layerversion.IDIn(layerV...), layerversion.StateEQ(layerversion.StatePublished)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			t := cr.Layer
			if tables[v.LayerID] {
				t = cr.Table
			}
			out[versionKey{t, v.LayerID}] = recordVersion{id: v.ID, title: v.Name, description: v.Description, tags: v.Tags,
				categories: v.Categories, licenseID: v.LicenseID, extent: boxOf(v.Extent), crs: v.Crs, updated: v.UpdatedAt, published: v.PublishedAt}
		}
	}
	if len(setV) > 0 {
		vs, err := r.Client.SetVersion.Query().Where(setversion.IDIn(setV...), setversion.StateEQ(setversion.StatePublished)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out[versionKey{cr.Set, v.SetID}] = recordVersion{id: v.ID, title: v.Title, description: v.Description, tags: v.Tags,
				categories: v.Categories, licenseID: v.LicenseID, updated: v.UpdatedAt, published: v.PublishedAt}
		}
	}
	if len(docV) > 0 {
		vs, err := r.Client.DocumentVersion.Query().Where(documentversion.IDIn(docV...), documentversion.StateEQ(documentversion.StatePublished)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out[versionKey{cr.Document, v.DocumentID}] = recordVersion{id: v.ID, title: v.Name, description: v.Description, tags: v.Tags,
				categories: v.Categories, licenseID: v.LicenseID, updated: v.UpdatedAt, published: v.PublishedAt}
		}
	}
	if len(itemV) > 0 {
		if err := r.itemRecordVersions(ctx, itemV, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// itemRecordVersions adds catalog items' published versions, their extent
// the box around their geotags.
func (r *Resolver) itemRecordVersions(ctx context.Context, ids []int, out map[versionKey]recordVersion) error {
	vs, err := r.Client.CatalogItemVersion.Query().Where(catalogitemversion.IDIn(ids...), catalogitemversion.StateEQ(catalogitemversion.StatePublished)).All(ctx)
	if err != nil {
		return err
	}
	items := make([]int, len(vs))
	for i, v := range vs {
		items[i] = v.ItemID
	}
	tags, err := r.Client.CatalogItemGeotag.Query().Where(catalogitemgeotag.ItemIDIn(items...)).All(ctx)
	if err != nil {
		return err
	}
	boxes := map[int][]float64{}
	for _, g := range tags {
		boxes[g.ItemID] = unionBox(boxes[g.ItemID], geoJSONBox(g.Geometry["coordinates"]))
	}
	for _, v := range vs {
		out[versionKey{cr.Item, v.ItemID}] = recordVersion{id: v.ID, title: v.Title, description: v.Description, tags: v.Tags,
			categories: v.Categories, extent: boxes[v.ItemID], updated: v.UpdatedAt, published: v.PublishedAt}
	}
	return nil
}

// recordEntry loads one dataset as a catalogue entry, with its permission
// kind and group; nil when it does not exist or has no published version.
func (r *Resolver) recordEntry(ctx context.Context, t cr.Type, id int) (*CatalogEntry, access.Kind, *int, error) {
	e := &CatalogEntry{}
	var err error
	switch t {
	case cr.Layer, cr.Table:
		typ := layer.TypeLayer
		if t == cr.Table {
			typ = layer.TypeTable
		}
		e.Layer, err = r.Client.Layer.Query().Where(layer.ID(id), layer.TypeEQ(typ), layer.PublishedVersionIDNotNil()).Only(ctx)
		if err == nil {
			e.Hit.Kind = string(e.Layer.Kind)
			if t == cr.Table {
				e.Hit.Kind = "table"
			}
			return e, access.KindLayer, e.Layer.GroupID, nil
		}
	case cr.Set:
		e.Set, err = r.Client.Set.Query().Where(set.ID(id), set.PublishedVersionIDNotNil()).Only(ctx)
		if err == nil {
			e.Hit.Kind = "set"
			return e, access.KindSet, e.Set.GroupID, nil
		}
	case cr.Document:
		e.Document, err = r.Client.Document.Query().Where(document.ID(id), document.PublishedVersionIDNotNil()).Only(ctx)
		if err == nil {
			e.Hit.Kind = "document"
			return e, access.KindDocument, e.Document.GroupID, nil
		}
	case cr.Item:
		e.Item, err = r.Client.CatalogItem.Query().Where(catalogitem.ID(id), catalogitem.PublishedVersionIDNotNil()).Only(ctx)
		if err == nil {
			e.Hit.Kind = "item"
			return e, access.KindCatalogItem, e.Item.GroupID, nil
		}
	}
	if ent.IsNotFound(err) {
		err = nil
	}
	return nil, "", nil, err
}

// nameRecordParties names each record's publisher: its group, else its
// creator.
func (r *Resolver) nameRecordParties(ctx context.Context, recs []describedRecord, groupIDs, userIDs []int) error {
	groups, err := r.Client.Group.Query().Where(group.IDIn(groupIDs...)).All(ctx)
	if err != nil {
		return err
	}
	users, err := r.Client.User.Query().Where(user.IDIn(userIDs...)).All(ctx)
	if err != nil {
		return err
	}
	gs, us := map[int]*ent.Group{}, map[int]*ent.User{}
	for _, g := range groups {
		gs[g.ID] = g
	}
	for _, u := range users {
		us[u.ID] = u
	}
	for i := range recs {
		rec := &recs[i].rec
		if g := gs[rec.GroupID]; rec.GroupID != 0 && g != nil {
			rec.Publisher = cr.Party{Kind: "organization", Name: g.Name, ID: g.ID, URL: "/groups/" + itoa(g.ID) + "-" + g.URLSlug + "/"}
		} else if u := us[rec.Publisher.ID]; u != nil {
			rec.Publisher = cr.Party{Kind: "person", Name: personName(u), ID: u.ID}
		}
	}
	return nil
}

func personName(u *ent.User) string {
	switch {
	case u.FirstName != "" || u.LastName != "":
		return joinNonEmpty(u.FirstName, u.LastName)
	}
	return "User " + itoa(u.ID)
}

func joinNonEmpty(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), " ")
}

// categoryNames maps category keys to their names.
func (r *Resolver) categoryNames(ctx context.Context, keys []string) (map[string]string, error) {
	out := map[string]string{}
	if len(keys) == 0 {
		return out, nil
	}
	cs, err := r.Client.Category.Query().Where(category.KeyIn(keys...)).All(ctx)
	for _, c := range cs {
		out[c.Key] = c.Name
	}
	return out, err
}

// boxOf is a stored extent when it is a box.
func boxOf(extent []float64) []float64 {
	if len(extent) != 4 {
		return nil
	}
	return extent
}

// unionBox is the box around a and b (either nil).
func unionBox(a, b []float64) []float64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return []float64{min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])}
}

// geoJSONBox is the box around the positions of GeoJSON coordinates, nil
// when they hold none.
func geoJSONBox(coords any) []float64 {
	switch c := coords.(type) {
	case []any:
		if len(c) >= 2 {
			x, okx := c[0].(float64)
			y, oky := c[1].(float64)
			if okx && oky {
				return []float64{x, y, x, y}
			}
		}
		var box []float64
		for _, sub := range c {
			box = unionBox(box, geoJSONBox(sub))
		}
		return box
	}
	return nil
}
