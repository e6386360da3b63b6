package search

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/geopub/geopub/internal/access"
)

// The view is each process's in-memory copy of the index tables
// (search_docs and its child tables) and of the dataset grants, with a
// text index over the docs: what Search evaluates. The tables stay the
// truth, written by Put and Delete in the callers' transactions; the
// triggers of migration *_search_changes log every write to search_docs
// and dataset_permissions in search_changes, and before each search the
// view applies the changes logged since it last looked (one indexed
// query when nothing changed). So a search never misses a committed
// change, on either store and with any number of processes; a view that
// fell behind the pruned log, or finds many changes at once, reloads.

// freeAfterLoad is the number of docs above which a full load returns
// the memory it read through to the operating system.
const freeAfterLoad = 100000

// reloadAbove is the number of pending changes beyond which the view
// reloads everything instead of applying them one by one.
const reloadAbove = 20000

// mdoc is one doc in the view, kept compact (a million of them are
// held): values that filters and facets use are ids in the view's
// dictionaries, and the multi-valued ones share one slice.
type mdoc struct {
	id               int64 // search_docs.id; 0 for a free slot
	refID            int   // Ref.ID; Ref.Type is typ, Ref.State latest
	created, updated int64
	popularity       int64
	res              float64
	title            string
	group, user      int
	// vals are the tag, category, geotag and raster band ids, in that
	// order; ends[0..2] end the first three.
	vals                        []uint32
	text                        docText
	ends                        [3]uint16
	typ, kind, status, license  uint32
	licVer, geom, sourceType    uint32
	perm                        int32 // index in view.perms
	latest, hasZ, hasPK, hasRes bool
	imagery                     int8 // -1 unknown, 0 false, 1 true
}

func (d *mdoc) tags() []uint32  { return d.vals[:d.ends[0]] }
func (d *mdoc) cats() []uint32  { return d.vals[d.ends[0]:d.ends[1]] }
func (d *mdoc) geos() []uint32  { return d.vals[d.ends[1]:d.ends[2]] }
func (d *mdoc) bands() []uint32 { return d.vals[d.ends[2]:] }

// refOf is the Ref of the doc d.
func (v *view) refOf(d *mdoc) Ref {
	r := Ref{Type: Type(v.types.vals[d.typ]), ID: d.refID, State: Published}
	if d.latest {
		r.State = Latest
	}
	return r
}

// dict numbers strings; 0 is "".
type dict struct {
	ids  map[string]uint32
	vals []string
}

func newDict() *dict { return &dict{ids: map[string]uint32{"": 0}, vals: []string{""}} }

func (d *dict) id(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := uint32(len(d.vals))
	d.ids[s] = id
	d.vals = append(d.vals, s)
	return id
}

// lookup returns the id of s, or false when no doc ever had it.
func (d *dict) lookup(s string) (uint32, bool) {
	id, ok := d.ids[s]
	return id, ok
}

// permKey names a dataset as dataset_permissions does.
type permKey struct {
	kind string
	id   int
}

// grant is one dataset_permissions row.
type grant struct {
	subject access.Subject
	level   access.Level
}

// permState is a dataset's grants: everyone's level, and the others.
type permState struct {
	key    permKey
	public access.Level
	grants []grant
}

// view is the in-memory copy. mu guards everything below it; syncMu
// serialises syncs.
type view struct {
	syncMu sync.Mutex
	mu     sync.RWMutex
	// prunedAt is when this process last pruned the change log (Put).
	prunedAt atomic.Int64

	loaded bool
	seq    int64
	// xmin (PostgreSQL): the oldest transaction that was still running at
	// the last sync; its changes may have become visible since. seen holds
	// the changes applied that such transactions wrote.
	xmin uint64
	seen map[int64]bool

	docs  []mdoc
	slots map[int64]int32
	free  []int32
	live  int

	kinds, statuses, licenses, licVers, geoms, tags, cats, geos, bands, types, sourceTypes *dict
	catNames, geoNames                                                                     map[uint32]string
	groupNames                                                                             map[int]string

	perms     []permState
	permIdx   map[permKey]int32
	bySubject map[access.Subject][]int32

	text *textIndex
	// bits are the filter bitmaps (membitmaps.go); permFirst and
	// nextInPerm chain each dataset's docs; ord holds the sorted orders
	// (memorder.go), nil while a batch of changes is applied.
	bits       *bitIndex
	permFirst  []int32
	nextInPerm []int32
	ord        map[Sort][]int32
}

func newView() *view {
	v := &view{}
	v.reset()
	return v
}

func (v *view) reset() {
	v.loaded, v.seq, v.xmin, v.seen = false, 0, 0, map[int64]bool{}
	v.docs, v.slots, v.free, v.live = nil, map[int64]int32{}, nil, 0
	v.kinds, v.statuses, v.licenses, v.licVers, v.geoms = newDict(), newDict(), newDict(), newDict(), newDict()
	v.tags, v.cats, v.geos, v.bands, v.types = newDict(), newDict(), newDict(), newDict(), newDict()
	v.sourceTypes = newDict()
	v.catNames, v.geoNames, v.groupNames = map[uint32]string{}, map[uint32]string{}, map[int]string{}
	v.perms, v.permIdx, v.bySubject = nil, map[permKey]int32{}, map[access.Subject][]int32{}
	v.text = newTextIndex()
	v.bits, v.permFirst, v.nextInPerm, v.ord = newBitIndex(), nil, nil, nil
}

// change is one row of search_changes.
type change struct {
	seq  int64
	xid  uint64
	doc  sql.NullInt64
	kind sql.NullString
	id   sql.NullInt64
}

// sync brings the view up to date with the tables.
func (ix *sqlIndex) sync(ctx context.Context) error {
	v := ix.view
	v.syncMu.Lock()
	defer v.syncMu.Unlock()
	if !v.loaded {
		return ix.loadAll(ctx)
	}
	// One round trip: the snapshot's oldest running transaction
	// (PostgreSQL) and how far the log was pruned.
	var xmin uint64
	var snap string
	var pruned int64
	head := "SELECT '0', COALESCE((SELECT value FROM search_meta WHERE key = 'pruned_seq'), 0)"
	if ix.pg {
		head = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text, COALESCE((SELECT value FROM search_meta WHERE key = 'pruned_seq'), 0)"
	}
	if err := ix.db.QueryRowContext(ctx, head).Scan(&snap, &pruned); err != nil {
		return fmt.Errorf("search: reading the change log: %w", err)
	}
	if _, err := fmt.Sscan(snap, &xmin); err != nil {
		return fmt.Errorf("search: reading the snapshot: %w", err)
	}
	if pruned > v.seq {
		return ix.loadAll(ctx)
	}
	q, args := "SELECT seq, 0, doc, perm_kind, perm_id FROM search_changes WHERE seq > ? ORDER BY seq LIMIT ?", []any{v.seq, reloadAbove + 1}
	if ix.pg {
		// The numbers are written into the text rather than bound: the
		// generic plan a prepared statement gets after a few runs cannot
		// tell that both conditions select a handful of rows, and walks
		// the whole log in seq order (seconds at a million docs).
		q = fmt.Sprintf("SELECT seq, xid::text::bigint, doc, perm_kind, perm_id FROM search_changes WHERE seq > %d OR xid >= '%d'::xid8 ORDER BY seq LIMIT %d",
			v.seq, v.xmin, reloadAbove+1)
		args = nil
	}
	rows, err := ix.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("search: reading the change log: %w", err)
	}
	var changes []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.seq, &c.xid, &c.doc, &c.kind, &c.id); err != nil {
			rows.Close()
			return fmt.Errorf("search: reading the change log: %w", err)
		}
		if !v.seen[c.seq] {
			changes = append(changes, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: reading the change log: %w", err)
	}
	if len(changes) > reloadAbove {
		return ix.loadAll(ctx)
	}
	if len(changes) == 0 {
		v.xmin = xmin
		return nil
	}
	var docIDs []int64
	keys := map[permKey]bool{}
	for _, c := range changes {
		switch {
		case c.doc.Valid:
			docIDs = append(docIDs, c.doc.Int64)
		case c.kind.Valid && c.id.Valid:
			keys[permKey{c.kind.String, int(c.id.Int64)}] = true
		}
	}
	docs, err := ix.loadDocs(ctx, docIDs)
	if err != nil {
		return err
	}
	grants, err := ix.loadGrants(ctx, keys, false)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(docIDs) > orderPatchMax {
		v.ord = nil // cheaper to sort again than to patch
	}
	defer v.buildOrders()
	for k := range keys {
		v.setGrants(k, grants[k])
	}
	found := map[int64]bool{}
	for _, d := range docs {
		found[d.id] = true
		v.put(d)
	}
	for _, id := range docIDs {
		if !found[id] {
			v.remove(id)
		}
	}
	for _, c := range changes {
		if c.seq > v.seq {
			v.seq = c.seq
		}
		if ix.pg && c.xid >= xmin {
			v.seen[c.seq] = true
		}
	}
	if ix.pg {
		for s := range v.seen {
			if s <= v.seq-reloadAbove {
				delete(v.seen, s)
			}
		}
		v.xmin = xmin
	}
	return nil
}

// loadAll rebuilds the view from the tables.
func (ix *sqlIndex) loadAll(ctx context.Context) error {
	var seq int64
	if err := ix.db.QueryRowContext(ctx, "SELECT COALESCE(max(seq), 0) FROM search_changes").Scan(&seq); err != nil {
		return fmt.Errorf("search: reading the change log: %w", err)
	}
	var xmin uint64
	if ix.pg {
		var s string
		if err := ix.db.QueryRowContext(ctx, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text").Scan(&s); err != nil {
			return fmt.Errorf("search: reading the snapshot: %w", err)
		}
		fmt.Sscan(s, &xmin)
	}
	grants, err := ix.loadGrants(ctx, nil, true)
	if err != nil {
		return err
	}
	// Searches wait for the sync anyway; the docs are read and indexed a
	// chunk at a time, so that a million of them never sit in memory
	// twice.
	v := ix.view
	v.mu.Lock()
	defer v.mu.Unlock()
	v.reset()
	for k, gs := range grants {
		v.setGrants(k, gs)
	}
	grants = nil
	for after := int64(0); ; {
		docs, hi, err := ix.loadDocsAfter(ctx, after)
		if err != nil {
			return err
		}
		if hi == 0 {
			break
		}
		for _, d := range docs {
			v.put(d)
		}
		after = hi
	}
	v.text.compact()
	v.buildOrders()
	if v.live > freeAfterLoad {
		// The rows read are garbage now, and as large as the view:
		// hand their memory back rather than keep it for the process's
		// life.
		debug.FreeOSMemory()
	}
	v.seq, v.xmin, v.loaded = seq, xmin, true
	return nil
}
