// Package reimport starts the next version of a layer or table from its
// datasources: a new draft, described afresh from what the last scan of
// their sources found, whose import is enqueued at once. It is the
// "start update" of the REST API (POST /layers/{id}/versions/import/) and
// the first half of an auto-update (internal/autoupdate), so it takes a
// layer, not a caller: the adapters check the caller's rights first.
package reimport

import (
	"context"
	"database/sql"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/scanning"
)

// ErrNoDatasources is the answer when a layer's datasources are gone or
// were not found by the last scan of their source.
func ErrNoDatasources() error {
	return apperr.New(apperr.Invalid, "No valid datasources to import")
}

// Draft creates a new draft of layer l from the datasources of its base
// version (the published one, else its newest) and enqueues its import,
// on tx (c is tx's client). The draft keeps the base's name, description,
// catalogue fields, primary key (which the import keeps while the new
// data allows it; see internal/layerkey) and metadata document (else
// takes its datasources', AdoptMetadata); its schema comes from the
// datasources. CONFLICT when l already has a draft; BAD_REQUEST (No valid
// datasources to import) when a datasource is gone or missing.
func Draft(ctx context.Context, c *ent.Client, tx *sql.Tx, j *jobs.Jobs, l *ent.Layer, userID int) (*ent.LayerVersion, error) {
	// A write first: it holds the layer's row, so a racing call waits
	// here and then finds this one's draft.
	if err := c.Layer.UpdateOneID(l.ID).SetUpdatedAt(time.Now().UTC()).Exec(ctx); err != nil {
		return nil, err
	}
	draft, err := c.LayerVersion.Query().
		Where(layerversion.LayerID(l.ID), layerversion.StateEQ(layerversion.StateDraft)).First(ctx)
	if err == nil {
		return nil, apperr.New(apperr.Conflict, "%s %d already has a draft (version %d).", kindName(l), l.ID, draft.ID)
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	base, err := baseVersion(ctx, c, l)
	if err != nil {
		return nil, err
	}
	dss, err := usableDatasources(ctx, c, base.DatasourceIds)
	if err != nil {
		return nil, err
	}
	m := c.LayerVersion.Create().SetLayerID(l.ID).SetName(base.Name).SetDescription(base.Description).
		SetCreatedBy(userID).SetTags(base.Tags).SetCategories(base.Categories).SetNillableLicenseID(base.LicenseID).
		SetPrimaryKeyFields(base.PrimaryKeyFields)
	Describe(m.Mutation(), dss)
	v, err := m.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := metadata.CopyDocument(ctx, c, metadata.KindLayer, base.ID, v.ID); err != nil {
		return nil, err
	}
	if err := AdoptMetadata(ctx, c, v, dss); err != nil {
		return nil, err
	}
	if err := importing.Start(ctx, c, tx, j, v); err != nil {
		return nil, err
	}
	return v, nil
}

// AdoptMetadata gives version v, when it has no metadata document yet,
// a copy of the first one found beside its datasources by their scans.
func AdoptMetadata(ctx context.Context, c *ent.Client, v *ent.LayerVersion, dss []*ent.Datasource) error {
	if has, err := metadata.Document(ctx, c, metadata.KindLayer, v.ID); err != nil || has != nil {
		return err
	}
	for _, d := range dss {
		doc, err := metadata.Document(ctx, c, scanning.MetadataKind, d.ID)
		if err != nil || doc != nil {
			if err == nil {
				err = metadata.Adopt(ctx, c, doc, metadata.KindLayer, v.LayerID, v.ID)
			}
			return err
		}
	}
	return nil
}

// baseVersion is the version a new draft of l starts from: the published
// one, else the newest.
func baseVersion(ctx context.Context, c *ent.Client, l *ent.Layer) (*ent.LayerVersion, error) {
	if l.PublishedVersionID != nil {
		return c.LayerVersion.Get(ctx, *l.PublishedVersionID)
	}
	v, err := c.LayerVersion.Query().Where(layerversion.LayerID(l.ID)).
		Order(ent.Desc(layerversion.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNoDatasources()
	}
	return v, err
}

// usableDatasources loads datasources by id, in id order; every one must
// exist and have been found by the last scan.
func usableDatasources(ctx context.Context, c *ent.Client, ids []int) ([]*ent.Datasource, error) {
	if len(ids) == 0 {
		return nil, ErrNoDatasources()
	}
	dss, err := c.Datasource.Query().Where(datasource.IDIn(ids...), datasource.Missing(false)).
		Order(datasource.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	want := map[int]bool{}
	for _, id := range ids {
		want[id] = true
	}
	if len(dss) != len(want) {
		return nil, ErrNoDatasources()
	}
	return dss, nil
}

// Describe copies the datasources' description (ids, CRS, geometry type
// and field, fields) onto a version.
func Describe(m *ent.LayerVersionMutation, dss []*ent.Datasource) {
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

func kindName(l *ent.Layer) string {
	if l.Type == "table" {
		return "Table"
	}
	return "Layer"
}
