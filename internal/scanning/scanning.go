// Package scanning runs source scans as durable jobs: it gathers a
// source's files (uploaded blobs or a downloaded URL), unpacks archives
// safely, discovers datasources with GDAL, records what was added, changed
// and removed, keeps a log, and announces the outcome on the notification
// stream.
package scanning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/textrules"
)

// Args is the job that scans one source; ScanID names the scan row created
// with it.
type Args struct {
	ScanID int `json:"scan_id"`
}

// Kind names the job.
func (Args) Kind() string { return "scan" }

// InsertOpts keeps one scan of a source at a time in the queue's eyes and
// retries a few times: downloads fail transiently.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Scanner holds what scans need.
type Scanner struct {
	Store  *store.Store
	Blobs  *blob.Store
	Fetch  *fetch.Client
	Notify *notify.Hub
	Logger *slog.Logger
	// WorkDir holds temporary scan and import folders, each removed when
	// its job ends: the service gives its folder of the data directory's
	// temporary area (package scratch); default os.TempDir().
	WorkDir string
	// Limits bound what archives may unpack to.
	Limits ingest.Limits
	// Secrets opens the sealed credentials of sources.
	Secrets *secrets.Box
}

// UploadPrefix is where an upload source's files live in blob storage.
func UploadPrefix(sourceID int) string { return fmt.Sprintf("sources/%d/files/", sourceID) }

// Start creates a queued scan of a source and enqueues its job in one
// transaction: the scan row and the job commit together or not at all.
// A URL source's scan downloads, so it runs in the remote queue; every
// scan counts towards its user's share of the workers (jobs.For).
func Start(ctx context.Context, c *ent.Client, tx *sql.Tx, j *jobs.Jobs, sourceID, userID int) (*ent.Scan, error) {
	typ, err := c.Source.Query().Where(source.ID(sourceID)).Select(source.FieldType).String(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := c.Scan.Create().SetSourceID(sourceID).SetUserID(userID).Save(ctx)
	if err != nil {
		return nil, err
	}
	jobID, err := j.InsertTx(ctx, tx, Args{ScanID: sc.ID}, jobs.For(userID, Remote(source.Type(typ))))
	if err != nil {
		return nil, fmt.Errorf("enqueueing the scan: %w", err)
	}
	return sc.Update().SetJobID(jobID).Save(ctx)
}

// Remote reports whether gathering a source of type t reads from a
// remote server (every type but upload): its scans and imports belong to
// the remote queue.
func Remote(t source.Type) bool { return t != source.TypeUpload }

// Worker is the River worker of scan jobs.
type Worker struct {
	river.WorkerDefaults[Args]
	S *Scanner
}

// Timeout bounds one scan attempt.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 2 * time.Hour }

// Work runs one scan attempt.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	return w.S.run(ctx, job.Args.ScanID, job.Attempt >= job.MaxAttempts)
}

// run scans; final says whether a failure is the last attempt.
func (s *Scanner) run(ctx context.Context, scanID int, final bool) error {
	c := s.Store.Client
	sc, err := c.Scan.Query().Where(scan.ID(scanID)).WithSource().Only(ctx)
	if ent.IsNotFound(err) {
		return river.JobCancel(fmt.Errorf("scan %d no longer exists", scanID))
	}
	if err != nil {
		return fmt.Errorf("scan %d: reading the scan: %w", scanID, err)
	}
	if sc.Status == scan.StatusCancelled || sc.Status == scan.StatusCompleted {
		return nil
	}
	log := &scanLog{}
	now := time.Now().UTC()
	if err := c.Scan.UpdateOne(sc).SetStatus(scan.StatusScanning).SetStartedAt(now).SetProgress(0.05).
		SetLog(log.add("Scan started")).Exec(ctx); err != nil {
		return fmt.Errorf("scan %d: recording its start: %w", scanID, err)
	}
	s.publish(ctx, sc, "scan.started", nil)

	counts, err := s.scan(ctx, sc, log)
	switch {
	case err == nil:
		done := time.Now().UTC()
		err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			if err := c.Scan.UpdateOneID(sc.ID).SetStatus(scan.StatusCompleted).SetProgress(1).SetCompletedAt(done).
				SetAdded(counts.added).SetUpdated(counts.updated).SetDeleted(counts.deleted).
				SetLog(log.add("Finished!")).Exec(ctx); err != nil {
				return err
			}
			if err := c.Source.UpdateOneID(sc.SourceID).SetLastScannedAt(done).Exec(ctx); err != nil {
				return err
			}
			_, err := s.Notify.Publish(ctx, c, sc.UserID, "scan.completed", s.payload(sc, map[string]any{
				"added": counts.added, "updated": counts.updated, "deleted": counts.deleted,
			}))
			return err
		})
		if err != nil {
			return fmt.Errorf("scan %d: recording its completion: %w", scanID, err)
		}
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		s.finish(context.WithoutCancel(ctx), sc, scan.StatusCancelled, "Scan cancelled.", log)
		return err
	default:
		msg := problemText(err)
		if !final && retryable(err) {
			_ = c.Scan.UpdateOneID(sc.ID).SetLog(log.add("Attempt failed, will retry: " + msg)).Exec(ctx)
			return err
		}
		s.finish(ctx, sc, scan.StatusFailed, msg, log)
		return river.JobCancel(err)
	}
}

// finish records a scan that ended without success.
func (s *Scanner) finish(ctx context.Context, sc *ent.Scan, status scan.Status, msg string, log *scanLog) {
	done := time.Now().UTC()
	msg = textrules.Storable(msg)
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		if err := c.Scan.UpdateOneID(sc.ID).SetStatus(status).SetCompletedAt(done).SetError(msg).
			SetLog(log.add(msg)).Exec(ctx); err != nil {
			return err
		}
		_, err := s.Notify.Publish(ctx, c, sc.UserID, "scan."+string(status), s.payload(sc, map[string]any{"error": msg}))
		return err
	})
	if err != nil {
		s.Logger.ErrorContext(ctx, "recording the end of a scan", "scan", sc.ID, "err", err)
	}
}

func (s *Scanner) publish(ctx context.Context, sc *ent.Scan, kind string, extra map[string]any) {
	if _, err := s.Notify.Publish(ctx, nil, sc.UserID, kind, s.payload(sc, extra)); err != nil {
		s.Logger.WarnContext(ctx, "publishing a scan notification", "scan", sc.ID, "err", err)
	}
}

func (s *Scanner) payload(sc *ent.Scan, extra map[string]any) map[string]any {
	p := map[string]any{"scan_id": sc.ID, "source_id": sc.SourceID}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// retryable reports whether another attempt may succeed: network trouble,
// not bad content, refused addresses or a download too slow to finish in
// its budget (which would hold a remote worker as long again).
func retryable(err error) bool {
	var pe *permanentError
	return !errors.As(err, &pe) && !remote.IsPermanent(err) && !errors.Is(err, fetch.ErrForbiddenAddress) && !errors.Is(err, fetch.ErrTooLarge) &&
		!errors.Is(err, fetch.ErrTooSlow)
}

// permanentError marks failures that no retry can mend.
type permanentError struct{ msg string }

func (e *permanentError) Error() string { return e.msg }

func permanent(format string, args ...any) error {
	return &permanentError{msg: fmt.Sprintf(format, args...)}
}

// problemText is the message a scan shows for err.
func problemText(err error) string {
	msg := err.Error()
	for _, p := range []string{"fetch: ", "ingest: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// scanLog accumulates the scan log: one event per line,
// "YYYY-MM-DD HH:MM:SS: message".
type scanLog struct{ b strings.Builder }

// add appends msg, made storable (file names in it may be any bytes), and
// returns the whole log.
func (l *scanLog) add(msg string) string {
	fmt.Fprintf(&l.b, "%s: %s\n", time.Now().UTC().Format("2006-01-02 15:04:05"), textrules.Storable(msg))
	return l.b.String()
}
