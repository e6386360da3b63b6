package exports

import (
	"context"
	"database/sql"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/paging"
)

// ErrCantCancel is the answer to cancelling an export that is not
// processing (REST: 409 {"errors": ["Can't cancel"]}).
var ErrCantCancel = apperr.New(apperr.Conflict, "Can't cancel")

// Create validates req and, when it is valid, stores the export and
// inserts its job in one transaction. An invalid request returns the
// validation and no export.
func (s *Service) Create(ctx context.Context, req Request) (*ent.Export, *Validation, error) {
	u, err := access.RequireUser(ctx, ScopeWrite)
	if err != nil {
		return nil, nil, err
	}
	val, err := s.validate(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer func() { val.area.close(); val.area = nil }()
	if !val.Valid {
		return nil, val, nil
	}
	via := export.CreatedViaWeb
	if auth.FromContext(ctx).Method == auth.TokenAuth {
		via = export.CreatedViaAPI
	}
	var id int
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		create := c.Export.Create().SetUserID(u.ID).SetName(val.name).SetCreatedVia(via).
			SetProgress(0).SetCrs(val.crs).SetFormats(req.Formats).SetItems(req.Items).
			SetParts(val.parts).SetSizeEstimateZipped(val.SizeEstimateZipped).SetFeatureCount(featureTotal(val))
		if req.Options != nil {
			create.SetOptions(req.Options)
		}
		if a := val.area; a != nil {
			create.SetClip(a.wkb).SetCropFeature(a.url)
			if a.asked != nil {
				create.SetExtent(a.asked)
			}
		}
		e, err := create.Save(ctx)
		if err != nil {
			return err
		}
		id = e.ID
		jobID, err := s.Jobs.InsertTx(ctx, tx, Args{ExportID: e.ID}, jobs.For(u.ID, false))
		if err != nil {
			return err
		}
		return c.Export.UpdateOneID(e.ID).SetJobID(jobID).Exec(ctx)
	})
	if err != nil {
		return nil, nil, err
	}
	e, err := s.Store.Client.Export.Get(ctx, id)
	return e, val, err
}

func featureTotal(val *Validation) int64 {
	var n int64
	for _, p := range val.parts {
		n += p.FeatureCount
	}
	return n
}

// Get returns an export its creator or a site administrator asks for;
// to anyone else it does not exist.
func (s *Service) Get(ctx context.Context, id int) (*ent.Export, error) {
	u, err := RequireReader(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.Store.Client.Export.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && e.UserID != u.ID && !u.IsSiteAdmin) {
		return nil, apperr.New(apperr.NotFound, "Not found.")
	}
	return e, err
}

// Page is one page of a list of exports.
type Page struct {
	Items []*ent.Export
	paging.Page
	Total int
}

// List returns the caller's exports, newest first; a site administrator
// asking for all sees everyone's.
func (s *Service) List(ctx context.Context, all bool, number, size *int) (*Page, error) {
	u, err := RequireReader(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := paging.New(number, size, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	q := s.Query(u, all)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	items, err := q.Order(export.ByID(entsql.OrderDesc())).Offset(pg.Offset()).Limit(pg.Size).All(ctx)
	if err != nil {
		return nil, err
	}
	return &Page{Items: items, Page: pg, Total: total}, nil
}

// Query selects the exports u sees: their own, or everyone's for a site
// administrator asking for all.
func (s *Service) Query(u *ent.User, all bool) *ent.ExportQuery {
	q := s.Store.Client.Export.Query()
	if !all || !u.IsSiteAdmin {
		q.Where(export.UserID(u.ID))
	}
	return q
}

// Cancel stops a processing export: the row becomes cancelled (progress
// null) and its job is cancelled in the same transaction; the worker stops
// and removes its files.
func (s *Service) Cancel(ctx context.Context, id int) (*ent.Export, error) {
	if _, err := access.RequireUser(ctx, ScopeWrite); err != nil {
		return nil, err
	}
	e, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if e.State != export.StateProcessing {
		return nil, ErrCantCancel
	}
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		n, err := c.Export.Update().Where(export.ID(id), export.StateEQ(export.StateProcessing)).
			SetState(export.StateCancelled).ClearProgress().SetCompletedAt(time.Now().UTC()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrCantCancel
		}
		if e.JobID != nil {
			if _, err := s.Jobs.CancelTx(ctx, tx, *e.JobID); err != nil && err != jobs.ErrNotFound {
				return err
			}
		}
		_, err = s.Notify.Publish(ctx, c, e.UserID, "export.cancelled", map[string]any{"export_id": id, "state": "cancelled"})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Store.Client.Export.Get(ctx, id)
}

// Download returns a complete export whose file the caller may download,
// with its blob key; an export not complete (or gone) has no file (404).
func (s *Service) Download(ctx context.Context, id int) (*ent.Export, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if e.State != export.StateComplete || e.BlobKey == "" {
		return nil, apperr.New(apperr.NotFound, "The export has no file: it is %s.", e.State)
	}
	return e, nil
}

// Downloaded counts a download of each dataset of e.
func (s *Service) Downloaded(e *ent.Export) {
	if s.Popularity == nil {
		return
	}
	seen := map[int]bool{}
	for _, p := range e.Parts {
		if !seen[p.LayerID] {
			seen[p.LayerID] = true
			s.Popularity.Download("layer", p.LayerID)
		}
	}
}
