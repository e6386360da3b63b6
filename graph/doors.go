package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/scanning"
)

// The reads below serve the REST and HTML doors, which hold no Ent client
// (docs/architecture.md, the layering rule): each reads through r.Client,
// never through the client of an entity a mutation returned, which is its
// committed transaction's.

// LayerOf returns layer id to a door that has just read or written it, or
// one of its versions, through a resolver (to render it after a write, or
// to learn whether it is a table): it must be visible to the caller, whose
// credentials carry the layers' read or write scope. Unlike Query().Layer
// it counts no view.
func (r *Resolver) LayerOf(ctx context.Context, id int) (*ent.Layer, error) {
	return r.layerKind().seen(ctx, r.Client, id)
}

// DocumentOf returns document id to a door that has just read or written
// it, or one of its versions, through a resolver: as LayerOf, with the
// documents' scopes.
func (r *Resolver) DocumentOf(ctx context.Context, id int) (*ent.Document, error) {
	return r.documentKind().seen(ctx, r.Client, id)
}

// DocumentDatasource returns the datasource a document version was made
// from, nil when it is gone, for a version a resolver returned to the
// caller: the door links to it whatever the caller may do on its source.
func (r *Resolver) DocumentDatasource(ctx context.Context, v *ent.DocumentVersion) (*ent.Datasource, error) {
	ds, err := r.Client.Datasource.Get(ctx, v.DatasourceID)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return ds, err
}

// CatalogItemOf returns catalog item id to a door that has just written it
// or one of its versions through a resolver: it must be visible to the
// caller, whose credentials carry the catalogue's or the items' write
// scope.
func (r *Resolver) CatalogItemOf(ctx context.Context, id int) (*ent.CatalogItem, error) {
	p := auth.FromContext(ctx)
	if !p.HasScope(auth.ScopeCatalog) && !p.HasScope(auth.ScopeItemsWrite) {
		return nil, apperr.MissingScope(auth.ScopeCatalog)
	}
	visible, err := catalogItemVisible(ctx, r.Client, p)
	if err != nil {
		return nil, err
	}
	it, err := r.Client.CatalogItem.Query().Where(catalogitem.ID(id), visible).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Catalog item %s not found.", ItemPublicID(id))
	}
	return it, err
}

// DatasourcesMetadata returns the metadata documents of datasources a
// resolver returned to the caller, by datasource id, in one query.
func (r *Resolver) DatasourcesMetadata(ctx context.Context, dss ...*ent.Datasource) (map[int]*ent.MetadataDocument, error) {
	ids := make([]int, len(dss))
	for i, d := range dss {
		ids[i] = d.ID
	}
	return metadataByVersion(ctx, r.Client, scanning.MetadataKind, ids)
}

// PublishGroupVersions are the layer and set versions publish groups
// name, by id; layer versions come with their layer.
type PublishGroupVersions struct {
	Layers map[int]*ent.LayerVersion
	Sets   map[int]*ent.SetVersion
}

// PublishVersions loads the versions of publish groups a resolver returned
// to the caller (which checked they may see them), in two queries
// whatever the number of groups. A version deleted since is absent.
func (r *Resolver) PublishVersions(ctx context.Context, groups []*ent.PublishGroup) (PublishGroupVersions, error) {
	var layerIDs, setIDs []int
	for _, g := range groups {
		layerIDs = append(layerIDs, g.VersionIds...)
		setIDs = append(setIDs, g.SetVersions...)
	}
	out := PublishGroupVersions{Layers: map[int]*ent.LayerVersion{}, Sets: map[int]*ent.SetVersion{}}
	if len(layerIDs) > 0 {
		vs, err := r.Client.LayerVersion.Query().Where(layerversion.IDIn(layerIDs...)).WithLayer().All(ctx)
		if err != nil {
			return out, err
		}
		for _, v := range vs {
			out.Layers[v.ID] = v
		}
	}
	if len(setIDs) > 0 {
		vs, err := r.Client.SetVersion.Query().Where(setversion.IDIn(setIDs...)).All(ctx)
		if err != nil {
			return out, err
		}
		for _, v := range vs {
			out.Sets[v.ID] = v
		}
	}
	return out, nil
}
