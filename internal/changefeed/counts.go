package changefeed

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/versiondiff"
)

// CountArgs is the job that counts a vector layer's or table's new
// version against the one it replaced and appends the version's events.
type CountArgs struct {
	DatasetKind       string    `json:"dataset_kind"`
	DatasetID         int       `json:"dataset_id"`
	DatasetType       string    `json:"dataset_type"`
	Title             string    `json:"title"`
	VersionID         int       `json:"version_id"`
	PreviousVersionID int       `json:"previous_version_id"`
	At                time.Time `json:"at"`
}

// Kind names the job.
func (CountArgs) Kind() string { return "changefeed_count" }

// Worker runs the counting jobs of a Feed.
type Worker struct {
	river.WorkerDefaults[CountArgs]
	F *Feed
}

// Work counts the diff and appends dataset.new_version (and
// dataset.schema_changed when the schema changed). A version gone by then
// (its dataset deleted) gives the event without counts.
func (w *Worker) Work(ctx context.Context, job *river.Job[CountArgs]) error {
	a := job.Args
	ev := Event{Type: NewVersion, Dataset: Ref{Kind: access.Kind(a.DatasetKind), ID: a.DatasetID}, DatasetType: a.DatasetType,
		Title: a.Title, VersionID: &a.VersionID, PreviousVersionID: &a.PreviousVersionID, At: a.At}
	es, err := w.F.versionEvents(ctx, ev)
	if err != nil {
		return err
	}
	err = w.F.store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		return w.F.append(ctx, c, tx, es)
	})
	if err == nil {
		w.F.wake()
	}
	return err
}

// versionEvents completes ev, a new version, with its diff's counts and
// schema changes.
func (f *Feed) versionEvents(ctx context.Context, ev Event) ([]Event, error) {
	vs, err := f.store.Client.LayerVersion.Query().
		Where(layerversion.IDIn(*ev.VersionID, *ev.PreviousVersionID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("changefeed: reading versions %d and %d: %w", *ev.PreviousVersionID, *ev.VersionID, err)
	}
	var a, b *ent.LayerVersion
	for _, v := range vs {
		if v.ID == *ev.VersionID {
			b = v
		} else {
			a = v
		}
	}
	if a == nil || b == nil {
		ev.Detail = map[string]any{"counts_unavailable": "a version was deleted before it was counted"}
		return []Event{ev}, nil
	}
	d, err := versiondiff.Compare(ctx, f.store, versiondiff.VersionOf(a), versiondiff.VersionOf(b), versiondiff.Options{CountOnly: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("changefeed: counting version %d against %d: %w", b.ID, a.ID, err)
	}
	ev.Detail = map[string]any{"counts": d.Counts}
	if len(d.MatchedBy) == 0 {
		ev.Detail["matched_by"] = "content"
	} else {
		ev.Detail["matched_by"] = versiondiff.KeyNames(d.MatchedBy)
	}
	if versiondiff.Unstable(d.MatchedBy) {
		ev.Detail["key_unstable"] = true
	}
	out := []Event{ev}
	if !d.Schema.Empty() {
		ev.Detail["schema"] = d.Schema
		sc := ev
		sc.Type = SchemaChanged
		sc.Detail = map[string]any{"schema": d.Schema}
		out = append(out, sc)
	}
	return out, nil
}
