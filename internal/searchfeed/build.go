package searchfeed

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/category"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/license"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setitem"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/search"
)

// batchIDs is how many ids one IN (...) list of the builder holds.
const batchIDs = 500

// Build returns the docs of the named datasets as the store holds them
// (read through c, which may be bound to a transaction), and the refs of
// docs that must not exist: the published doc of a dataset with no
// published version, and every doc of a dataset that is gone. Groups and
// Users in ds are expanded to the datasets they own or created, layers to
// the sets that hold them (a set's doc carries its members' titles).
//
// It costs a constant number of statements per 500 datasets of each type,
// whatever the number of docs.
func Build(ctx context.Context, c *ent.Client, ds Datasets) ([]search.Doc, []search.Ref, error) {
	ds, err := expand(ctx, c, ds)
	if err != nil {
		return nil, nil, err
	}
	return build(ctx, c, ds)
}

// build is Build of datasets already expanded (no groups or users).
func build(ctx context.Context, c *ent.Client, ds Datasets) ([]search.Doc, []search.Ref, error) {
	b := &builder{c: c, groups: map[int]string{}, users: map[int]string{},
		categories: map[string]string{}, licenses: map[int]*ent.License{}, licenseOf: map[search.Ref]int{}}
	if err := b.loadLayers(ctx, keys(ds.Layers)); err != nil {
		return nil, nil, err
	}
	if err := b.loadSets(ctx, keys(ds.Sets)); err != nil {
		return nil, nil, err
	}
	if err := b.loadDocuments(ctx, keys(ds.Documents)); err != nil {
		return nil, nil, err
	}
	if err := b.loadItems(ctx, keys(ds.Items)); err != nil {
		return nil, nil, err
	}
	if err := b.loadSources(ctx, keys(ds.Sources)); err != nil {
		return nil, nil, err
	}
	if err := b.loadNames(ctx); err != nil {
		return nil, nil, err
	}
	for i := range b.docs {
		d := &b.docs[i]
		d.GroupName = b.groups[d.GroupID]
		d.UserName = b.users[d.UserID]
		for j, c := range d.Categories {
			// A key no category holds (removed since) is named by its
			// last segment.
			if d.Categories[j].Name = b.categories[c.Key]; d.Categories[j].Name == "" {
				d.Categories[j].Name = c.Key[strings.LastIndex(c.Key, "/")+1:]
			}
		}
		if l := b.licenses[b.licenseOf[d.Ref]]; l != nil {
			d.LicenseType, d.LicenseVersion = l.Type, l.Version
		}
	}
	return b.docs, b.gone, nil
}

// expand turns groups and users into the datasets they own or created,
// and adds the sets whose current versions hold any of the layers.
func expand(ctx context.Context, c *ent.Client, ds Datasets) (Datasets, error) {
	var out Datasets
	out.Merge(ds)
	out.Groups, out.Users = nil, nil
	for _, owner := range []struct {
		ids   map[int]bool
		group bool
	}{{ds.Groups, true}, {ds.Users, false}} {
		for _, chunk := range chunks(keys(owner.ids), batchIDs) {
			var err error
			var ls, ss, dd, is, srcs []int
			if owner.group {
				ls, err = c.Layer.Query().Where(layer.GroupIDIn(chunk...)).IDs(ctx)
				if err == nil {
					ss, err = c.Set.Query().Where(set.GroupIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					dd, err = c.Document.Query().Where(document.GroupIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					is, err = c.CatalogItem.Query().Where(catalogitem.GroupIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					srcs, err = c.Source.Query().Where(source.GroupIDIn(chunk...)).IDs(ctx)
				}
			} else {
				ls, err = c.Layer.Query().Where(layer.UserIDIn(chunk...)).IDs(ctx)
				if err == nil {
					ss, err = c.Set.Query().Where(set.UserIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					dd, err = c.Document.Query().Where(document.UserIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					is, err = c.CatalogItem.Query().Where(catalogitem.UserIDIn(chunk...)).IDs(ctx)
				}
				if err == nil {
					srcs, err = c.Source.Query().Where(source.UserIDIn(chunk...)).IDs(ctx)
				}
			}
			if err != nil {
				return out, fmt.Errorf("searchfeed: finding the datasets of a publisher: %w", err)
			}
			out.AddLayers(ls...)
			out.AddSets(ss...)
			out.AddDocuments(dd...)
			out.AddItems(is...)
			out.AddSources(srcs...)
		}
	}
	for _, chunk := range chunks(keys(ds.Layers), batchIDs) {
		ids, err := c.SetItem.Query().Where(setitem.LayerIDIn(chunk...)).
			QuerySetVersion().Where(setversion.StateIn(setversion.StateDraft, setversion.StatePublished)).
			Select(setversion.FieldSetID).Ints(ctx)
		if err != nil {
			return out, fmt.Errorf("searchfeed: finding the sets of layers: %w", err)
		}
		out.AddSets(ids...)
	}
	return out, nil
}

// builder accumulates docs, gone refs and the publishers to name.
type builder struct {
	c      *ent.Client
	docs   []search.Doc
	gone   []search.Ref
	groups map[int]string // group id -> name, filled by loadNames
	users  map[int]string // user id -> display name
	// categories maps the category keys docs name to their names, and
	// licenses the licence ids they name to the licences (loadNames).
	categories map[string]string
	licenses   map[int]*ent.License
	licenseOf  map[search.Ref]int
}

// owner records the doc's publisher for loadNames.
func (b *builder) owner(d *search.Doc, groupID *int, userID int) {
	if groupID != nil {
		d.GroupID = *groupID
		b.groups[*groupID] = ""
	}
	d.UserID = userID
	b.users[userID] = ""
}

// both emits the published and latest docs of one dataset: base filled by
// fill for each existing version, gone refs for the missing ones.
func (b *builder) both(t search.Type, id int, published, latest bool, fill func(d *search.Doc, state search.State)) {
	for _, st := range []struct {
		state  search.State
		exists bool
	}{{search.Published, published}, {search.Latest, latest}} {
		ref := search.Ref{Type: t, ID: id, State: st.state}
		if !st.exists {
			b.gone = append(b.gone, ref)
			continue
		}
		d := search.Doc{Ref: ref}
		fill(&d, st.state)
		b.docs = append(b.docs, d)
	}
}

// current splits a dataset's versions into its draft and published ones.
type current[V any] struct {
	draft, published V
	hasDraft, hasPub bool
}

// pick returns the version a state describes: the published one, or the
// latest (the draft when there is one).
func (c current[V]) pick(state search.State) V {
	if state == search.Latest && c.hasDraft {
		return c.draft
	}
	return c.published
}

// statusOf is the doc's version status: "published" for a published
// version, else the draft's import status (layers) or "ok".
func statusOf(published bool, importStatus string) string {
	if published {
		return "published"
	}
	if importStatus == "" {
		return "ok"
	}
	return importStatus
}

// catalogue fills the catalogue fields a dataset version carries beside
// its own data: tags, category keys (named by finish), the licence (read
// by finish) and the popularity of the dataset (views plus downloads).
func (b *builder) catalogue(d *search.Doc, tags, categories []string, licenseID *int, views, downloads int64) {
	d.Tags = append(d.Tags, tags...)
	for _, c := range categories {
		if key := strings.Trim(c, "/"); key != "" {
			d.Categories = append(d.Categories, search.KeyName{Key: key})
			b.categories[key] = ""
		}
	}
	if licenseID != nil {
		b.licenseOf[d.Ref] = *licenseID
		b.licenses[*licenseID] = nil
	}
	d.Popularity = popularity.Score(views, downloads)
}

// fieldNames lists the attribute names of a layer version, without its
// geometry column.
func fieldNames(v *ent.LayerVersion) []string {
	var out []string
	for _, f := range v.Fields {
		if f.Type != "geometry" && f.Name != v.GeometryField {
			out = append(out, f.Name)
		}
	}
	return out
}

// geometryFamily files a geometry type under point, linestring or polygon
// (multi types with their singles), as the data.geometry_type filter
// names them; other types are kept as they are.
func geometryFamily(t string) string {
	t = strings.ToLower(t)
	return strings.TrimPrefix(t, "multi")
}

func (b *builder) loadLayers(ctx context.Context, ids []int) error {
	for _, chunk := range chunks(ids, batchIDs) {
		ls, err := b.c.Layer.Query().Where(layer.IDIn(chunk...)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading layers: %w", err)
		}
		vs, err := b.c.LayerVersion.Query().
			Where(layerversion.LayerIDIn(chunk...), layerversion.StateIn(layerversion.StateDraft, layerversion.StatePublished)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading layer versions: %w", err)
		}
		threeD, err := b.threeD(ctx, vs)
		if err != nil {
			return err
		}
		cur := map[int]current[*ent.LayerVersion]{}
		for _, v := range vs {
			c := cur[v.LayerID]
			if v.State == layerversion.StateDraft {
				c.draft, c.hasDraft = v, true
			} else {
				c.published, c.hasPub = v, true
			}
			cur[v.LayerID] = c
		}
		found := map[int]bool{}
		for _, l := range ls {
			found[l.ID] = true
			c := cur[l.ID]
			t, other := search.TypeLayer, search.TypeTable
			if l.Type == layer.TypeTable {
				t, other = other, t
			}
			b.gone = append(b.gone, search.Ref{Type: other, ID: l.ID, State: search.Published}, search.Ref{Type: other, ID: l.ID, State: search.Latest})
			b.both(t, l.ID, c.hasPub, c.hasPub || c.hasDraft, func(d *search.Doc, state search.State) {
				v := c.pick(state)
				d.Kind = string(l.Kind)
				if l.Type == layer.TypeTable {
					d.Kind = "table"
				}
				d.Title, d.Description = v.Name, v.Description
				d.VersionStatus = statusOf(v.State == layerversion.StatePublished, string(v.Status))
				b.owner(d, l.GroupID, l.UserID)
				d.FieldNames = fieldNames(v)
				d.HasPK = len(v.PrimaryKeyFields) > 0
				if l.Type == layer.TypeLayer && l.Kind == layer.KindVector {
					d.GeometryType = geometryFamily(v.GeometryType)
					// Z: a datasource of the version has three
					// dimensions (the scan reads the declared and
					// the features' geometry types).
					for _, id := range v.DatasourceIds {
						d.HasZ = d.HasZ || threeD[id]
					}
				}
				if l.Kind == layer.KindRaster || l.Kind == layer.KindGrid {
					d.RasterResolution = v.RasterResolution
					imagery := l.Kind == layer.KindRaster
					d.IsImagery = &imagery
					for _, band := range v.Bands {
						if ci := strings.ToLower(band.ColorInterp); ci != "" && ci != "undefined" {
							d.RasterBands = append(d.RasterBands, ci)
						}
					}
				}
				b.catalogue(d, v.Tags, v.Categories, v.LicenseID, l.NumViews, l.NumDownloads)
				d.CreatedAt, d.UpdatedAt, d.FirstPublishedAt = l.CreatedAt, v.UpdatedAt, l.FirstPublishedAt
				d.PermKind, d.PermID = string(access.KindLayer), l.ID
			})
		}
		b.goneAll(chunk, found, search.TypeLayer, search.TypeTable)
	}
	return nil
}

// goneAll marks every doc of the requested datasets that were not found.
func (b *builder) goneAll(requested []int, found map[int]bool, types ...search.Type) {
	for _, id := range requested {
		if found[id] {
			continue
		}
		for _, t := range types {
			b.gone = append(b.gone, search.Ref{Type: t, ID: id, State: search.Published}, search.Ref{Type: t, ID: id, State: search.Latest})
		}
	}
}

func (b *builder) loadSets(ctx context.Context, ids []int) error {
	for _, chunk := range chunks(ids, batchIDs) {
		ss, err := b.c.Set.Query().Where(set.IDIn(chunk...)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading sets: %w", err)
		}
		vs, err := b.c.SetVersion.Query().
			Where(setversion.SetIDIn(chunk...), setversion.StateIn(setversion.StateDraft, setversion.StatePublished)).
			WithItems(func(q *ent.SetItemQuery) {
				q.Order(ent.Asc(setitem.FieldPosition)).WithLayer(func(lq *ent.LayerQuery) {
					lq.Select(layer.FieldName, layer.FieldPublishedVersionID)
				})
			}).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading set versions: %w", err)
		}
		public, err := b.publicMembers(ctx, vs)
		if err != nil {
			return err
		}
		cur := map[int]current[*ent.SetVersion]{}
		for _, v := range vs {
			c := cur[v.SetID]
			if v.State == setversion.StateDraft {
				c.draft, c.hasDraft = v, true
			} else {
				c.published, c.hasPub = v, true
			}
			cur[v.SetID] = c
		}
		found := map[int]bool{}
		for _, s := range ss {
			found[s.ID] = true
			c := cur[s.ID]
			b.both(search.TypeSet, s.ID, c.hasPub, c.hasPub || c.hasDraft, func(d *search.Doc, state search.State) {
				v := c.pick(state)
				d.Kind = "set"
				d.Title, d.Description = v.Title, v.Description
				d.VersionStatus = statusOf(v.State == setversion.StatePublished, "")
				b.owner(d, s.GroupID, s.UserID)
				d.MemberTitles = memberTitles(v, public)
				b.catalogue(d, v.Tags, v.Categories, v.LicenseID, s.NumViews, s.NumDownloads)
				d.CreatedAt, d.UpdatedAt, d.FirstPublishedAt = s.CreatedAt, v.UpdatedAt, s.FirstPublishedAt
				d.PermKind, d.PermID = string(access.KindSet), s.ID
			})
		}
		b.goneAll(chunk, found, search.TypeSet)
	}
	return nil
}

// memberTitles is the member text of a set version's doc. A set's doc
// serves every caller, so it holds only what every caller may see: the
// published titles (a published layer's name is its published version's)
// of public members. A never-published member, or a private one, adds no
// word: a search must not tell anyone that a set holds it. Publishing a
// member, or opening it, reindexes the sets holding it (expand, touched).
func memberTitles(v *ent.SetVersion, public map[int]bool) []string {
	var out []string
	for _, it := range v.Edges.Items {
		if l := it.Edges.Layer; l != nil && public[l.ID] && l.PublishedVersionID != nil {
			out = append(out, l.Name)
		}
	}
	return out
}

// threeD returns which datasources of the layer versions have three or
// more dimensions.
func (b *builder) threeD(ctx context.Context, vs []*ent.LayerVersion) (map[int]bool, error) {
	var ids []int
	for _, v := range vs {
		ids = append(ids, v.DatasourceIds...)
	}
	out := map[int]bool{}
	for _, chunk := range chunks(slices.Compact(slices.Sorted(slices.Values(ids))), batchIDs) {
		found, err := b.c.Datasource.Query().Where(datasource.IDIn(chunk...), datasource.NumDimsGTE(3)).IDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("searchfeed: loading datasource dimensions: %w", err)
		}
		for _, id := range found {
			out[id] = true
		}
	}
	return out, nil
}

// publicMembers returns which member layers of the set versions everyone
// may view (a grant to everyone of view or more).
func (b *builder) publicMembers(ctx context.Context, vs []*ent.SetVersion) (map[int]bool, error) {
	var ids []int
	for _, v := range vs {
		for _, it := range v.Edges.Items {
			if it.Edges.Layer != nil {
				ids = append(ids, it.Edges.Layer.ID)
			}
		}
	}
	out := map[int]bool{}
	for _, chunk := range chunks(slices.Compact(slices.Sorted(slices.Values(ids))), batchIDs) {
		pub, err := b.c.DatasetPermission.Query().Where(datasetpermission.DatasetKindEQ(access.KindLayer),
			datasetpermission.DatasetIDIn(chunk...), datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone),
			datasetpermission.PermissionIn(datasetpermission.PermissionView, datasetpermission.PermissionDownload,
				datasetpermission.PermissionEdit, datasetpermission.PermissionAdmin)).
			Select(datasetpermission.FieldDatasetID).Ints(ctx)
		if err != nil {
			return nil, fmt.Errorf("searchfeed: loading member grants: %w", err)
		}
		for _, id := range pub {
			out[id] = true
		}
	}
	return out, nil
}

func (b *builder) loadDocuments(ctx context.Context, ids []int) error {
	for _, chunk := range chunks(ids, batchIDs) {
		ds, err := b.c.Document.Query().Where(document.IDIn(chunk...)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading documents: %w", err)
		}
		vs, err := b.c.DocumentVersion.Query().
			Where(documentversion.DocumentIDIn(chunk...), documentversion.StateIn(documentversion.StateDraft, documentversion.StatePublished)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading document versions: %w", err)
		}
		cur := map[int]current[*ent.DocumentVersion]{}
		for _, v := range vs {
			c := cur[v.DocumentID]
			if v.State == documentversion.StateDraft {
				c.draft, c.hasDraft = v, true
			} else {
				c.published, c.hasPub = v, true
			}
			cur[v.DocumentID] = c
		}
		found := map[int]bool{}
		for _, doc := range ds {
			found[doc.ID] = true
			c := cur[doc.ID]
			b.both(search.TypeDocument, doc.ID, c.hasPub, c.hasPub || c.hasDraft, func(d *search.Doc, state search.State) {
				v := c.pick(state)
				d.Kind = "document"
				d.Title, d.Description = v.Name, v.Description
				d.VersionStatus = statusOf(v.State == documentversion.StatePublished, "")
				b.owner(d, doc.GroupID, doc.UserID)
				b.catalogue(d, v.Tags, v.Categories, v.LicenseID, doc.NumViews, doc.NumDownloads)
				d.CreatedAt, d.UpdatedAt, d.FirstPublishedAt = doc.CreatedAt, v.UpdatedAt, doc.FirstPublishedAt
				d.PermKind, d.PermID = string(access.KindDocument), doc.ID
			})
		}
		b.goneAll(chunk, found, search.TypeDocument)
	}
	return nil
}

func (b *builder) loadItems(ctx context.Context, ids []int) error {
	for _, chunk := range chunks(ids, batchIDs) {
		is, err := b.c.CatalogItem.Query().Where(catalogitem.IDIn(chunk...)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading catalog items: %w", err)
		}
		vs, err := b.c.CatalogItemVersion.Query().
			Where(catalogitemversion.ItemIDIn(chunk...), catalogitemversion.StateIn(catalogitemversion.StateDraft, catalogitemversion.StatePublished)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading catalog item versions: %w", err)
		}
		cur := map[int]current[*ent.CatalogItemVersion]{}
		for _, v := range vs {
			c := cur[v.ItemID]
			if v.State == catalogitemversion.StateDraft {
				c.draft, c.hasDraft = v, true
			} else {
				c.published, c.hasPub = v, true
			}
			cur[v.ItemID] = c
		}
		geos, err := b.c.CatalogItemGeotag.Query().Where(catalogitemgeotag.ItemIDIn(chunk...)).
			Select(catalogitemgeotag.FieldItemID, catalogitemgeotag.FieldName).Order(ent.Asc(catalogitemgeotag.FieldID)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading catalog item geotags: %w", err)
		}
		geotags := map[int][]search.KeyName{}
		for _, g := range geos {
			// An item's geotags are its own named places: the name is the
			// key the geotag filter and facet use.
			geotags[g.ItemID] = append(geotags[g.ItemID], search.KeyName{Key: g.Name, Name: g.Name})
		}
		found := map[int]bool{}
		for _, it := range is {
			found[it.ID] = true
			c := cur[it.ID]
			b.both(search.TypeItem, it.ID, c.hasPub, c.hasPub || c.hasDraft, func(d *search.Doc, state search.State) {
				v := c.pick(state)
				d.Kind = "item"
				d.Title, d.Description = v.Title, v.Description
				d.VersionStatus = statusOf(v.State == catalogitemversion.StatePublished, "")
				b.owner(d, it.GroupID, it.UserID)
				// Catalog items have no licence or counters.
				b.catalogue(d, v.Tags, v.Categories, nil, 0, 0)
				d.Geotags = geotags[it.ID]
				d.CreatedAt, d.UpdatedAt, d.FirstPublishedAt = it.CreatedAt, v.UpdatedAt, it.FirstPublishedAt
				d.PermKind, d.PermID = string(access.KindCatalogItem), it.ID
			})
		}
		b.goneAll(chunk, found, search.TypeItem)
	}
	return nil
}

// loadSources indexes sources, which have no versions: the published and
// latest docs are the same.
func (b *builder) loadSources(ctx context.Context, ids []int) error {
	for _, chunk := range chunks(ids, batchIDs) {
		ss, err := b.c.Source.Query().Where(source.IDIn(chunk...)).
			Select(source.FieldTitle, source.FieldDescription, source.FieldType, source.FieldUserID, source.FieldGroupID,
				source.FieldCreatedAt, source.FieldUpdatedAt).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading sources: %w", err)
		}
		found := map[int]bool{}
		for _, s := range ss {
			found[s.ID] = true
			b.both(search.TypeSource, s.ID, true, true, func(d *search.Doc, _ search.State) {
				d.Kind = "source"
				d.SourceType = string(s.Type)
				d.Title, d.Description = s.Title, s.Description
				d.VersionStatus = statusOf(true, "")
				b.owner(d, s.GroupID, s.UserID)
				b.catalogue(d, nil, nil, nil, 0, 0)
				d.CreatedAt, d.UpdatedAt = s.CreatedAt, s.UpdatedAt
				d.PermKind, d.PermID = string(access.KindSource), s.ID
			})
		}
		b.goneAll(chunk, found, search.TypeSource)
	}
	return nil
}

// loadNames names the groups, users, categories and licences the docs
// refer to.
func (b *builder) loadNames(ctx context.Context) error {
	if len(b.categories) > 0 {
		cs, err := b.c.Category.Query().Where(category.KeyIn(slices.Collect(maps.Keys(b.categories))...)).
			Select(category.FieldKey, category.FieldName).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading categories: %w", err)
		}
		for _, c := range cs {
			b.categories[c.Key] = c.Name
		}
	}
	if len(b.licenses) > 0 {
		ls, err := b.c.License.Query().Where(license.IDIn(keys(boolKeys(b.licenses))...)).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading licences: %w", err)
		}
		for _, l := range ls {
			b.licenses[l.ID] = l
		}
	}
	delete(b.groups, 0)
	delete(b.users, 0)
	for _, chunk := range chunks(keys(boolKeys(b.groups)), batchIDs) {
		gs, err := b.c.Group.Query().Where(group.IDIn(chunk...)).Select(group.FieldName).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading groups: %w", err)
		}
		for _, g := range gs {
			b.groups[g.ID] = g.Name
		}
	}
	for _, chunk := range chunks(keys(boolKeys(b.users)), batchIDs) {
		us, err := b.c.User.Query().Where(user.IDIn(chunk...)).Select(user.FieldFirstName, user.FieldLastName).All(ctx)
		if err != nil {
			return fmt.Errorf("searchfeed: loading users: %w", err)
		}
		for _, u := range us {
			b.users[u.ID] = UserName(u)
		}
	}
	return nil
}

// UserName is the name a user publishes under: first and last name (an
// email address is never indexed).
func UserName(u *ent.User) string {
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

func boolKeys[V any](m map[int]V) map[int]bool {
	out := make(map[int]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
