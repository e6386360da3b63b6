// Package importing runs the import of a layer version as a durable job:
// it materializes the version's sources, reads every feature of its
// datasources with GDAL, reprojects geometries to EPSG:4326 and writes
// them in bulk. Rows are written in transactions of about a second
// (Importer.ProgressEvery), each of which also records the version's
// progress and announces it (import.progress), so other writers get
// their turn on SQLite and clients see the import advance. The version
// stays "importing" until the last transaction marks it imported, so a
// partly written version is never published; a failure removes what was
// written, and a retry (after a crash, say) starts by removing it too.
package importing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/store"
)

// importLockClass is the first key of the advisory lock an import holds
// on its version ("GPim").
const importLockClass int32 = 0x4750696d

// Args is the job importing one layer version.
type Args struct {
	VersionID int `json:"version_id"`
}

// Kind names the job.
func (Args) Kind() string { return "import" }

// InsertOpts retries transient failures a few times.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Start marks a version importing and enqueues its import on tx. An
// import from any source but an upload reads the remote server again, so
// it runs in the remote queue; every import counts towards the share of
// the workers of the version's author (jobs.For).
func Start(ctx context.Context, c *ent.Client, tx *sql.Tx, j *jobs.Jobs, v *ent.LayerVersion) error {
	remote, err := c.Datasource.Query().Where(datasource.IDIn(v.DatasourceIds...),
		datasource.HasSourceWith(source.TypeNEQ(source.TypeUpload))).Exist(ctx)
	if err != nil {
		return fmt.Errorf("starting the import of version %d: reading its datasources: %w", v.ID, err)
	}
	jobID, err := j.InsertTx(ctx, tx, Args{VersionID: v.ID}, jobs.For(v.CreatedBy, remote))
	if err != nil {
		return fmt.Errorf("enqueueing the import: %w", err)
	}
	err = c.LayerVersion.UpdateOneID(v.ID).SetStatus(layerversion.StatusImporting).SetProgress(0).
		SetImportError("").SetImportJobID(jobID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("starting the import of version %d: marking it importing: %w", v.ID, err)
	}
	return nil
}

// Importer holds what imports need.
type Importer struct {
	Store   *store.Store
	Scanner *scanning.Scanner
	Notify  *notify.Hub
	Logger  *slog.Logger
	// Blobs stores the files of grid and raster versions.
	Blobs *blob.Store
	// ProgressEvery is how often a running import records its progress
	// and announces it (default DefaultProgressEvery).
	ProgressEvery time.Duration
}

// DefaultProgressEvery is how often imports record their progress unless
// told otherwise.
const DefaultProgressEvery = time.Second

// Worker is the River worker of import jobs.
type Worker struct {
	river.WorkerDefaults[Args]
	I *Importer
}

// Timeout bounds one import attempt.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 6 * time.Hour }

// Work runs one import attempt.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	return w.I.run(ctx, job.Args.VersionID, job.ID, job.Attempt >= job.MaxAttempts)
}

// errSuperseded ends an attempt whose version has been given a newer
// import (a draft update restarts it): the attempt may no longer write the
// version's status, progress or features, which are the newer import's.
var errSuperseded = errors.New("a newer import of this version has started")

// owned is the condition every write of an import attempt to its version
// carries: the version's import is still the attempt's job.
func owned(versionID int, jobID int64) predicate.LayerVersion {
	return layerversion.And(layerversion.ID(versionID), layerversion.ImportJobID(jobID))
}

func (im *Importer) run(ctx context.Context, versionID int, jobID int64, final bool) error {
	c := im.Store.Client
	v, err := c.LayerVersion.Query().Where(layerversion.ID(versionID)).WithLayer().Only(ctx)
	if ent.IsNotFound(err) {
		return river.JobCancel(fmt.Errorf("version %d no longer exists", versionID))
	}
	if err != nil {
		return fmt.Errorf("import of version %d: reading the version: %w", versionID, err)
	}
	if v.State != layerversion.StateDraft {
		return nil // published or discarded since: nothing to import
	}
	if v.ImportJobID == nil || *v.ImportJobID != jobID {
		return river.JobCancel(errSuperseded)
	}
	im.publish(ctx, nil, v, "import.started", nil)
	err = im.importVersion(ctx, v, jobID)
	if err == nil {
		return nil
	}
	if errors.Is(err, errSuperseded) {
		return river.JobCancel(err)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		im.fail(context.WithoutCancel(ctx), v, jobID, layerversion.StatusCancelled, "Import cancelled.")
		return err
	}
	if !final && !isPermanent(err) {
		return err
	}
	im.fail(ctx, v, jobID, layerversion.StatusFailed, err.Error())
	return river.JobCancel(err)
}

// Abandon records the import as failed when the process working its last
// attempt died (jobs.Abandoner): no attempt is left to do it.
func (w *Worker) Abandon(ctx context.Context, job *river.Job[Args], reason string) error {
	v, err := w.I.Store.Client.LayerVersion.Query().Where(layerversion.ID(job.Args.VersionID)).WithLayer().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("abandoned import of version %d: reading the version: %w", job.Args.VersionID, err)
	}
	if v.State != layerversion.StateDraft || v.Status != layerversion.StatusImporting {
		return nil // recorded already, or published or discarded since
	}
	return w.I.record(ctx, v, job.ID, layerversion.StatusFailed, "The import stopped: "+reason+".")
}

// fail records an import that ended without success.
func (im *Importer) fail(ctx context.Context, v *ent.LayerVersion, jobID int64, status layerversion.Status, msg string) {
	if err := im.record(ctx, v, jobID, status, msg); err != nil {
		im.Logger.ErrorContext(ctx, "recording a failed import", "version", v.ID, "err", err)
	}
}

// record removes whatever an unsuccessful import left and records its end,
// unless a newer import of the version has started since (errSuperseded):
// what is there then is the newer import's.
func (im *Importer) record(ctx context.Context, v *ent.LayerVersion, jobID int64, status layerversion.Status, msg string) error {
	err := im.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		n, err := c.LayerVersion.Update().Where(owned(v.ID, jobID)).SetStatus(status).SetImportError(msg).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		if err := featurerows.DeleteVersion(ctx, im.Store, tx, v.ID); err != nil {
			return fmt.Errorf("removing the rows written: %w", err)
		}
		return im.publish(ctx, c, v, "import."+string(status), map[string]any{"error": msg})
	})
	if err != nil {
		return fmt.Errorf("import of version %d: recording its end (%s): %w", v.ID, status, err)
	}
	return nil
}

func (im *Importer) publish(ctx context.Context, c *ent.Client, v *ent.LayerVersion, kind string, extra map[string]any) error {
	p := map[string]any{"layer_id": v.LayerID, "version_id": v.ID}
	for k, val := range extra {
		p[k] = val
	}
	_, err := im.Notify.Publish(ctx, c, v.CreatedBy, kind, p)
	if err != nil && c == nil {
		im.Logger.WarnContext(ctx, "publishing an import notification", "version", v.ID, "err", err)
		return nil
	}
	return err
}

// permanentError marks failures no retry can mend.
type permanentError struct{ error }

func permanent(err error) error { return permanentError{err} }

func isPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// importVersion reads every datasource of v into its features (grids into
// a COG, vectors in transactions of about ProgressEvery) and records the summary.
func (im *Importer) importVersion(ctx context.Context, v *ent.LayerVersion, jobID int64) error {
	c := im.Store.Client
	dss, err := c.Datasource.Query().Where(datasource.IDIn(v.DatasourceIds...)).WithSource().All(ctx)
	if err != nil {
		return fmt.Errorf("import of version %d: reading its datasources: %w", v.ID, err)
	}
	if len(dss) != len(v.DatasourceIds) {
		return permanent(errors.New("no valid datasources to import: some no longer exist"))
	}
	size := inputSize(dss)
	var lim ingest.Limits
	if im.Scanner != nil {
		lim = im.Scanner.Limits
	}
	limit := lim.Deadline(size)
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if isGrid(dss) {
		err = im.importGrid(dctx, v, jobID, dss)
	} else {
		err = im.importVector(dctx, v, jobID, dss)
	}
	if err != nil && ctx.Err() == nil && dctx.Err() != nil {
		return permanent(fmt.Errorf("the import passed its deadline of %s for %d MiB of input: the data keeps GDAL busy for longer than its size allows", limit, (size+1<<20-1)>>20))
	}
	return err
}

// inputSize is what an import reads: its datasources' files, or for a
// service's (no files), about a kilobyte a feature.
func inputSize(dss []*ent.Datasource) int64 {
	var n int64
	for _, d := range dss {
		if d.FileSize > 0 {
			n += d.FileSize
		} else {
			n += d.FeatureCount << 10
		}
	}
	return n
}
