package graph

import (
	"context"
	"database/sql"
	entsql "entgo.io/ent/dialect/sql"
	"errors"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/layers"
	"github.com/geopub/geopub/internal/lifecycle"
	"github.com/geopub/geopub/internal/publishing"
)

// layerVisible narrows layers to those the caller may read: published
// ones they hold view on, and the ones they may edit.
func layerVisible(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Layer, error) {
	return visibleTo[predicate.Layer](ctx, c, p, access.KindLayer)
}

// layerEditable narrows layers to those p may edit (see and change
// drafts): by a dataset permission of edit or admin, as a data editor of
// the owning group, or as a site administrator.
func layerEditable(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Layer, error) {
	return editableBy[predicate.Layer](ctx, c, p, access.KindLayer)
}

// loadLayer returns a layer the caller may read, else NOT_FOUND; with
// write, one they may edit, else FORBIDDEN.
func (r *Resolver) loadLayer(ctx context.Context, id int, write bool) (*ent.Layer, error) {
	return r.layerKind().load(ctx, r.Client, id, write)
}

// loadPublishGroup returns a publish group the caller started (any, for
// site administrators), with the caller's credentials carrying scope: the
// read scope to see it, the write scope to cancel it. Others are
// NOT_FOUND.
func (r *Resolver) loadPublishGroup(ctx context.Context, id int, scope string) (*ent.PublishGroup, error) {
	u, err := access.RequireUser(ctx, scope)
	if err != nil {
		return nil, err
	}
	g, err := r.Client.PublishGroup.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && g.CreatedBy != u.ID && !u.IsSiteAdmin) {
		return nil, apperr.New(apperr.NotFound, "Publish group %d not found.", id)
	}
	return g, err
}

// canEdit reports whether the caller may edit l.
func (r *Resolver) canEdit(ctx context.Context, l *ent.Layer) (bool, error) {
	lv, err := r.datasetLevel(ctx, access.KindLayer, l.ID, l.GroupID)
	return lv >= access.Edit, err
}

// loadVersion returns a version of a layer the caller may see: published
// and superseded versions of visible layers; drafts only for editors.
func (r *Resolver) loadVersion(ctx context.Context, layerID, versionID int, write bool) (*ent.Layer, *ent.LayerVersion, error) {
	l, err := r.loadLayer(ctx, layerID, write)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.layerKind().loadVersion(ctx, l, versionID, write)
	if err != nil {
		return nil, nil, err
	}
	return l, v, nil
}

// layers writes layers and their drafts.
func (r *Resolver) layers() *layers.Service {
	return &layers.Service{Store: r.Store, Jobs: r.Jobs}
}

// checkDatasources loads the datasources a layer is to be made from
// (layers.CheckDatasources), no more of them than a list input takes.
func (r *Resolver) checkDatasources(ctx context.Context, ids []int) ([]*ent.Datasource, layers.Shape, error) {
	if err := checkListInput("datasources", len(ids)); err != nil {
		return nil, layers.Shape{}, err
	}
	return layers.CheckDatasources(ctx, r.Client, auth.FromContext(ctx), ids)
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

// MaxPublishItems bounds the versions of one publish (see MaxListInput).
const MaxPublishItems = MaxListInput

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

// dropGrids removes the grid files of deleted versions (vector versions
// have none). A failure leaves an orphan file behind, which is logged.
func (r *Resolver) dropGrids(ctx context.Context, versionIDs ...int) {
	for _, id := range versionIDs {
		err := r.Blobs.Delete(ctx, grids.Key(id))
		if err != nil && !errors.Is(err, blob.ErrNotFound) {
			r.Logger.WarnContext(ctx, "deleting a grid file", "version", id, "err", err)
		}
	}
}

// Scope is the token scope a publish needs: sets:write for set versions
// alone, layers:write as soon as a layer or table version is among them.
func (in PublishInput) Scope() string {
	if len(in.VersionIDs) == 0 && len(in.SetVersionIDs) > 0 {
		return auth.ScopeSetsWrite
	}
	return auth.ScopeLayersWrite
}

// notYoursToPublish refuses a version a publish names that does not exist
// or that the caller may not edit, with one message for both, so that the
// answer does not tell which version ids exist.
func notYoursToPublish(what string, id int) error {
	return apperr.Field("items", fmt.Sprintf("%s %d does not exist or is not yours to publish.", what, id))
}

// missingID returns the first of ids that found lacks, and false; true
// when every id was found.
func missingID[T any](ids []int, found []T, idOf func(T) int) (int, bool) {
	have := make(map[int]bool, len(found))
	for _, f := range found {
		have[idOf(f)] = true
	}
	for _, id := range ids {
		if !have[id] {
			return id, false
		}
	}
	return 0, true
}

// layerKind is the layers' and tables' datasetKind.
func (r *Resolver) layerKind() datasetKind[ent.Layer, ent.LayerVersion] {
	return datasetKind[ent.Layer, ent.LayerVersion]{
		kind:       access.KindLayer,
		readScope:  auth.ScopeLayersRead,
		writeScope: auth.ScopeLayersWrite,
		query: func(ctx context.Context, id int, visible func(*entsql.Selector)) (*ent.Layer, error) {
			return r.Client.Layer.Query().Where(layer.ID(id), predicate.Layer(visible)).Only(ctx)
		},
		title:     "Layer",
		noun:      func(l *ent.Layer) string { return fmt.Sprintf("%s %d", l.Type, l.ID) },
		canEdit:   r.canEdit,
		name:      func(l *ent.Layer) string { return fmt.Sprintf("Layer %d", l.ID) },
		ids:       func(l *ent.Layer) (int, *int) { return l.ID, l.PublishedVersionID },
		versionID: func(v *ent.LayerVersion) int { return v.ID },
		current: func(ctx context.Context, id int) (currentOf[*ent.LayerVersion], error) {
			return loadersFrom(ctx).layers.layerVersions(ctx, r.Client, id)
		},
		mayEdit: func(ctx context.Context, l *ent.Layer) (bool, error) {
			return loadersFrom(ctx).layers.mayEditLayer(ctx, r.Client, l.ID)
		},
		get: r.Client.LayerVersion.Get,
		version: func(ctx context.Context, id, versionID int) (*ent.LayerVersion, error) {
			return r.Client.LayerVersion.Query().Where(layerversion.ID(versionID), layerversion.LayerID(id)).Only(ctx)
		},
		released: func(v *ent.LayerVersion) bool {
			return lifecycle.Released(v.State)
		},
		list: func(ctx context.Context, id int, drafts bool) ([]*ent.LayerVersion, error) {
			q := r.Client.LayerVersion.Query().Where(layerversion.LayerID(id), layerversion.StateNEQ(layerversion.StateDeleted))
			if !drafts {
				q.Where(layerversion.StateIn(layerversion.StatePublished, layerversion.StateSuperseded))
			}
			return q.Order(layerversion.ByID(entsql.OrderDesc())).All(ctx)
		},
	}
}
