package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/schedule"
)

// checkAutoupdate validates a layer body's autoupdate and
// autoupdate_schedule as they would leave layer lid (0: a new layer),
// before anything is written: autoupdate on needs a schedule. The layer
// is read only once the caller may edit it: others get the refusal an
// absent layer gets, and learn nothing of its schedule.
func (a *API) checkAutoupdate(r *http.Request, lid int, b layerBody) error {
	if b.Autoupdate == nil && b.AutoupdateSchedule == nil {
		return nil
	}
	on, sched := false, ""
	if lid > 0 {
		l, err := a.res.EditableLayer(r.Context(), lid)
		if err != nil {
			return err
		}
		on, sched = l.Autoupdate, l.AutoupdateSchedule
	}
	if b.Autoupdate != nil {
		on = *b.Autoupdate
	}
	if b.AutoupdateSchedule != nil {
		sched = *b.AutoupdateSchedule
	}
	return schedule.CheckAutoupdate(on, sched)
}

// applyAutoupdate stores a layer body's auto-update settings, when it
// has any.
func (a *API) applyAutoupdate(r *http.Request, lid int, b layerBody) error {
	if b.Autoupdate == nil && b.AutoupdateSchedule == nil {
		return nil
	}
	on := b.Autoupdate
	if on == nil {
		l, err := a.res.EditableLayer(r.Context(), lid)
		if err != nil {
			return err
		}
		on = &l.Autoupdate
	}
	_, err := a.res.Mutation().SetLayerAutoupdate(r.Context(), lid, *on, b.AutoupdateSchedule)
	return err
}
