package exports

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/grids"
	"github.com/geopub/geopub/internal/metadata"
)

// Args is the job writing one export.
type Args struct {
	ExportID int `json:"export_id"`
}

// Kind names the job.
func (Args) Kind() string { return "export" }

// InsertOpts retries a failed attempt twice.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Worker is the River worker of export jobs.
type Worker struct {
	river.WorkerDefaults[Args]
	S *Service
}

// Timeout bounds one attempt.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 12 * time.Hour }

// BlobKey is where an export's zip is stored.
func BlobKey(exportID int) string { return "exports/" + strconv.Itoa(exportID) + ".zip" }

// Work runs one attempt: from scratch every time, so an attempt after a
// killed worker starts over and publishes only a whole zip.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	s := w.S
	e, err := s.Store.Client.Export.Get(ctx, job.Args.ExportID)
	if ent.IsNotFound(err) {
		return river.JobCancel(fmt.Errorf("export %d no longer exists", job.Args.ExportID))
	}
	if err != nil {
		return fmt.Errorf("export %d: reading the export: %w", job.Args.ExportID, err)
	}
	if e.State != export.StateProcessing {
		return nil // cancelled (or finished) since
	}
	if e.JobID != nil && *e.JobID != job.ID {
		return river.JobCancel(fmt.Errorf("export %d belongs to job %d", e.ID, *e.JobID))
	}
	err = s.write(ctx, e)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err // cancelled or stopping: the row says what happened
	}
	if job.Attempt < job.MaxAttempts && !isPermanent(err) {
		s.Logger.WarnContext(ctx, "export attempt failed; it will run again", "export", e.ID, "attempt", job.Attempt, "err", err)
		return err
	}
	s.fail(context.WithoutCancel(ctx), e, err.Error())
	return river.JobCancel(err)
}

// Abandon records the export as failed when the process working its last
// attempt died.
func (w *Worker) Abandon(ctx context.Context, job *river.Job[Args], reason string) error {
	e, err := w.S.Store.Client.Export.Get(ctx, job.Args.ExportID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("abandoned export %d: reading the export: %w", job.Args.ExportID, err)
	}
	if e.State == export.StateProcessing {
		w.S.fail(ctx, e, "The export stopped: "+reason+".")
	}
	return nil
}

// permanentError marks failures no retry can mend.
type permanentError struct{ error }

func isPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// fail records a failed export and announces it.
func (s *Service) fail(ctx context.Context, e *ent.Export, msg string) {
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.Export.Update().Where(export.ID(e.ID), export.StateEQ(export.StateProcessing)).
			SetState(export.StateError).SetError(msg).SetCompletedAt(time.Now().UTC()).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		_, err = s.Notify.Publish(ctx, c, e.UserID, "export.failed", map[string]any{"export_id": e.ID, "state": "error", "error": msg})
		return err
	})
	if err != nil {
		s.Logger.ErrorContext(ctx, "recording a failed export", "export", e.ID, "err", err)
	}
}

// write writes every part into a work folder, zips it into blob storage
// and marks the export complete.
func (s *Service) write(ctx context.Context, e *ent.Export) error {
	dir, err := os.MkdirTemp(s.WorkDir, "export-"+strconv.Itoa(e.ID)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer os.RemoveAll(dir + ".src") // grid files copied from remote storage
	prog := s.newProgress(e)
	defer prog.stop()
	opts := exportfile.Options{CRS: e.Crs}
	if e.Clip != nil {
		opts.Clip = *e.Clip
	}
	n := len(e.Parts)
	for i, p := range e.Parts {
		opts.Progress = func(share float64) { prog.set((float64(i) + min(max(share, 0), 1)) / float64(n) * 0.95) }
		if err := s.writePart(ctx, dir, p, opts); err != nil {
			return fmt.Errorf("writing %s: %w", p.Title, err)
		}
		prog.set(float64(i+1) / float64(n) * 0.95)
	}
	// The files are written: record and announce that before zipping, so
	// every export tells its progress at least once, however short.
	prog.stop()
	key := BlobKey(e.ID)
	size, err := s.pack(ctx, dir, key)
	if err != nil {
		return err
	}
	lim := s.limits()
	now := time.Now().UTC()
	published := false
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.Export.Update().Where(export.ID(e.ID), export.StateEQ(export.StateProcessing)).
			SetState(export.StateComplete).SetProgress(1).SetBlobKey(key).SetFileSize(size).
			SetCompletedAt(now).SetExpiresAt(now.Add(lim.Expiry)).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		published = true
		_, err = s.Notify.Publish(ctx, c, e.UserID, "export.completed", map[string]any{"export_id": e.ID, "state": "complete", "file_size": size})
		return err
	})
	if err != nil || !published {
		// Cancelled while zipping, or the row could not be written: the
		// file belongs to no export.
		if derr := s.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil {
			s.Logger.WarnContext(ctx, "removing the file of an export that did not complete", "export", e.ID, "err", derr)
		}
	}
	if err != nil {
		return fmt.Errorf("export %d: recording its completion: %w", e.ID, err)
	}
	return nil
}

// pack streams the zip of dir into blob storage under key.
func (s *Service) pack(ctx context.Context, dir, key string) (int64, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.writers().Package(ctx, dir, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	size, err := s.Blobs.Put(ctx, key, pr, "application/zip")
	pr.CloseWithError(errors.New("the upload ended"))
	if perr := <-done; err == nil && perr != nil {
		err = perr
	}
	return size, err
}

// writePart writes one dataset into dir.
func (s *Service) writePart(ctx context.Context, dir string, p schematype.ExportPart, o exportfile.Options) error {
	c := s.Store.Client
	v, err := c.LayerVersion.Get(ctx, p.VersionID)
	if err != nil {
		return permanentError{fmt.Errorf("the version is gone: %w", err)}
	}
	kind := exportfile.Kind(p.Kind)
	f, ok := exportfile.FormatByMIME(kind, p.Format)
	if !ok {
		return permanentError{fmt.Errorf("format %s is no longer offered for %s", p.Format, p.Kind)}
	}
	xml, lic, err := s.documents(ctx, v)
	if err != nil {
		return err
	}
	switch kind {
	case exportfile.KindGrid, exportfile.KindRaster:
		path, err := s.gridFile(ctx, dir, v.ID)
		if err != nil {
			return err
		}
		_, err = s.writers().Raster(ctx, dir, exportfile.RasterItem{Name: p.Name, Title: p.Title, Kind: kind, Path: path,
			MetadataXML: xml, LicenseText: lic}, f, o)
		if errors.Is(err, exportfile.ErrOutsideExtent) {
			// Validation compares bounding boxes; the raster's own outline
			// can still miss the crop area, and no retry changes that.
			return permanentError{err}
		}
		return err
	}
	item := exportfile.VectorItem{Name: p.Name, Title: p.Title, GeometryType: v.GeometryType, Count: v.FeatureCount,
		MetadataXML: xml, LicenseText: lic,
		Rows: func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
			return featurerows.ReadRaw(ctx, s.Store, v.ID, fn)
		}}
	for _, fd := range v.Fields {
		if fd.Type == "geometry" {
			continue
		}
		item.Fields = append(item.Fields, exportfile.Field{Name: fd.Name, Type: fd.Type})
	}
	_, err = s.writers().Vector(ctx, dir, item, f, o)
	return err
}

// gridFile is a local path of a grid version's COG: the blob itself when
// blob storage is a folder, else a copy beside the work folder (never in
// it, so it is not zipped), removed with it.
func (s *Service) gridFile(ctx context.Context, dir string, versionID int) (string, error) {
	key := grids.Key(versionID)
	if p, ok := s.Blobs.LocalPath(key); ok {
		return p, nil
	}
	src := dir + ".src"
	if err := os.MkdirAll(src, 0o750); err != nil {
		return "", err
	}
	p := filepath.Join(src, strconv.Itoa(versionID)+".tif")
	if _, err := s.Blobs.Download(ctx, key, p); err != nil {
		os.Remove(p)
		return "", err
	}
	return p, nil
}

// documents returns a version's metadata XML (the first document) and its
// licence text.
func (s *Service) documents(ctx context.Context, v *ent.LayerVersion) ([]byte, string, error) {
	c := s.Store.Client
	var xml []byte
	doc, err := c.MetadataDocument.Query().Where(metadatadocument.DatasetKind(metadata.KindLayer), metadatadocument.DatasetID(v.LayerID),
		metadatadocument.VersionID(v.ID)).Order(metadatadocument.ByID()).First(ctx)
	switch {
	case err == nil:
		xml = []byte(doc.XML)
	case !ent.IsNotFound(err):
		return nil, "", err
	}
	var lic string
	if v.LicenseID != nil {
		l, err := c.License.Get(ctx, *v.LicenseID)
		if err != nil && !ent.IsNotFound(err) {
			return nil, "", err
		}
		if l != nil {
			lic = licenceText(l)
		}
	}
	return xml, lic, nil
}

// licenceText is the licence file of a dataset: its title, type,
// version and jurisdiction, and where its legal code is published.
func licenceText(l *ent.License) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nLicence type: %s\n", l.Title, l.Type)
	if l.Version != "" {
		fmt.Fprintf(&b, "Version: %s\n", l.Version)
	}
	if l.Jurisdiction != "" {
		fmt.Fprintf(&b, "Jurisdiction: %s\n", l.Jurisdiction)
	}
	if l.LegalCodeURL != "" {
		fmt.Fprintf(&b, "Legal code: %s\n", l.LegalCodeURL)
	}
	return b.String()
}

// progress records and announces an export's progress at most every
// ProgressEvery, from a goroutine of its own so that writing is never
// held up by the database; only progress made is announced (a tick
// before the first share written says nothing, not 0).
type progress struct {
	s     *Service
	e     *ent.Export
	mu    sync.Mutex
	last  float64
	seen  float64
	stopc chan struct{}
	done  chan struct{}
	once  sync.Once
}

func (s *Service) newProgress(e *ent.Export) *progress {
	p := &progress{s: s, e: e, stopc: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progress) set(share float64) {
	p.mu.Lock()
	p.seen = max(p.seen, share)
	p.mu.Unlock()
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(p.s.progressEvery())
	defer t.Stop()
	for {
		select {
		case <-p.stopc:
			p.flush()
			return
		case <-t.C:
			p.flush()
		}
	}
}

func (p *progress) flush() {
	p.mu.Lock()
	share := p.seen
	p.mu.Unlock()
	if share <= p.last {
		return
	}
	p.last = share
	ctx := context.Background()
	err := p.s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.Export.Update().Where(export.ID(p.e.ID), export.StateEQ(export.StateProcessing)).SetProgress(share).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		_, err = p.s.Notify.Publish(ctx, c, p.e.UserID, "export.progress", map[string]any{"export_id": p.e.ID, "state": "processing", "progress": share})
		return err
	})
	if err != nil {
		p.s.Logger.WarnContext(ctx, "recording an export's progress", "export", p.e.ID, "err", err)
	}
}

// stop records the last share seen and ends the loop; it may be called
// more than once.
func (p *progress) stop() {
	p.once.Do(func() { close(p.stopc) })
	<-p.done
}
