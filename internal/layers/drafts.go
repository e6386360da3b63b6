package layers

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/layerkey"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/reimport"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/textrules"
)

// A New is a layer to create with its first draft: datasources and shape
// from CheckDatasources, terms checked by catalogterms.
type New struct {
	// Name is trimmed and not blank (textrules.Required).
	Name, Description string
	// GroupID owns the layer (nil: its creator alone).
	GroupID     *int
	Datasources []*ent.Datasource
	Shape       Shape
	Terms       catalogterms.Edit
}

// Create writes a layer of creatorID's, its creator's grants and its first
// draft, described by its datasources and given their metadata, and starts
// the draft's import, all in one transaction. It returns the draft's id.
func (s *Service) Create(ctx context.Context, creatorID int, n New) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, tx *sql.Tx) (int, error) {
		l, err := c.Layer.Create().SetType(n.Shape.Type).SetKind(n.Shape.Kind).SetName(n.Name).
			SetUserID(creatorID).SetNillableGroupID(n.GroupID).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, creatorID); err != nil {
			return 0, err
		}
		m := c.LayerVersion.Create().SetLayerID(l.ID).SetName(n.Name).SetDescription(n.Description).SetCreatedBy(creatorID)
		reimport.Describe(m.Mutation(), n.Datasources)
		n.Terms.Apply(m.Mutation())
		v, err := m.Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := reimport.AdoptMetadata(ctx, c, v, n.Datasources); err != nil {
			return 0, err
		}
		return v.ID, importing.Start(ctx, c, tx, s.Jobs, v)
	})
}

// NewDraft writes a draft of l by userID that starts as version from is:
// its description, schema, terms, metadata document and features. It
// returns the draft's id.
func (s *Service) NewDraft(ctx context.Context, l *ent.Layer, from *ent.LayerVersion, userID int) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, tx *sql.Tx) (int, error) {
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(from.Name).SetDescription(from.Description).
			SetCreatedBy(userID).SetDatasourceIds(from.DatasourceIds).SetCrs(from.Crs).SetGeometryType(from.GeometryType).
			SetGeometryField(from.GeometryField).SetFields(from.Fields).SetPrimaryKeyFields(from.PrimaryKeyFields).SetKeyByFid(from.KeyByFid).
			SetFeatureCount(from.FeatureCount).SetEmptyGeometryCount(from.EmptyGeometryCount).SetExtent(from.Extent).
			SetTags(from.Tags).SetCategories(from.Categories).SetNillableLicenseID(from.LicenseID).
			SetStatus(layerversion.StatusOk).SetProgress(1).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := metadata.CopyDocument(ctx, c, metadata.KindLayer, from.ID, v.ID); err != nil {
			return 0, err
		}
		return v.ID, featurerows.CopyVersion(ctx, s.Store, tx, from.ID, v.ID)
	})
}

// A Change is an edit of a draft; nil fields stay as they are.
type Change struct {
	Name, Description, Reference *string
	// Datasources, from CheckDatasources, replace the draft's and start
	// a new import of them.
	Datasources []*ent.Datasource
	Shape       Shape
	// PrimaryKeyFields, when SetPrimaryKey, name the features' key (none
	// clears it); layerkey.Check rules.
	PrimaryKeyFields []string
	SetPrimaryKey    bool
	Terms            catalogterms.Edit
}

// UpdateDraft checks and applies ch to draft v of l: new datasources must
// fit the layer's shape, a name may not be blank, a primary key must hold
// (layerkey.Check). New datasources describe the draft, give it their
// metadata, and restart its import (cancelling one under way), in the
// transaction of the edit.
func (s *Service) UpdateDraft(ctx context.Context, l *ent.Layer, v *ent.LayerVersion, ch Change) error {
	if ch.Datasources != nil && !ch.Shape.Fits(l) {
		return apperr.Field("datasources", fmt.Sprintf("These datasources make a %s %s; layer %d is a %s %s.", ch.Shape.Kind, ch.Shape.Type, l.ID, l.Kind, l.Type))
	}
	var name string
	if ch.Name != nil {
		var err error
		if name, err = textrules.Required("name", *ch.Name, "This field may not be blank."); err != nil {
			return err
		}
	}
	var pk []string
	if ch.SetPrimaryKey {
		var schema []schematype.Field
		if ch.Datasources != nil {
			schema = ch.Datasources[0].Fields
		}
		var err error
		if pk, err = layerkey.Check(ctx, s.Store, v, ch.PrimaryKeyFields, schema); err != nil {
			return err
		}
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		upd := c.LayerVersion.UpdateOneID(v.ID)
		ch.Terms.Apply(upd.Mutation())
		switch {
		case !ch.SetPrimaryKey:
		case pk == nil:
			upd.ClearPrimaryKeyFields()
		default:
			upd.SetPrimaryKeyFields(pk)
		}
		if ch.Name != nil {
			upd.SetName(name)
		}
		if ch.Description != nil {
			upd.SetDescription(*ch.Description)
		}
		if ch.Reference != nil {
			upd.SetReference(*ch.Reference)
		}
		if ch.Datasources != nil {
			reimport.Describe(upd.Mutation(), ch.Datasources)
		}
		nv, err := upd.Save(ctx)
		if err != nil || ch.Datasources == nil {
			return err
		}
		if err := reimport.AdoptMetadata(ctx, c, nv, ch.Datasources); err != nil {
			return err
		}
		if v.ImportJobID != nil && v.Status == layerversion.StatusImporting {
			// On tx: Cancel would write through the job system's own
			// connection and wait for the locks tx holds.
			if _, err := s.Jobs.CancelTx(ctx, tx, *v.ImportJobID); err != nil {
				return err
			}
		}
		return importing.Start(ctx, c, tx, s.Jobs, nv)
	})
}
