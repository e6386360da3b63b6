package tilearchives

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	tarow "github.com/geopub/geopub/ent/tilearchive"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/tilearchive"
	"github.com/geopub/geopub/internal/vectortiles"
)

// Worker is the River worker of archive builds.
type Worker struct {
	river.WorkerDefaults[Args]
	S *Service
}

// Timeout bounds one attempt.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 12 * time.Hour }

// permanentError marks failures no retry can mend.
type permanentError struct{ error }

// Work runs one attempt of a build, from scratch.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	s := w.S
	a, err := s.Store.Client.TileArchive.Get(ctx, job.Args.ArchiveID)
	if ent.IsNotFound(err) {
		return river.JobCancel(fmt.Errorf("tile archive %d no longer exists", job.Args.ArchiveID))
	}
	if err != nil {
		return fmt.Errorf("tile archive %d: %w", job.Args.ArchiveID, err)
	}
	if a.JobID == nil || *a.JobID != job.ID {
		return nil // a later build took over
	}
	err = s.build(ctx, a, job.ID)
	if err == nil || ctx.Err() != nil {
		return err
	}
	var p permanentError
	if job.Attempt < job.MaxAttempts && !errors.As(err, &p) {
		s.Logger.WarnContext(ctx, "tile archive build failed; it will run again", "archive", a.ID, "attempt", job.Attempt, "err", err)
		return err
	}
	s.fail(context.WithoutCancel(ctx), a, job.ID, err.Error())
	return river.JobCancel(err)
}

// Abandon records the build as failed when the process working its last
// attempt died.
func (w *Worker) Abandon(ctx context.Context, job *river.Job[Args], reason string) error {
	a, err := w.S.Store.Client.TileArchive.Get(ctx, job.Args.ArchiveID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	w.S.fail(ctx, a, job.ID, "The build stopped: "+reason+".")
	return nil
}

// userOf is who hears of a build: who asked for its range, else the
// owner's creator.
func (s *Service) userOf(ctx context.Context, c *ent.Client, a *ent.TileArchive) int {
	if a.RequestedBy != 0 {
		return a.RequestedBy
	}
	if a.OwnerKind == tarow.OwnerKindSet {
		if st, err := c.Set.Get(ctx, a.OwnerID); err == nil {
			return st.UserID
		}
		return 0
	}
	if l, err := c.Layer.Get(ctx, a.OwnerID); err == nil {
		return l.UserID
	}
	return 0
}

// announce records a notification of a's build for its user in c's
// transaction.
func (s *Service) announce(ctx context.Context, c *ent.Client, a *ent.TileArchive, kind string, extra map[string]any) error {
	user := s.userOf(ctx, c, a)
	if user == 0 {
		return nil
	}
	payload := map[string]any{"archive_id": a.ID, "owner": string(a.OwnerKind), "owner_id": a.OwnerID,
		"service": a.Service, "file": File(a.Service)}
	for k, v := range extra {
		payload[k] = v
	}
	_, err := s.Notify.Publish(ctx, c, user, kind, payload)
	return err
}

// fail records a failed build of job (the previous file, if any, keeps
// serving) and announces it.
func (s *Service) fail(ctx context.Context, a *ent.TileArchive, jobID int64, msg string) {
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.TileArchive.Update().Where(tarow.ID(a.ID), tarow.JobID(jobID)).
			SetState(tarow.StateFailed).SetError(msg).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		return s.announce(ctx, c, a, "tile_archive.failed", map[string]any{"state": "failed", "error": msg})
	})
	if err != nil {
		s.Logger.ErrorContext(ctx, "recording a failed tile archive build", "archive", a.ID, "err", err)
	}
}

func (s *Service) progressEvery() time.Duration {
	if s.ProgressEvery > 0 {
		return s.ProgressEvery
	}
	return time.Second
}

// build makes the file of a from its owner's published version, stores
// it and records it ready, removing the previous file.
func (s *Service) build(ctx context.Context, a *ent.TileArchive, jobID int64) error {
	t, err := s.target(ctx, string(a.OwnerKind), a.OwnerID, a.Service)
	if errors.Is(err, ErrNotFound) {
		return permanentError{fmt.Errorf("%s %d is not published (or not a vector layer)", a.OwnerKind, a.OwnerID)}
	}
	if err != nil {
		return err
	}
	lim := s.limits()
	box, err := s.bounds(ctx, t)
	if err != nil {
		return err
	}
	var plan Plan
	if a.AutoZoom {
		plan = lim.fit(a.Service, a.MinZoom, a.MaxZoom, box)
	} else {
		plan = lim.plan(a.Service, a.MinZoom, a.MaxZoom, box)
		if err := lim.check(a.Service, plan); err != nil {
			return permanentError{err}
		}
	}
	claimed := false
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.TileArchive.Update().Where(tarow.ID(a.ID), tarow.JobID(jobID)).
			SetState(tarow.StateBuilding).SetTargetVersionID(t.VersionID).SetTargetMembers(t.memberVersions()).
			SetTilesDone(0).SetTilesEstimate(plan.Tiles).SetError("").Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		claimed = true
		return s.announce(ctx, c, a, "tile_archive.building", map[string]any{"state": "building", "version_id": t.VersionID,
			"tiles_done": 0, "tiles_estimate": plan.Tiles, "progress": 0.0})
	})
	if err != nil || !claimed {
		return err
	}

	dir, err := os.MkdirTemp(s.WorkDir, "tilearchive-"+strconv.Itoa(a.ID)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prog := s.newProgress(a, jobID)
	defer prog.stop()
	o := tilearchive.Options{MinZoom: plan.MinZoom, MaxZoom: plan.MaxZoom, Bounds: plan.Bounds, Name: t.Title,
		Workers: max(1, s.Workers), MaxTiles: lim.MaxTiles, MaxBytes: lim.MaxBytes, Progress: prog.set}
	if s.Workers == 0 {
		o.Workers = 2
	}
	var src tilearchive.Source
	if a.Service == ServiceRasterPMTiles {
		o.Type = tilearchive.TypePNG
		o.Description = "Raster tiles of " + t.Title
		ls := t.Members
		var blank []byte
		src = tilearchive.SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
			b, err := s.Rasters.ArchiveTile(ctx, ls, vectortiles.Tile{Z: z, X: x, Y: y}, rastertiles.PNG)
			if err != nil || b != nil {
				return b, err
			}
			// Shapes too small to draw at this zoom may draw deeper: a
			// transparent tile (stored once) keeps the walk going.
			if blank == nil {
				blank = s.Rasters.Blank(rastertiles.PNG)
			}
			return blank, nil
		})
	} else {
		o.Type = tilearchive.TypeMVT
		o.Description = "Vector tiles of " + t.Title
		o.Metadata = map[string]any{"vector_layers": vectorLayers(t, plan)}
		l := t.Members[0]
		empty := emptyMVT(vectortiles.LayerName(l.ID))
		src = tilearchive.SourceFunc(func(ctx context.Context, z, x, y int) ([]byte, error) {
			b, err := s.Tiles.LayerMVT(ctx, l, vectortiles.Tile{Z: z, X: x, Y: y})
			if err != nil {
				return nil, err
			}
			if len(b) == 0 {
				// Features too small for this zoom's grid may show
				// deeper: an empty layer (stored once) keeps the walk
				// going where features are; where none is, the walk
				// skips the tile and everything beneath it.
				reaches, err := s.Tiles.Reaches(ctx, l, vectortiles.Tile{Z: z, X: x, Y: y})
				if err != nil || !reaches {
					return nil, err
				}
				return empty, nil
			}
			return b, nil
		})
	}
	path := filepath.Join(dir, "archive")
	var stats tilearchive.Stats
	if a.Service == ServiceMBTiles {
		stats, err = tilearchive.WriteMBTiles(ctx, path, src, o)
	} else {
		var f *os.File
		if f, err = os.Create(path); err != nil {
			return err
		}
		stats, err = tilearchive.WritePMTiles(ctx, f, dir, src, o)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if errors.Is(err, tilearchive.ErrTooLarge) {
		return permanentError{fmt.Errorf("the archive went over its limits while building (max_tiles %d, max_bytes %d): %w", lim.MaxTiles, lim.MaxBytes, err)}
	}
	if err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	prog.stop()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	key := BlobKey(a, jobID)
	size, err := s.Blobs.Put(ctx, key, f, ContentType(a.Service))
	if err != nil {
		return fmt.Errorf("storing the archive: %w", err)
	}
	var old string
	recorded := false
	now := time.Now().UTC()
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		cur, err := c.TileArchive.Get(ctx, a.ID)
		if err != nil {
			return err
		}
		if cur.JobID == nil || *cur.JobID != jobID {
			return nil
		}
		old = cur.BlobKey
		etag := "v" + strconv.Itoa(t.VersionID) + "-b" + strconv.FormatInt(jobID, 10)
		err = cur.Update().SetState(tarow.StateReady).SetVersionID(t.VersionID).SetMembers(t.memberIDs()).
			SetMemberVersions(t.memberVersions()).SetBlobKey(key).SetEtag(etag).SetBytes(size).
			SetTileCount(stats.Tiles).SetBuiltMinZoom(stats.MinZoom).SetBuiltMaxZoom(stats.MaxZoom).
			SetBounds(stats.Bounds[:]).SetBuiltAt(now).SetTilesDone(stats.Tiles + stats.Empty).SetError("").Exec(ctx)
		if err != nil {
			return err
		}
		recorded = true
		return s.announce(ctx, c, a, "tile_archive.ready", map[string]any{"state": "ready", "version_id": t.VersionID,
			"bytes": size, "tiles": stats.Tiles, "minzoom": stats.MinZoom, "maxzoom": stats.MaxZoom, "etag": etag})
	})
	dctx := context.WithoutCancel(ctx)
	if err != nil || !recorded {
		if derr := s.Blobs.Delete(dctx, key); derr != nil {
			s.Logger.WarnContext(ctx, "removing an archive file no build recorded", "key", key, "err", derr)
		}
		return err
	}
	if old != "" && old != key {
		if derr := s.Blobs.Delete(dctx, old); derr != nil {
			s.Logger.WarnContext(ctx, "removing the previous archive file", "key", old, "err", derr)
		}
	}
	return nil
}

// vectorLayers is the vector_layers metadata of a layer's archive.
func vectorLayers(t *Target, p Plan) []map[string]any {
	var out []map[string]any
	for _, l := range t.Members {
		fields := map[string]string{}
		for _, f := range l.Fields {
			switch f.Type {
			case "geometry":
			case "integer", "double":
				fields[f.Name] = "Number"
			case "boolean":
				fields[f.Name] = "Boolean"
			default:
				fields[f.Name] = "String"
			}
		}
		out = append(out, map[string]any{"id": vectortiles.LayerName(l.ID), "description": l.Title,
			"minzoom": p.MinZoom, "maxzoom": p.MaxZoom, "fields": fields})
	}
	return out
}

// progress records and announces a build's progress now and then.
type progress struct {
	s           *Service
	a           *ent.TileArchive
	jobID       int64
	done, total atomic.Int64
	last        int64
	once        sync.Once
	stopc, fin  chan struct{}
}

func (s *Service) newProgress(a *ent.TileArchive, jobID int64) *progress {
	p := &progress{s: s, a: a, jobID: jobID, stopc: make(chan struct{}), fin: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progress) set(done, total int64) {
	p.done.Store(done)
	p.total.Store(total)
}

func (p *progress) loop() {
	defer close(p.fin)
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
	done, total := p.done.Load(), p.total.Load()
	if done <= p.last {
		return
	}
	p.last = done
	ctx := context.Background()
	err := p.s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		n, err := c.TileArchive.Update().Where(tarow.ID(p.a.ID), tarow.JobID(p.jobID),
			tarow.StateEQ(tarow.StateBuilding)).SetTilesDone(done).SetTilesEstimate(total).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		share := 0.0
		if total > 0 {
			share = min(1, float64(done)/float64(total))
		}
		return p.s.announce(ctx, c, p.a, "tile_archive.progress", map[string]any{"state": "building",
			"tiles_done": done, "tiles_estimate": total, "progress": share})
	})
	if err != nil {
		p.s.Logger.WarnContext(ctx, "recording a tile archive build's progress", "archive", p.a.ID, "err", err)
	}
}

func (p *progress) stop() {
	p.once.Do(func() { close(p.stopc) })
	<-p.fin
}

// emptyMVT is a tile holding one layer named name with no features.
func emptyMVT(name string) []byte {
	layer := append([]byte{0x0a, byte(len(name))}, name...)
	layer = append(layer, 0x28, 0x80, 0x20, 0x78, 0x02) // extent 4096, version 2
	return append([]byte{0x1a, byte(len(layer))}, layer...)
}
