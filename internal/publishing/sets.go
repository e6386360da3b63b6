package publishing

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/setversion"
)

// publishSetVersion makes v its set's published version: the previous one
// is superseded, and the set takes v's title.
func publishSetVersion(ctx context.Context, c *ent.Client, v *ent.SetVersion, now time.Time) error {
	if _, err := c.SetVersion.Update().
		Where(setversion.SetID(v.SetID), setversion.StateEQ(setversion.StatePublished)).
		SetState(setversion.StateSuperseded).Save(ctx); err != nil {
		return err
	}
	if err := c.SetVersion.UpdateOneID(v.ID).SetState(setversion.StatePublished).SetPublishedAt(now).Exec(ctx); err != nil {
		return err
	}
	s, err := c.Set.Get(ctx, v.SetID)
	if err != nil {
		return err
	}
	upd := c.Set.UpdateOneID(s.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetTitle(v.Title)
	if s.FirstPublishedAt == nil {
		upd.SetFirstPublishedAt(now)
	}
	return upd.Exec(ctx)
}
