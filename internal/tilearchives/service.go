package tilearchives

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	tarow "github.com/geopub/geopub/ent/tilearchive"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/vectortiles"
)

// The services archives are served through.
const (
	ServiceVectorPMTiles = "vector-tile-pmtiles"
	ServiceMBTiles       = "vector-tile-mbtiles"
	ServiceRasterPMTiles = "raster-pmtile"
)

// The owner kinds.
const (
	KindLayer = "layer"
	KindSet   = "set"
)

// File names an archive of an owner kind has under its tile path, by
// service: tiles.pmtiles, tiles.mbtiles (layers), raster.pmtiles
// (layers and sets).
func File(service string) string {
	switch service {
	case ServiceVectorPMTiles:
		return "tiles.pmtiles"
	case ServiceMBTiles:
		return "tiles.mbtiles"
	case ServiceRasterPMTiles:
		return "raster.pmtiles"
	}
	return ""
}

// ServiceOf is the service of an archive file name for an owner kind;
// ok is false when that owner has no such archive.
func ServiceOf(kind, file string) (string, bool) {
	switch {
	case file == "raster.pmtiles" && (kind == KindLayer || kind == KindSet):
		return ServiceRasterPMTiles, true
	case file == "tiles.pmtiles" && kind == KindLayer:
		return ServiceVectorPMTiles, true
	case file == "tiles.mbtiles" && kind == KindLayer:
		return ServiceMBTiles, true
	}
	return "", false
}

// ContentType is the media type of an archive of service.
func ContentType(service string) string {
	if service == ServiceMBTiles {
		return "application/vnd.sqlite3"
	}
	return "application/vnd.pmtiles"
}

// ErrNotFound is the answer for an owner that does not exist, is not
// published, has no such archive, or that the caller may not use through
// the archive's service: callers cannot tell which.
var ErrNotFound = errors.New("not found or not available as a tile archive")

// Service is the tile archive capability of one process.
type Service struct {
	Store   *store.Store
	Jobs    *jobs.Jobs
	Blobs   *blob.Store
	Notify  *notify.Hub
	Tiles   *vectortiles.Service
	Rasters *rastertiles.Service
	Limits  Limits
	// WorkDir is where builds write their files before the upload (the
	// process's scratch folder).
	WorkDir string
	Logger  *slog.Logger
	// ProgressEvery is how often a build records and announces its
	// progress (default one second).
	ProgressEvery time.Duration
	// Workers is how many tiles one build makes at once (default 2).
	Workers int
}

func (s *Service) limits() Limits { return s.Limits.withDefaults() }

// Target is a published owner as an archive of service is built from it.
type Target struct {
	Kind    string
	ID      int
	Service string
	// VersionID is the published version; Members the layers a set's
	// archive draws, in set order (a layer's: itself).
	VersionID int
	Title     string
	UserID    int
	Members   []*vectortiles.Layer
}

// memberIDs and memberVersions list the members' ids and versions.
func (t *Target) memberIDs() []int {
	out := make([]int, len(t.Members))
	for i, l := range t.Members {
		out[i] = l.ID
	}
	return out
}

func (t *Target) memberVersions() []int {
	out := make([]int, len(t.Members))
	for i, l := range t.Members {
		out[i] = l.VersionID
	}
	return out
}

// everyone is the viewer the builder reads published datasets as: with
// no service named, vectortiles decides nothing about access (and caches
// no decision) and returns every published layer and member.
var everyone = access.RoleViewer(0, false)

// target loads the published owner of an archive, ErrNotFound when
// there is none (or a vector archive of a layer that is not vector).
func (s *Service) target(ctx context.Context, kind string, id int, service string) (*Target, error) {
	t := &Target{Kind: kind, ID: id, Service: service}
	switch kind {
	case KindLayer:
		l, err := s.Tiles.UsableLayer(ctx, everyone, id)
		if err != nil {
			return nil, notFound(err)
		}
		if service != ServiceRasterPMTiles && l.Kind != layer.KindVector {
			return nil, ErrNotFound
		}
		row, err := s.Store.Client.Layer.Get(ctx, id)
		if err != nil {
			return nil, notFound(err)
		}
		t.VersionID, t.Title, t.UserID, t.Members = l.VersionID, l.Title, row.UserID, []*vectortiles.Layer{l}
	case KindSet:
		if service != ServiceRasterPMTiles {
			return nil, ErrNotFound
		}
		st, ls, err := s.Tiles.UsableSet(ctx, everyone, id, nil, nil)
		if err != nil {
			return nil, notFound(err)
		}
		row, err := s.Store.Client.Set.Get(ctx, id)
		if err != nil {
			return nil, notFound(err)
		}
		t.VersionID, t.Title, t.UserID, t.Members = st.VersionID, st.Title, row.UserID, ls
	default:
		return nil, ErrNotFound
	}
	return t, nil
}

func notFound(err error) error {
	if errors.Is(err, vectortiles.ErrNotFound) || ent.IsNotFound(err) {
		return ErrNotFound
	}
	return err
}

// Usable returns the published owner of an archive if v may use it
// through the archive's service and the tiles service (whose switch
// and permissions govern every tile of the owner), else ErrNotFound.
func (s *Service) Usable(ctx context.Context, v *access.Viewer, kind string, id int, service string) (*Target, error) {
	if _, ok := ServiceOf(kind, File(service)); !ok {
		return nil, ErrNotFound
	}
	switch kind {
	case KindLayer:
		if _, err := s.Tiles.UsableLayer(ctx, v, id, service, vectortiles.ServiceTiles); err != nil {
			return nil, notFound(err)
		}
	case KindSet:
		if _, _, err := s.Tiles.UsableSet(ctx, v, id, []string{service, vectortiles.ServiceTiles}, nil); err != nil {
			return nil, notFound(err)
		}
	}
	return s.target(ctx, kind, id, service)
}

// MayRead reports whether v may use every layer a set's file draws
// (members) through the tiles service; a layer's file is its own.
func (s *Service) MayRead(ctx context.Context, v *access.Viewer, st *Status) (bool, error) {
	if st.Kind != KindSet {
		return true, nil
	}
	for _, id := range st.Members {
		if _, err := s.Tiles.UsableLayer(ctx, v, id, vectortiles.ServiceTiles); err != nil {
			if errors.Is(err, vectortiles.ErrNotFound) {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

// bounds is the union of the members' bounds (the world when none has
// any).
func (s *Service) bounds(ctx context.Context, t *Target) ([4]float64, error) {
	var box [4]float64
	found := false
	for _, l := range t.Members {
		b, ok, err := s.Tiles.Bounds(ctx, l)
		if err != nil {
			return box, err
		}
		if !ok {
			continue
		}
		if !found {
			box, found = b, true
			continue
		}
		box = [4]float64{math.Min(box[0], b[0]), math.Min(box[1], b[1]), math.Max(box[2], b[2]), math.Max(box[3], b[3])}
	}
	if !found {
		return [4]float64{-180, -85.0511287798066, 180, 85.0511287798066}, nil
	}
	return box, nil
}

// find returns the archive row of a target, nil when there is none.
func find(ctx context.Context, c *ent.Client, kind string, id int, service string) (*ent.TileArchive, error) {
	a, err := c.TileArchive.Query().Where(tarow.OwnerKindEQ(tarow.OwnerKind(kind)),
		tarow.OwnerID(id), tarow.Service(service)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return a, err
}

// Ensure returns the archive of a published target, queueing its first
// build when it has none, and a rebuild when its file was built from
// another version than the published one and no build is under way.
func (s *Service) Ensure(ctx context.Context, t *Target) (*Status, error) {
	var out *ent.TileArchive
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		a, err := find(ctx, c, t.Kind, t.ID, t.Service)
		if err != nil {
			return err
		}
		if a == nil {
			lo, hi := s.limits().defaultZooms(t.Service)
			a, err = c.TileArchive.Create().SetOwnerKind(tarow.OwnerKind(t.Kind)).SetOwnerID(t.ID).
				SetService(t.Service).SetMinZoom(lo).SetMaxZoom(hi).SetAutoZoom(true).Save(ctx)
			if err != nil {
				return err
			}
			out, err = s.queue(ctx, c, tx, a, t.UserID)
			return err
		}
		if stale(a, t) {
			out, err = s.queue(ctx, c, tx, a, t.UserID)
			return err
		}
		out = a
		return nil
	})
	if ent.IsConstraintError(errors.Unwrap(err)) || ent.IsConstraintError(err) {
		// Another request created it meanwhile.
		a, ferr := find(ctx, s.Store.Client, t.Kind, t.ID, t.Service)
		if ferr != nil || a == nil {
			return nil, err
		}
		out, err = a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tile archive of %s %d: %w", t.Kind, t.ID, err)
	}
	return s.status(out), nil
}

// stale reports whether a's file (or failed build) is of another version
// than t's and no build is under way.
func stale(a *ent.TileArchive, t *Target) bool {
	if a.State == tarow.StateQueued || a.State == tarow.StateBuilding {
		return false
	}
	if a.State == tarow.StateFailed {
		return a.TargetVersionID != t.VersionID || !slices.Equal(a.TargetMembers, t.memberVersions())
	}
	return a.VersionID != t.VersionID || !slices.Equal(a.MemberVersions, t.memberVersions())
}

// queue enqueues a build of a on tx (replacing any build under way: the
// older job finds the archive no longer names it and stops).
func (s *Service) queue(ctx context.Context, c *ent.Client, tx *sql.Tx, a *ent.TileArchive, userID int) (*ent.TileArchive, error) {
	if a.RequestedBy != 0 {
		userID = a.RequestedBy
	}
	opts := jobs.For(userID, false)
	opts.MaxAttempts = 3
	jobID, err := s.Jobs.InsertTx(ctx, tx, Args{ArchiveID: a.ID}, opts)
	if err != nil {
		return nil, fmt.Errorf("enqueueing the build: %w", err)
	}
	return c.TileArchive.UpdateOneID(a.ID).SetState(tarow.StateQueued).SetJobID(jobID).
		SetTilesDone(0).SetTilesEstimate(0).SetError("").SetTargetVersionID(0).SetTargetMembers([]int{}).Save(ctx)
}

// Request queues a build of a target's archive with the zoom range a
// publisher asked for (lo, hi; both negative: the default range), after
// checking v may edit the dataset and the range is within the limits.
func (s *Service) Request(ctx context.Context, v *access.Viewer, t *Target, lo, hi int) (*Status, error) {
	kind := access.KindLayer
	var group *int
	if t.Kind == KindSet {
		kind = access.KindSet
		st, err := s.Store.Client.Set.Get(ctx, t.ID)
		if err != nil {
			return nil, notFound(err)
		}
		group = st.GroupID
	} else {
		l, err := s.Store.Client.Layer.Get(ctx, t.ID)
		if err != nil {
			return nil, notFound(err)
		}
		group = l.GroupID
	}
	lvl, err := v.Level(ctx, s.Store.Client, kind, t.ID, group)
	if err != nil {
		return nil, err
	}
	if lvl < access.Edit {
		return nil, errForbidden
	}
	lim := s.limits()
	auto := lo < 0 && hi < 0
	if auto {
		lo, hi = lim.defaultZooms(t.Service)
	} else {
		box, err := s.bounds(ctx, t)
		if err != nil {
			return nil, err
		}
		if err := lim.check(t.Service, lim.plan(t.Service, lo, hi, box)); err != nil {
			return nil, err
		}
	}
	var out *ent.TileArchive
	err = s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		a, err := find(ctx, c, t.Kind, t.ID, t.Service)
		if err != nil {
			return err
		}
		if a == nil {
			a, err = c.TileArchive.Create().SetOwnerKind(tarow.OwnerKind(t.Kind)).SetOwnerID(t.ID).
				SetService(t.Service).SetMinZoom(lo).SetMaxZoom(hi).SetAutoZoom(auto).SetRequestedBy(v.UserID).Save(ctx)
		} else {
			a, err = a.Update().SetMinZoom(lo).SetMaxZoom(hi).SetAutoZoom(auto).SetRequestedBy(v.UserID).Save(ctx)
		}
		if err != nil {
			return err
		}
		out, err = s.queue(ctx, c, tx, a, v.UserID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("requesting the tile archive of %s %d: %w", t.Kind, t.ID, err)
	}
	return s.status(out), nil
}

// Describe returns the archive of a target as it stands (State "none"
// when it was never asked for), with the plan of its next build.
func (s *Service) Describe(ctx context.Context, t *Target) (*Status, error) {
	a, err := find(ctx, s.Store.Client, t.Kind, t.ID, t.Service)
	if err != nil {
		return nil, err
	}
	lim := s.limits()
	var st *Status
	lo, hi := lim.defaultZooms(t.Service)
	auto := true
	if a == nil {
		st = &Status{Kind: t.Kind, ID: t.ID, Service: t.Service, State: "none", Limits: lim.doc(t.Service)}
	} else {
		st = s.status(a)
		lo, hi, auto = a.MinZoom, a.MaxZoom, a.AutoZoom
	}
	box, err := s.bounds(ctx, t)
	if err != nil {
		return nil, err
	}
	p := lim.plan(t.Service, lo, hi, box)
	if auto {
		p = lim.fit(t.Service, lo, hi, box)
	}
	st.Plan = &p
	return st, nil
}

// errForbidden refuses a build request from a caller who may use the
// archive but not edit the dataset.
var errForbidden = errors.New("you may not build this dataset's archives")

// ErrForbidden is errForbidden, for doors.
var ErrForbidden = errForbidden

// Status is an archive as clients see it.
type Status struct {
	Kind    string
	ID      int
	Service string
	// State is none (never asked for), queued, building, ready or failed;
	// Ready says whether a file serves (also while a rebuild runs).
	State string
	Ready bool
	// The served file: built from VersionID (and a set's Members at
	// MemberVersions), validated by ETag.
	VersionID      int
	Members        []int
	MemberVersions []int
	BlobKey        string
	ETag           string
	Bytes          int64
	TileCount      int64
	MinZoom        int
	MaxZoom        int
	Bounds         []float64
	BuiltAt        *time.Time
	// The build under way: the zoom range asked for, tiles done and the
	// estimate.
	RangeMinZoom, RangeMaxZoom int
	AutoZoom                   bool
	TilesDone, TilesEstimate   int64
	Error                      string
	UpdatedAt                  time.Time
	Limits                     LimitsDoc
	// Plan is the next build's plan (Describe only).
	Plan *Plan
}

// Progress is the share of the build done (0..1), 0 when none runs.
func (s *Status) Progress() float64 {
	if s.TilesEstimate <= 0 {
		return 0
	}
	return min(1, float64(s.TilesDone)/float64(s.TilesEstimate))
}

func (s *Service) status(a *ent.TileArchive) *Status {
	st := &Status{Kind: string(a.OwnerKind), ID: a.OwnerID, Service: a.Service, State: string(a.State),
		Ready: a.BlobKey != "", VersionID: a.VersionID, Members: a.Members, MemberVersions: a.MemberVersions,
		BlobKey: a.BlobKey, ETag: a.Etag, Bytes: a.Bytes, TileCount: a.TileCount, MinZoom: a.BuiltMinZoom,
		MaxZoom: a.BuiltMaxZoom, Bounds: a.Bounds, BuiltAt: a.BuiltAt, RangeMinZoom: a.MinZoom, RangeMaxZoom: a.MaxZoom,
		AutoZoom: a.AutoZoom, TilesDone: a.TilesDone, TilesEstimate: a.TilesEstimate, Error: a.Error, UpdatedAt: a.UpdatedAt,
		Limits: s.limits().doc(a.Service)}
	return st
}

// BlobKey is where a build stores its file: a new key per build, so the
// previous file serves until the new one is recorded.
func BlobKey(a *ent.TileArchive, jobID int64) string {
	ext := ".pmtiles"
	if a.Service == ServiceMBTiles {
		ext = ".mbtiles"
	}
	return "tilearchives/" + string(a.OwnerKind) + "-" + strconv.Itoa(a.OwnerID) + "/" + a.Service + "-" +
		strconv.FormatInt(jobID, 10) + ext
}

// Args is the job building one archive.
type Args struct {
	ArchiveID int `json:"archive_id"`
}

// Kind names the job.
func (Args) Kind() string { return "tile_archive" }

// InsertOpts retries a failed attempt twice.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }
