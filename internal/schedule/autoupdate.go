package schedule

import (
	"context"
	"database/sql"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/publishing"
	"github.com/geopub/geopub/internal/reimport"
)

// autoUpdates does the two halves of auto-update: it scans the sources
// of layers whose autoupdate_schedule is due, and it re-imports into a
// new version, and publishes, every layer with autoupdate on whose
// datasources a scan (any scan) changed since its published version was
// made. A layer with a draft is left alone: its editor (or an auto-update
// still importing) owns it.
func (s *Scheduler) autoUpdates(ctx context.Context, now time.Time) error {
	layers, err := s.Store.Client.Layer.Query().
		Where(layer.Autoupdate(true), layer.AutoupdateScheduleNEQ("")).All(ctx)
	// Next runs are compared in the database, as the claims compare them.
	due, err2 := s.Store.Client.Layer.Query().
		Where(layer.Autoupdate(true), layer.AutoupdateScheduleNEQ(""),
			layer.Or(layer.NextAutoupdateAtIsNil(), layer.NextAutoupdateAtLTE(now))).IDs(ctx)
	if err == nil {
		err = err2
	}
	isDue := map[int]bool{}
	for _, id := range due {
		isDue[id] = true
	}
	if err != nil {
		return err
	}
	for _, l := range layers {
		if isDue[l.ID] {
			if err := s.scanForLayer(ctx, l, now); err != nil {
				s.Logger.WarnContext(ctx, "auto-update scan", "layer", l.ID, "err", err)
			}
		}
		if err := s.reimportIfChanged(ctx, l); err != nil {
			s.Logger.WarnContext(ctx, "auto-update", "layer", l.ID, "err", err)
		}
	}
	return nil
}

// scanForLayer claims the layer's due run (or arms it) and scans the
// sources of its published version's datasources.
func (s *Scheduler) scanForLayer(ctx context.Context, l *ent.Layer, now time.Time) error {
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		upd := c.Layer.Update().Where(layer.ID(l.ID))
		if l.NextAutoupdateAt == nil {
			upd.Where(layer.NextAutoupdateAtIsNil())
		} else {
			upd.Where(layer.NextAutoupdateAtLTE(now)) // still due: no other tick moved it
		}
		if next := NextAfter(l.AutoupdateSchedule, now); next != nil {
			upd.SetNextAutoupdateAt(*next)
		} else {
			upd.ClearNextAutoupdateAt()
		}
		if n, err := upd.Save(ctx); err != nil || n == 0 || l.NextAutoupdateAt == nil || l.PublishedVersionID == nil {
			return err
		}
		pv, err := c.LayerVersion.Get(ctx, *l.PublishedVersionID)
		if err != nil {
			return err
		}
		dss, err := c.Datasource.Query().Where(datasource.IDIn(pv.DatasourceIds...)).WithSource().All(ctx)
		if err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, d := range dss {
			if src := d.Edges.Source; src != nil && !seen[src.ID] {
				seen[src.ID] = true
				if err := startScan(ctx, c, tx, s.Jobs, src.ID, src.UserID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// reimportIfChanged starts a new version of a published layer without a
// draft whose datasources changed after its published version was made,
// and its publish (which waits for the import), as the layer's owner.
func (s *Scheduler) reimportIfChanged(ctx context.Context, l *ent.Layer) error {
	if l.PublishedVersionID == nil {
		return nil
	}
	c := s.Store.Client
	pv, err := c.LayerVersion.Get(ctx, *l.PublishedVersionID)
	if err != nil {
		return err
	}
	changed, err := c.Datasource.Query().Where(datasource.IDIn(pv.DatasourceIds...), datasource.Missing(false),
		datasource.UpdatedAtGT(pv.CreatedAt)).Exist(ctx)
	if err != nil || !changed {
		return err
	}
	if draft, err := c.LayerVersion.Query().Where(layerversion.LayerID(l.ID),
		layerversion.StateEQ(layerversion.StateDraft)).Exist(ctx); err != nil || draft {
		return err
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		v, err := reimport.Draft(ctx, c, tx, s.Jobs, l, l.UserID)
		if err != nil {
			return err
		}
		_, err = publishing.Start(ctx, c, tx, s.Jobs, s.Notify, l.UserID, publishing.Items{Layers: []int{v.ID}})
		return err
	})
}
