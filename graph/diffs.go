package graph

import (
	"context"
	"encoding/json"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/versiondiff"
)

// DiffServiceKey is the service a diff of a dataset's versions is read
// through.
const DiffServiceKey = "kart-diff"

// DiffPlan is a diff of a layer's or table's versions the caller may
// read: the layer, its two versions (From nil: from nothing) and what
// versiondiff compares.
type DiffPlan struct {
	Layer    *ent.Layer
	From, To *ent.LayerVersion
	A, B     versiondiff.Version
}

// LayerDiffPlan checks that the caller may read the diff of layer or
// table layerID (of type typ, unless nil) from version from to version to through the
// kart-diff service, and chooses the versions not given: to is the
// published version, from the version published before to (for a draft,
// the published version), or nothing when there is none. Both must have
// finished importing.
func (r *Resolver) LayerDiffPlan(ctx context.Context, typ *layer.Type, layerID int, from, to *int) (*DiffPlan, error) {
	read, _ := datasetScopes(DatasetTypeLayer)
	if err := access.RequireScope(ctx, read); err != nil {
		return nil, err
	}
	l, err := r.loadLayer(ctx, layerID, false)
	if err != nil {
		return nil, err
	}
	if typ != nil && l.Type != *typ {
		return nil, apperr.New(apperr.NotFound, "%s %d not found.", typeNoun(datasetTypeOf(*typ)), layerID)
	}
	if err := r.requireService(ctx, access.LayerOwner(l), DiffServiceKey); err != nil {
		return nil, err
	}
	p := &DiffPlan{Layer: l}
	if to != nil {
		if p.To, err = r.layerKind().loadVersion(ctx, l, *to, false); err != nil {
			return nil, err
		}
	} else if l.PublishedVersionID == nil {
		return nil, apperr.New(apperr.NotFound, "%s %d has no published version: name the version to diff (to).", typeNoun(datasetTypeOf(l.Type)), l.ID)
	} else if p.To, err = r.Client.LayerVersion.Get(ctx, *l.PublishedVersionID); err != nil {
		return nil, err
	}
	switch {
	case from != nil:
		if p.From, err = r.layerKind().loadVersion(ctx, l, *from, false); err != nil {
			return nil, err
		}
	default:
		if p.From, err = previousVersion(ctx, r.Client, l, p.To); err != nil {
			return nil, err
		}
	}
	for _, v := range []*ent.LayerVersion{p.From, p.To} {
		if v != nil && v.Status != layerversion.StatusOk {
			return nil, apperr.New(apperr.Conflict, "Version %d has no data to compare: its import is %s.", v.ID, v.Status)
		}
	}
	if p.From != nil {
		p.A = versiondiff.VersionOf(p.From)
	}
	p.B = versiondiff.VersionOf(p.To)
	return p, nil
}

// previousVersion is the version before v that readers saw: for a draft
// the published one, else the latest published before v; nil for none.
func previousVersion(ctx context.Context, c *ent.Client, l *ent.Layer, v *ent.LayerVersion) (*ent.LayerVersion, error) {
	if v.PublishedAt == nil {
		if l.PublishedVersionID == nil {
			return nil, nil
		}
		return c.LayerVersion.Get(ctx, *l.PublishedVersionID)
	}
	prev, err := c.LayerVersion.Query().Where(layerversion.LayerID(l.ID), layerversion.IDNEQ(v.ID),
		layerversion.StateIn(layerversion.StatePublished, layerversion.StateSuperseded),
		layerversion.PublishedAtLTE(*v.PublishedAt)).
		Order(ent.Desc(layerversion.FieldPublishedAt), ent.Desc(layerversion.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return prev, err
}

func datasetTypeOf(t layer.Type) DatasetType {
	if t == layer.TypeTable {
		return DatasetTypeTable
	}
	return DatasetTypeLayer
}

// requireService refuses a caller who may not use service key of o:
// anonymous callers as unauthenticated, others as denied.
func (r *Resolver) requireService(ctx context.Context, o access.ServiceOwner, key string) error {
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return err
	}
	ok, err := v.MayUseService(ctx, r.Client, o, key)
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case auth.FromContext(ctx).User == nil:
		return apperr.New(apperr.Unauthenticated, "Sign in to use the %s service of this dataset.", key)
	}
	return apperr.New(apperr.PermissionDenied, "The %s service of this dataset is not open to you.", key)
}

// MaxDiffPage bounds a page of changes; DefaultDiffPage is a page's size
// when the caller names none.
const (
	MaxDiffPage     = 1000
	DefaultDiffPage = 100
)

// DiffPage reads up to n changes of p after the cursor: the page, whether
// more follow, and the diff's schema and key.
func (r *Resolver) DiffPage(ctx context.Context, p *DiffPlan, after *versiondiff.Cursor, n int) ([]versiondiff.Change, bool, versiondiff.Diff, error) {
	var page []versiondiff.Change
	more := false
	d, err := versiondiff.Compare(ctx, r.Store, p.A, p.B, versiondiff.Options{After: after}, func(c versiondiff.Change) error {
		if len(page) == n {
			more = true
			return versiondiff.ErrStop
		}
		page = append(page, c)
		return nil
	})
	return page, more, d, err
}

// LayerDiff is the GraphQL layerDiff answer; its counts are computed only
// when asked for.
type LayerDiff struct {
	From, To    *ent.LayerVersion
	MatchedBy   []string
	KeyUnstable bool
	Schema      *SchemaChange
	Changes     []*FeatureChange
	EndCursor   *string
	HasNextPage bool
	plan        *DiffPlan
	store       *Resolver
}

// Counts counts the changes of the whole diff.
func (d *LayerDiff) Counts(ctx context.Context) (*DiffCounts, error) {
	c, err := versiondiff.Compare(ctx, d.store.Store, d.plan.A, d.plan.B, versiondiff.Options{CountOnly: true}, nil)
	if err != nil {
		return nil, err
	}
	return &DiffCounts{Inserts: int(c.Counts.Inserts), Updates: int(c.Counts.Updates), Deletes: int(c.Counts.Deletes)}, nil
}

// newLayerDiff is the GraphQL answer of a page of p's diff.
func newLayerDiff(r *Resolver, p *DiffPlan, d versiondiff.Diff, page []versiondiff.Change, more bool) (*LayerDiff, error) {
	out := &LayerDiff{From: p.From, To: p.To, MatchedBy: versiondiff.KeyNames(d.MatchedBy), KeyUnstable: versiondiff.Unstable(d.MatchedBy), Schema: schemaChange(d.Schema), HasNextPage: more,
		Changes: make([]*FeatureChange, len(page)), plan: p, store: r}
	if out.MatchedBy == nil {
		out.MatchedBy = []string{}
	}
	for i, c := range page {
		fc := &FeatureChange{Op: FeatureChangeOp(c.Op), Key: c.KeyValues(d.MatchedBy), Changed: c.Changed,
			GeometryChanged: c.GeometryChanged, Cursor: c.Cursor.String()}
		if fc.Changed == nil {
			fc.Changed = []string{}
		}
		var err error
		if fc.Old, err = diffFeature(c.Old); err != nil {
			return nil, err
		}
		if fc.New, err = diffFeature(c.New); err != nil {
			return nil, err
		}
		out.Changes[i] = fc
	}
	if len(page) > 0 {
		end := page[len(page)-1].Cursor.String()
		out.EndCursor = &end
	}
	return out, nil
}

func diffFeature(r *featurerows.Row) (*DiffFeature, error) {
	if r == nil {
		return nil, nil
	}
	f, err := versiondiff.FeatureOf(r, nil)
	if err != nil {
		return nil, err
	}
	out := &DiffFeature{Fid: int(r.FID), Properties: f.Properties}
	if string(f.Geometry) != "null" {
		if err := json.Unmarshal(f.Geometry, &out.Geometry); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func schemaChange(s versiondiff.SchemaChange) *SchemaChange {
	out := &SchemaChange{FieldsAdded: fieldPtrs(s.Added), FieldsRemoved: fieldPtrs(s.Removed), FieldsRetyped: []*RetypedField{}}
	for _, f := range s.Retyped {
		out.FieldsRetyped = append(out.FieldsRetyped, &RetypedField{Name: f.Name, Old: f.Old, New: f.New})
	}
	if s.CRS != nil {
		out.Crs = &ChangedValue{Old: s.CRS.Old, New: s.CRS.New}
	}
	if s.GeometryType != nil {
		out.GeometryType = &ChangedValue{Old: s.GeometryType.Old, New: s.GeometryType.New}
	}
	if s.PrimaryKey != nil {
		out.PrimaryKeyFields = &ChangedKey{Old: s.PrimaryKey.Old, New: s.PrimaryKey.New}
	}
	return out
}

func fieldPtrs(fs []schematype.Field) []*schematype.Field {
	out := make([]*schematype.Field, len(fs))
	for i := range fs {
		out[i] = &fs[i]
	}
	return out
}
