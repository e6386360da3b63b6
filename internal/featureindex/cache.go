package featureindex

import (
	"container/list"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// retryAfter is how long a version whose background build failed, or
// whose index was dropped for the budget, is left alone before Resident
// builds it again: indexes that do not fit together are not rebuilt in
// turn at every request (their tiles come from the store meanwhile).
var retryAfter = time.Minute

// Cache holds the indexes of published versions, the least recently used
// dropped beyond a memory budget, each built once by whoever asks first.
// Point queries wait for a build (Get); tiles take an index only when it
// is already built (Resident), starting its build in the background.
type Cache struct {
	store  *store.Store
	budget int64
	logger *slog.Logger

	ctx    context.Context // ends at Close: background builds stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	entries map[int]*entry // by version id
	lru     *list.List     // of *entry, most recent first; built ones only
	used    int64
	failed  map[int]time.Time // builds that failed or indexes dropped, when
	bg      chan struct{}     // one background build at a time
}

// entry is one version's index, ready when built.
type entry struct {
	version int
	ready   chan struct{}
	ix      *Index
	err     error
	elem    *list.Element
}

// NewCache returns a cache of the indexes of st's versions holding at
// most budget bytes (the newest index is kept even beyond it).
func NewCache(st *store.Store, budget int64, logger *slog.Logger) *Cache {
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Cache{store: st, budget: budget, logger: logger, ctx: ctx, cancel: cancel,
		entries: map[int]*entry{}, lru: list.New(), failed: map[int]time.Time{}, bg: make(chan struct{}, 1)}
}

// Close stops the background builds and waits for them.
func (c *Cache) Close() {
	c.cancel()
	c.wg.Wait()
}

// Get returns the index of a published version, building it on first
// use; a caller waiting for another's build gives up when ctx ends.
func (c *Cache) Get(ctx context.Context, versionID int) (*Index, error) {
	c.mu.Lock()
	e, ok := c.entries[versionID]
	if ok {
		c.touch(e)
		c.mu.Unlock()
		select {
		case <-e.ready:
			return e.ix, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e = c.start(versionID)
	c.mu.Unlock()
	c.build(context.WithoutCancel(ctx), e)
	return e.ix, e.err
}

// Resident returns the index of a version when it is built, nil when it
// is not (yet): then its build starts in the background, unless one is
// under way, or failed or was dropped for the budget within the last
// minute.
func (c *Cache) Resident(versionID int) *Index {
	c.mu.Lock()
	e, ok := c.entries[versionID]
	if ok {
		c.touch(e)
		c.mu.Unlock()
		select {
		case <-e.ready:
			return e.ix // nil when it failed
		default:
			return nil
		}
	}
	if t, failed := c.failed[versionID]; (failed && time.Since(t) < retryAfter) || c.ctx.Err() != nil {
		c.mu.Unlock()
		return nil
	}
	e = c.start(versionID)
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		select {
		case c.bg <- struct{}{}:
			defer func() { <-c.bg }()
		case <-c.ctx.Done():
			c.finish(e, nil, c.ctx.Err())
			return
		}
		c.build(c.ctx, e)
	}()
	return nil
}

// touch marks e as used now. Callers hold c.mu.
func (c *Cache) touch(e *entry) {
	if e.elem != nil {
		c.lru.MoveToFront(e.elem)
	}
}

// start registers the build of a version. Callers hold c.mu.
func (c *Cache) start(versionID int) *entry {
	e := &entry{version: versionID, ready: make(chan struct{})}
	c.entries[versionID] = e
	return e
}

// build reads e's version into its index and publishes the outcome.
func (c *Cache) build(ctx context.Context, e *entry) {
	start := time.Now()
	ix, err := c.read(ctx, e.version)
	c.finish(e, ix, err)
	if err != nil {
		c.logger.WarnContext(ctx, "building a feature index", "version", e.version, "err", err)
		return
	}
	// A build leaves several times the index's size in garbage (rows read,
	// builder slices): give it back to the OS now rather than carry it
	// until the heap next shrinks.
	debug.FreeOSMemory()
	c.logger.InfoContext(ctx, "feature index built", "version", e.version, "features", ix.Len(),
		"bytes", ix.Bytes(), "took", time.Since(start).Round(time.Millisecond))
}

// finish records a build's outcome and wakes its waiters: a failure is
// forgotten (the next Get builds again), a success counts against the
// budget.
func (c *Cache) finish(e *entry, ix *Index, err error) {
	c.mu.Lock()
	e.ix, e.err = ix, err
	if err != nil {
		delete(c.entries, e.version)
		c.failed[e.version] = time.Now()
	} else {
		delete(c.failed, e.version)
		e.elem = c.lru.PushFront(e)
		c.used += ix.Bytes()
		c.evict()
	}
	c.mu.Unlock()
	close(e.ready)
}

// evict drops the least recently used indexes beyond the budget, keeping
// at least the newest. Callers hold c.mu.
func (c *Cache) evict() {
	for c.used > c.budget && c.lru.Len() > 1 {
		last := c.lru.Back()
		e := last.Value.(*entry)
		c.lru.Remove(last)
		delete(c.entries, e.version)
		c.used -= e.ix.Bytes()
		c.failed[e.version] = time.Now()
	}
}

// Used is the bytes the cached indexes hold.
func (c *Cache) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Budget is the bytes the cached indexes may hold.
func (c *Cache) Budget() int64 { return c.budget }

// Warm builds the indexes of published layers, newest first, until the
// memory budget is spent, so the first requests after a start are fast.
func (c *Cache) Warm(ctx context.Context) error {
	ids, err := c.store.Client.Layer.Query().Where(layer.PublishedVersionIDNotNil(), layer.KindEQ(layer.KindVector)).
		Order(ent.Desc(layer.FieldPublishedAt)).Select(layer.FieldPublishedVersionID).Ints(ctx)
	if err != nil {
		return err
	}
	for _, vid := range ids {
		if ctx.Err() != nil || c.Used() >= c.budget {
			return ctx.Err()
		}
		if _, err := c.Get(ctx, vid); err != nil {
			c.logger.WarnContext(ctx, "warming a feature index", "version", vid, "err", err)
		}
	}
	return nil
}

// read reads a version's features into an index, in its field order.
func (c *Cache) read(ctx context.Context, versionID int) (*Index, error) {
	v, err := c.store.Client.LayerVersion.Get(ctx, versionID)
	if err != nil {
		return nil, fmt.Errorf("building the feature index of version %d: %w", versionID, err)
	}
	return Read(ctx, c.store, versionID, AttributeNames(v.Fields))
}

// Read reads a version's features from st into an index, each feature's
// attributes rendered once by OrderedAttributes with fields first.
func Read(ctx context.Context, st *store.Store, versionID int, fields []string) (*Index, error) {
	var b Builder
	err := featurerows.ReadRaw(ctx, st, versionID, func(r *featurerows.RawRow) error {
		if !r.HasBox || len(r.Geom) == 0 {
			b.Skip()
			return nil
		}
		b.Add(r.FID, r.Box, isPoint(r.Geom), r.Geom, OrderedAttributes(fields, r.Attrs))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("building the feature index of version %d: %w", versionID, err)
	}
	return b.Build(), nil
}

// AttributeNames are the names of a version's non-geometry fields, in
// order.
func AttributeNames(fs []schematype.Field) []string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.Type != "geometry" {
			names = append(names, f.Name)
		}
	}
	return names
}

// isPoint reports whether WKB holds a single point (ISO or extended type
// codes, any dimensions).
func isPoint(wkb []byte) bool {
	if len(wkb) < 5 {
		return false
	}
	var t uint32
	if wkb[0] == 1 {
		t = binary.LittleEndian.Uint32(wkb[1:5])
	} else {
		t = binary.BigEndian.Uint32(wkb[1:5])
	}
	return (t&0xffff)%1000 == 1
}
