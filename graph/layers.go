package graph

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/features"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/publishing"
)

// The scopes of the layer and table operations.
const (
	scopeLayersRead  = "layers:read"
	scopeLayersWrite = "layers:write"
)

// layerVisible narrows layers to those the caller may read: published
// ones, and the ones they may edit.
func layerVisible(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Layer, error) {
	edit, err := layerEditable(ctx, c, p)
	if err != nil {
		return nil, err
	}
	return layer.Or(layer.PublishedVersionIDNotNil(), edit), nil
}

// layerEditable narrows layers to those p may edit: their own, those of
// groups where they hold edit_data or more, every layer for site
// administrators. (Per-dataset permissions refine this later.)
func layerEditable(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Layer, error) {
	if p.IsSiteAdmin() {
		return layer.IDGT(0), nil
	}
	if !p.Authenticated() {
		return layer.IDLT(0), nil
	}
	groups, err := dataEditorGroups(ctx, c, p.User.ID)
	if err != nil {
		return nil, err
	}
	return layer.Or(layer.UserID(p.User.ID), layer.GroupIDIn(groups...)), nil
}

// dataEditorGroups returns the groups where a user holds edit_data or
// more: the groups whose datasets they may edit.
func dataEditorGroups(ctx context.Context, c *ent.Client, userID int) ([]int, error) {
	return c.GroupMembership.Query().
		Where(groupmembership.UserID(userID), groupmembership.PermissionIn(
			groupmembership.PermissionEditData, groupmembership.PermissionEditUsers, groupmembership.PermissionAdmin)).
		Select(groupmembership.FieldGroupID).Ints(ctx)
}

// loadLayer returns a layer the caller may read (edit, when write), else
// NOT_FOUND.
func (r *Resolver) loadLayer(ctx context.Context, id int, write bool) (*ent.Layer, error) {
	scope := scopeLayersRead
	if write {
		scope = scopeLayersWrite
	}
	if write {
		if _, err := access.RequireUser(ctx, scope); err != nil {
			return nil, err
		}
	} else if err := access.RequireScope(ctx, scope); err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	q := r.Client.Layer.Query().Where(layer.ID(id))
	pred, err := layerVisible(ctx, r.Client, p)
	if write {
		pred, err = layerEditable(ctx, r.Client, p)
	}
	if err != nil {
		return nil, err
	}
	q.Where(pred)
	l, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Layer %d not found.", id)
	}
	return l, err
}

// canEdit reports whether the caller may edit l.
func (r *Resolver) canEdit(ctx context.Context, l *ent.Layer) (bool, error) {
	pred, err := layerEditable(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return false, err
	}
	return r.Client.Layer.Query().Where(layer.ID(l.ID), pred).Exist(ctx)
}

// loadVersion returns a version of a layer the caller may see: published
// and superseded versions of visible layers; drafts only for editors.
func (r *Resolver) loadVersion(ctx context.Context, layerID, versionID int, write bool) (*ent.Layer, *ent.LayerVersion, error) {
	l, err := r.loadLayer(ctx, layerID, write)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.Client.LayerVersion.Query().Where(layerversion.ID(versionID), layerversion.LayerID(layerID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apperr.New(apperr.NotFound, "Version %d not found.", versionID)
	}
	if err != nil {
		return nil, nil, err
	}
	if !write && v.State != layerversion.StatePublished && v.State != layerversion.StateSuperseded {
		if ok, err := r.canEdit(ctx, l); err != nil || !ok {
			return nil, nil, apperr.New(apperr.NotFound, "Version %d not found.", versionID)
		}
	}
	return l, v, nil
}

// checkDatasources loads datasources for a layer: they must exist in
// sources the caller manages, be of one data type (vector or table) and
// share one schema. It returns them and the layer type they make.
func (r *Resolver) checkDatasources(ctx context.Context, ids []int) ([]*ent.Datasource, layer.Type, error) {
	if len(ids) == 0 {
		return nil, "", apperr.Field("datasources", "Give at least one datasource.")
	}
	p := auth.FromContext(ctx)
	dss, err := r.Client.Datasource.Query().
		Where(datasource.IDIn(ids...), datasource.HasSourceWith(sourceScope(p))).
		Order(datasource.ByID()).All(ctx)
	if err != nil {
		return nil, "", err
	}
	if len(dss) != len(uniqueInts(ids)) {
		return nil, "", apperr.Field("datasources", "Some datasources do not exist or are not yours to use.")
	}
	first := dss[0]
	for _, d := range dss {
		if d.Missing {
			return nil, "", apperr.Field("datasources", fmt.Sprintf("Datasource %d was not found by the last scan of its source.", d.ID))
		}
		if d.DataType != first.DataType {
			return nil, "", apperr.Field("datasources", fmt.Sprintf("Datasources must share one data type: %d is %s, %d is %s.", first.ID, first.DataType, d.ID, d.DataType))
		}
		if !reflect.DeepEqual(d.Fields, first.Fields) || d.GeometryType != first.GeometryType {
			return nil, "", apperr.Field("datasources", fmt.Sprintf("Datasources must share one schema: %d and %d differ in fields or geometry type.", first.ID, d.ID))
		}
	}
	switch first.DataType {
	case datasource.DataTypeVector:
		return dss, layer.TypeLayer, nil
	case datasource.DataTypeTable:
		return dss, layer.TypeTable, nil
	case datasource.DataTypeDocument:
		return nil, "", apperr.Field("datasources", "A document datasource makes a document, not a layer.")
	}
	return nil, "", apperr.Field("datasources", "Raster and grid layers cannot be imported yet.")
}

func uniqueInts(in []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// describeVersion copies the datasources' description onto a version.
func describeVersion(m *ent.LayerVersionMutation, dss []*ent.Datasource) {
	ids := make([]int, len(dss))
	for i, d := range dss {
		ids[i] = d.ID
	}
	first := dss[0]
	geomField := ""
	for _, f := range first.Fields {
		if f.Type == "geometry" {
			geomField = f.Name
		}
	}
	m.SetDatasourceIds(ids)
	m.SetCrs(first.Crs)
	m.SetGeometryType(first.GeometryType)
	m.SetGeometryField(geomField)
	m.SetFields(first.Fields)
}

// startImport enqueues the import of v in the transaction of c.
func (r *Resolver) startImport(ctx context.Context, c *ent.Client, tx *sql.Tx, v *ent.LayerVersion) error {
	return importing.Start(ctx, c, tx, r.Jobs, v)
}

// publishVersions starts a publish group of versions.
func (r *Resolver) publishVersions(ctx context.Context, userID int, items publishing.Items) (*ent.PublishGroup, error) {
	var g *ent.PublishGroup
	err := r.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		var err error
		g, err = publishing.Start(ctx, c, tx, r.Jobs, r.Notify, userID, items)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.Client.PublishGroup.Get(ctx, g.ID)
}

// copyFeatures gives a new draft the features of the version it starts
// from.
func (r *Resolver) copyFeatures(ctx context.Context, tx *sql.Tx, from, to int) error {
	return features.CopyVersion(ctx, r.Store, tx, from, to)
}
