// Package publishing publishes dataset versions as durable jobs: a publish
// group waits until every version's import has finished, then makes them
// the published versions in one transaction, so users never see a
// half-imported version. Documents and catalog items, which have no import
// to wait for, publish at once in the caller's transaction.
package publishing

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/store"
)

// Args is the job of one publish group.
type Args struct {
	GroupID int `json:"group_id"`
}

// Kind names the job.
func (Args) Kind() string { return "publish" }

// waitPoll is how often a publish waiting on imports looks again.
const waitPoll = 500 * time.Millisecond

// Items are the versions a publish group publishes.
type Items struct {
	// Layers are layer and table versions; they publish once imported.
	Layers []int
	// Sets are set versions; they need no import.
	Sets []int
}

// Start creates a publish group of versions on tx. A group of set versions
// only has nothing to wait for, so it publishes at once, in tx; any other
// group is a job that waits for the imports of its layer versions, then
// publishes everything together.
func Start(ctx context.Context, c *ent.Client, tx *sql.Tx, j *jobs.Jobs, hub *notify.Hub, userID int, items Items) (*ent.PublishGroup, error) {
	g, err := c.PublishGroup.Create().SetCreatedBy(userID).SetVersionIds(orEmpty(items.Layers)).
		SetSetVersions(orEmpty(items.Sets)).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := recordStart(ctx, c, g, items); err != nil {
		return nil, err
	}
	if len(items.Layers) == 0 {
		vs, err := c.SetVersion.Query().Where(setversion.IDIn(items.Sets...)).All(ctx)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(items.Sets) {
			return nil, fmt.Errorf("publish group %d: some set versions do not exist", g.ID)
		}
		if err := complete(ctx, c, hub, g, nil, vs, time.Now().UTC()); err != nil {
			return nil, err
		}
		return c.PublishGroup.Get(ctx, g.ID)
	}
	jobID, err := j.InsertTx(ctx, tx, Args{GroupID: g.ID}, &river.InsertOpts{MaxAttempts: 25})
	if err != nil {
		return nil, fmt.Errorf("enqueueing the publish: %w", err)
	}
	return g.Update().SetJobID(jobID).Save(ctx)
}

func orEmpty(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

// Publisher holds what publishing needs.
type Publisher struct {
	Store  *store.Store
	Notify *notify.Hub
	Logger *slog.Logger
}

// Worker is the River worker of publish jobs.
type Worker struct {
	river.WorkerDefaults[Args]
	P *Publisher
}

// Work publishes the group, or snoozes while imports are still running.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	return w.P.run(ctx, job.Args.GroupID)
}

func (p *Publisher) run(ctx context.Context, groupID int) error {
	c := p.Store.Client
	g, err := c.PublishGroup.Get(ctx, groupID)
	if ent.IsNotFound(err) {
		return river.JobCancel(fmt.Errorf("publish group %d no longer exists", groupID))
	}
	if err != nil {
		return fmt.Errorf("publish group %d: reading the group: %w", groupID, err)
	}
	if g.State != publishgroup.StatePublishing {
		return nil
	}
	vs, err := c.LayerVersion.Query().Where(layerversion.IDIn(g.VersionIds...)).All(ctx)
	if err != nil {
		return fmt.Errorf("publish group %d: reading its layer versions: %w", groupID, err)
	}
	var problems []string
	for _, v := range vs {
		switch {
		case v.State != layerversion.StateDraft:
			problems = append(problems, fmt.Sprintf("version %d is %s", v.ID, v.State))
		case v.Status == layerversion.StatusPending || v.Status == layerversion.StatusImporting:
			return river.JobSnooze(waitPoll)
		case v.Status != layerversion.StatusOk:
			problems = append(problems, fmt.Sprintf("the import of version %d %s", v.ID, v.Status))
		}
	}
	if len(vs) != len(g.VersionIds) {
		problems = append(problems, "some versions no longer exist")
	}
	svs, err := c.SetVersion.Query().Where(setversion.IDIn(g.SetVersions...)).All(ctx)
	if err != nil {
		return fmt.Errorf("publish group %d: reading its set versions: %w", groupID, err)
	}
	for _, v := range svs {
		if v.State != setversion.StateDraft {
			problems = append(problems, fmt.Sprintf("set version %d is %s", v.ID, v.State))
		}
	}
	if len(svs) != len(g.SetVersions) {
		problems = append(problems, "some set versions no longer exist")
	}
	if len(problems) > 0 {
		return p.fail(ctx, g, strings.Join(problems, "; "))
	}
	err = p.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		return complete(ctx, c, p.Notify, g, vs, svs, time.Now().UTC())
	})
	if err != nil {
		return fmt.Errorf("publish group %d: %w", groupID, err)
	}
	return nil
}

// complete publishes every version of a group in c's transaction, marks it
// completed and notifies its creator.
func complete(ctx context.Context, c *ent.Client, hub *notify.Hub, g *ent.PublishGroup, vs []*ent.LayerVersion, svs []*ent.SetVersion, now time.Time) error {
	for _, v := range vs {
		if err := publishVersion(ctx, c, v, now); err != nil {
			return fmt.Errorf("publishing layer version %d: %w", v.ID, err)
		}
	}
	for _, v := range svs {
		if err := publishSetVersion(ctx, c, v, now); err != nil {
			return fmt.Errorf("publishing set version %d: %w", v.ID, err)
		}
	}
	if err := c.PublishGroup.UpdateOneID(g.ID).SetState(publishgroup.StateCompleted).SetCompletedAt(now).Exec(ctx); err != nil {
		return fmt.Errorf("recording the group completed: %w", err)
	}
	_, err := hub.Publish(ctx, c, g.CreatedBy, "publish.completed",
		map[string]any{"publish_id": g.ID, "version_ids": g.VersionIds, "set_version_ids": orEmpty(g.SetVersions)})
	return err
}

// publishVersion makes v its layer's published version.
func publishVersion(ctx context.Context, c *ent.Client, v *ent.LayerVersion, now time.Time) error {
	if _, err := c.LayerVersion.Update().
		Where(layerversion.LayerID(v.LayerID), layerversion.StateEQ(layerversion.StatePublished)).
		SetState(layerversion.StateSuperseded).Save(ctx); err != nil {
		return err
	}
	if err := c.LayerVersion.UpdateOneID(v.ID).SetState(layerversion.StatePublished).SetPublishedAt(now).Exec(ctx); err != nil {
		return err
	}
	l, err := c.Layer.Get(ctx, v.LayerID)
	if err != nil {
		return err
	}
	upd := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetName(v.Name)
	if l.FirstPublishedAt == nil {
		upd.SetFirstPublishedAt(now)
	}
	return upd.Exec(ctx)
}

// Abandon records the publish as failed when the process working its last
// attempt died (jobs.Abandoner).
func (w *Worker) Abandon(ctx context.Context, job *river.Job[Args], reason string) error {
	g, err := w.P.Store.Client.PublishGroup.Get(ctx, job.Args.GroupID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("abandoned publish group %d: reading the group: %w", job.Args.GroupID, err)
	}
	if g.State != publishgroup.StatePublishing {
		return nil
	}
	return w.P.record(ctx, g, "the publish stopped: "+reason)
}

func (p *Publisher) fail(ctx context.Context, g *ent.PublishGroup, msg string) error {
	if err := p.record(ctx, g, msg); err != nil {
		return err
	}
	return river.JobCancel(fmt.Errorf("publish %d failed: %s", g.ID, msg))
}

// record records the failure of publish group g.
func (p *Publisher) record(ctx context.Context, g *ent.PublishGroup, msg string) error {
	return p.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		if err := c.PublishGroup.UpdateOneID(g.ID).SetState(publishgroup.StateFailed).SetError(msg).
			SetCompletedAt(time.Now().UTC()).Exec(ctx); err != nil {
			return err
		}
		_, err := p.Notify.Publish(ctx, c, g.CreatedBy, "publish.failed", map[string]any{"publish_id": g.ID, "error": msg})
		return err
	})
}
