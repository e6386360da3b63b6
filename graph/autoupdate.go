package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/schedule"
)

// setAutoupdate changes a layer's auto-update settings; schedule nil
// keeps the layer's. The next scan for changes is the schedule's next
// run.
func (r *Resolver) setAutoupdate(ctx context.Context, layerID int, on bool, sched *string) (*ent.Layer, error) {
	l, err := r.loadLayer(ctx, layerID, true)
	if err != nil {
		return nil, err
	}
	s := l.AutoupdateSchedule
	if sched != nil {
		s = strings.TrimSpace(*sched)
	}
	if err := schedule.CheckAutoupdate(on, s); err != nil {
		return nil, err
	}
	upd := r.Client.Layer.UpdateOneID(l.ID).SetAutoupdate(on).SetAutoupdateSchedule(s)
	if next := schedule.NextAfter(s, nowUTC()); next != nil && on {
		upd.SetNextAutoupdateAt(*next)
	} else {
		upd.ClearNextAutoupdateAt()
	}
	return upd.Save(ctx)
}

// EditableLayer returns layer id when the caller may edit it, else the
// refusal its resolvers give (an unseen layer is not found, as an absent
// one is). Adapters check a body against the layer only after it.
func (r *Resolver) EditableLayer(ctx context.Context, id int) (*ent.Layer, error) {
	return r.loadLayer(ctx, id, true)
}
