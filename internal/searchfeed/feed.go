package searchfeed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	entgo "entgo.io/ent"
	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setitem"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
)

// Feed keeps a search.Index current with the store it is installed on.
type Feed struct {
	store  *store.Store
	ix     search.Index
	logger *slog.Logger
	pg     bool

	// pending holds what Ent transactions (Client.Tx, outside InTx) changed,
	// reindexed when they commit.
	mu      sync.Mutex
	pending map[*ent.Tx]*Datasets
}

// observerName is the feed's name among the store's observers.
const observerName = "searchfeed"

// Install attaches a feed of ix to s and returns it: every InTx
// transaction that changes an indexed field reindexes the datasets it
// touched before it commits, and writes outside InTx reindex right after
// (see the package doc). Installing on a store that has a feed already
// returns a feed that shares the index but installs nothing more.
func Install(s *store.Store, ix search.Index, logger *slog.Logger) *Feed {
	if logger == nil {
		logger = slog.Default()
	}
	f := &Feed{store: s, ix: ix, logger: logger, pg: s.Dialect == dialect.Postgres, pending: map[*ent.Tx]*Datasets{}}
	if s.Observe(observerName, f.begin) {
		s.Client.Use(f.hook(f.outside))
	}
	return f
}

// Index is the index the feed writes.
func (f *Feed) Index() search.Index { return f.ix }

// begin attaches the feed to one InTx transaction.
func (f *Feed) begin() store.TxObservation {
	var changed Datasets
	var mu sync.Mutex
	return store.TxObservation{
		Hooks: []entgo.Hook{f.hook(func(_ context.Context, _ entgo.Mutation, ds Datasets) error {
			mu.Lock()
			defer mu.Unlock()
			changed.Merge(ds)
			return nil
		})},
		BeforeCommit: func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			mu.Lock()
			ds := changed
			changed = Datasets{}
			mu.Unlock()
			if ds.Empty() {
				return nil
			}
			return f.Reindex(ctx, c, tx, ds)
		},
	}
}

// Reindex rebuilds the docs of ds in tx (c bound to the same transaction):
// docs that exist are written, docs that must not exist are removed.
func (f *Feed) Reindex(ctx context.Context, c *ent.Client, tx *sql.Tx, ds Datasets) error {
	_, err := f.reindex(ctx, c, tx, ds)
	return err
}

// reindex is Reindex returning the number of docs written.
func (f *Feed) reindex(ctx context.Context, c *ent.Client, tx *sql.Tx, ds Datasets) (int, error) {
	ds, err := expand(ctx, c, ds)
	if err != nil {
		return 0, err
	}
	if err := f.lock(ctx, tx, ds); err != nil {
		return 0, err
	}
	docs, gone, err := build(ctx, c, ds)
	if err != nil {
		return 0, err
	}
	// Put before Delete: Delete drops a dataset's stars when none of its
	// docs remain, which must not happen to a dataset that has docs.
	if err := f.ix.Put(ctx, tx, docs...); err != nil {
		return 0, err
	}
	gone, err = f.indexed(ctx, tx, gone)
	if err != nil {
		return 0, err
	}
	return len(docs), f.ix.Delete(ctx, tx, gone...)
}

// lock serialises the reindexing of each dataset on PostgreSQL: two
// transactions that touch one dataset (say, one renames a layer while the
// other renames its group) each read the dataset after the other's
// commit or before its reindex, so the last doc written is built from the
// last committed state. Without it, under READ COMMITTED, a reindex that
// read the dataset before the other transaction committed could overwrite
// that transaction's newer doc. The locks are transaction-scoped advisory
// locks, taken in one sorted order so reindexers cannot deadlock among
// themselves. SQLite needs none: its writers take turns.
func (f *Feed) lock(ctx context.Context, tx *sql.Tx, ds Datasets) error {
	if !f.pg {
		return nil
	}
	var lockKeys []int64
	for i, m := range []map[int]bool{ds.Layers, ds.Sets, ds.Documents, ds.Items, ds.Sources} {
		for id := range m {
			lockKeys = append(lockKeys, lockKey(i+1, id))
		}
	}
	if len(lockKeys) == 0 {
		return nil
	}
	slices.Sort(lockKeys)
	for start := 0; start < len(lockKeys); start += 5000 {
		chunk := lockKeys[start:min(start+5000, len(lockKeys))]
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k",
			chunk).Scan(&n); err != nil {
			return fmt.Errorf("searchfeed: locking datasets to reindex: %w", err)
		}
	}
	return nil
}

// lockKey is the advisory lock key of a dataset: its table (1-5) above
// bit 40, its id below, far from the small keys other locks use.
func lockKey(table, id int) int64 { return int64(table)<<40 | int64(id) }

// indexed keeps the refs the index holds, so deleting the (usually
// absent) docs Build rules out costs one query per 500 datasets.
func (f *Feed) indexed(ctx context.Context, tx *sql.Tx, refs []search.Ref) ([]search.Ref, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	ids := map[int]bool{}
	for _, r := range refs {
		ids[r.ID] = true
	}
	held := map[search.Ref]bool{}
	for _, chunk := range chunks(keys(ids), batchIDs) {
		args := make([]any, len(chunk))
		marks := make([]string, len(chunk))
		for i, id := range chunk {
			args[i] = id
			marks[i] = "?"
			if f.pg {
				marks[i] = "$" + strconv.Itoa(i+1)
			}
		}
		rows, err := tx.QueryContext(ctx, "SELECT doc_type, doc_id, state FROM search_docs WHERE doc_id IN ("+strings.Join(marks, ", ")+")", args...)
		if err != nil {
			return nil, fmt.Errorf("searchfeed: reading the index: %w", err)
		}
		for rows.Next() {
			var r search.Ref
			if err := rows.Scan(&r.Type, &r.ID, &r.State); err != nil {
				rows.Close()
				return nil, fmt.Errorf("searchfeed: reading the index: %w", err)
			}
			held[r] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("searchfeed: reading the index: %w", err)
		}
	}
	var out []search.Ref
	for _, r := range refs {
		if held[r] {
			out = append(out, r)
			delete(held, r)
		}
	}
	return out, nil
}

// ReindexNow reindexes ds in a transaction of its own.
func (f *Feed) ReindexNow(ctx context.Context, ds Datasets) error {
	return f.store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		return f.Reindex(ctx, c, tx, ds)
	})
}

// outside records a change made through the store's own client, outside
// InTx: in an Ent transaction it is reindexed when that commits, else at
// once. Either way the index follows the write by one transaction; the
// write paths of the API all run in InTx, so this covers seeds, tools and
// code added later without the guarantee.
func (f *Feed) outside(ctx context.Context, m entgo.Mutation, ds Datasets) error {
	if txm, ok := m.(interface{ Tx() (*ent.Tx, error) }); ok {
		if tx, err := txm.Tx(); err == nil {
			f.mu.Lock()
			p, seen := f.pending[tx]
			if !seen {
				p = &Datasets{}
				f.pending[tx] = p
			}
			p.Merge(ds)
			f.mu.Unlock()
			if !seen {
				f.afterTx(tx)
			}
			return nil
		}
	}
	if err := f.ReindexNow(ctx, ds); err != nil {
		f.logger.ErrorContext(ctx, "search index: reindexing after a write outside a transaction", "err", err)
	}
	return nil
}

// afterTx reindexes what an Ent transaction changed once it commits.
func (f *Feed) afterTx(tx *ent.Tx) {
	take := func() Datasets {
		f.mu.Lock()
		defer f.mu.Unlock()
		p := f.pending[tx]
		delete(f.pending, tx)
		if p == nil {
			return Datasets{}
		}
		return *p
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			ds := take()
			if err != nil || ds.Empty() {
				return err
			}
			if err := f.ReindexNow(ctx, ds); err != nil {
				f.logger.ErrorContext(ctx, "search index: reindexing after an Ent transaction", "err", err)
			}
			return nil
		})
	})
	tx.OnRollback(func(next ent.Rollbacker) ent.Rollbacker {
		return ent.RollbackFunc(func(ctx context.Context, tx *ent.Tx) error {
			take()
			return next.Rollback(ctx, tx)
		})
	})
}

// quietFields are fields whose changes no doc reflects: the progress of
// imports, written often while they run. A change of these alone still
// moves the row's updated_at; the index catches up with the import's next
// status change, which always follows (ok, failed or cancelled).
var quietFields = map[string]bool{"updated_at": true, "progress": true}

// nameFields are the fields of groups and users that docs carry.
var nameFields = map[string][]string{
	"Group": {"name"},
	"User":  {"first_name", "last_name"},
}

// relevant reports whether m may change a doc.
func relevant(m entgo.Mutation) bool {
	switch m.Type() {
	case "Layer", "LayerVersion", "Set", "SetVersion", "SetItem", "Document", "DocumentVersion",
		"CatalogItem", "CatalogItemVersion", "CatalogItemGeotag", "Source", "DatasetPermission":
	case "Group", "User":
		if m.Op().Is(entgo.OpCreate) {
			return false // owns nothing yet
		}
		if m.Op().Is(entgo.OpDelete | entgo.OpDeleteOne) {
			return true
		}
		for _, f := range nameFields[m.Type()] {
			if _, ok := m.Field(f); ok || m.FieldCleared(f) {
				return true
			}
		}
		return false
	default:
		return false
	}
	if !m.Op().Is(entgo.OpUpdate | entgo.OpUpdateOne) {
		return true
	}
	for _, f := range append(m.Fields(), m.ClearedFields()...) {
		if !quietFields[f] {
			return true
		}
	}
	return false
}

// hook records the datasets each relevant mutation touches: the rows it
// will change or delete (found before it runs) and the rows it created.
func (f *Feed) hook(record func(ctx context.Context, m entgo.Mutation, ds Datasets) error) entgo.Hook {
	return func(next entgo.Mutator) entgo.Mutator {
		return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
			if !relevant(m) {
				return next.Mutate(ctx, m)
			}
			var ds Datasets
			create := m.Op().Is(entgo.OpCreate)
			if !create {
				if err := touched(ctx, m, &ds); err != nil {
					return nil, err
				}
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			if create {
				if err := touched(ctx, m, &ds); err != nil {
					return nil, err
				}
			}
			if ds.Empty() {
				return v, nil
			}
			return v, record(ctx, m, ds)
		})
	}
}

// ider is what every generated mutation offers.
type ider interface {
	ID() (int, bool)
	IDs(ctx context.Context) ([]int, error)
}

// touched adds the datasets m touches to ds: for a create, the created
// row's dataset (after it ran); otherwise the rows it matches (before).
func touched(ctx context.Context, m entgo.Mutation, ds *Datasets) error {
	im, ok := m.(ider)
	if !ok {
		return fmt.Errorf("searchfeed: mutation %s has no ids", m.Type())
	}
	var ids []int
	if m.Op().Is(entgo.OpCreate) {
		if id, ok := im.ID(); ok {
			ids = []int{id}
		}
	} else {
		var err error
		if ids, err = im.IDs(ctx); err != nil {
			return fmt.Errorf("searchfeed: finding the rows of a %s change: %w", m.Type(), err)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var parents []int
	var err error
	switch mm := m.(type) {
	case *ent.LayerMutation:
		ds.AddLayers(ids...)
		if m.Op().Is(entgo.OpDelete | entgo.OpDeleteOne) {
			// The sets holding a deleted layer lose its title; their
			// members are gone by the time the feed runs.
			parents, err = mm.Client().SetItem.Query().Where(setitem.LayerIDIn(ids...)).
				QuerySetVersion().Select(setversion.FieldSetID).Ints(ctx)
			ds.AddSets(parents...)
		}
	case *ent.SetMutation:
		ds.AddSets(ids...)
	case *ent.DocumentMutation:
		ds.AddDocuments(ids...)
	case *ent.CatalogItemMutation:
		ds.AddItems(ids...)
	case *ent.SourceMutation:
		ds.AddSources(ids...)
	case *ent.GroupMutation:
		ds.AddGroups(ids...)
	case *ent.UserMutation:
		ds.AddUsers(ids...)
	case *ent.LayerVersionMutation:
		parents, err = mm.Client().LayerVersion.Query().Where(layerversion.IDIn(ids...)).Select(layerversion.FieldLayerID).Ints(ctx)
		ds.AddLayers(parents...)
	case *ent.SetVersionMutation:
		parents, err = mm.Client().SetVersion.Query().Where(setversion.IDIn(ids...)).Select(setversion.FieldSetID).Ints(ctx)
		ds.AddSets(parents...)
	case *ent.SetItemMutation:
		if v, ok := mm.SetVersionID(); ok && len(ids) == 1 {
			parents, err = mm.Client().SetVersion.Query().Where(setversion.ID(v)).Select(setversion.FieldSetID).Ints(ctx)
		} else {
			parents, err = mm.Client().SetItem.Query().Where(setitem.IDIn(ids...)).QuerySetVersion().Select(setversion.FieldSetID).Ints(ctx)
		}
		ds.AddSets(parents...)
	case *ent.DocumentVersionMutation:
		parents, err = mm.Client().DocumentVersion.Query().Where(documentversion.IDIn(ids...)).Select(documentversion.FieldDocumentID).Ints(ctx)
		ds.AddDocuments(parents...)
	case *ent.CatalogItemGeotagMutation:
		if item, ok := mm.ItemID(); ok && len(ids) == 1 {
			ds.AddItems(item)
			break
		}
		parents, err = mm.Client().CatalogItemGeotag.Query().Where(catalogitemgeotag.IDIn(ids...)).Select(catalogitemgeotag.FieldItemID).Ints(ctx)
		ds.AddItems(parents...)
	case *ent.DatasetPermissionMutation:
		// A layer's grants decide whether the sets holding it show its
		// title (publicMembers); the layer's own docs do not change.
		var layers []int
		if kind, ok := mm.DatasetKind(); ok && m.Op().Is(entgo.OpCreate) {
			if id, ok := mm.DatasetID(); ok && kind == access.KindLayer {
				layers = []int{id}
			}
		} else {
			layers, err = mm.Client().DatasetPermission.Query().Where(datasetpermission.IDIn(ids...),
				datasetpermission.DatasetKindEQ(access.KindLayer)).Select(datasetpermission.FieldDatasetID).Ints(ctx)
		}
		if err == nil && len(layers) > 0 {
			parents, err = mm.Client().SetItem.Query().Where(setitem.LayerIDIn(layers...)).
				QuerySetVersion().Select(setversion.FieldSetID).Ints(ctx)
			ds.AddSets(parents...)
		}
	case *ent.CatalogItemVersionMutation:
		parents, err = mm.Client().CatalogItemVersion.Query().Where(catalogitemversion.IDIn(ids...)).Select(catalogitemversion.FieldItemID).Ints(ctx)
		ds.AddItems(parents...)
	}
	if err != nil {
		return fmt.Errorf("searchfeed: finding the dataset of a %s change: %w", m.Type(), err)
	}
	return nil
}

// PopularityChanged adds the views and downloads a flush of the
// popularity counters wrote to the popularity of their datasets' docs, in
// the flush's own transaction: it is the counter's AfterFlush. Counters
// are written with plain SQL (not through Ent, so no hook sees them) and
// change often; this adds to one figure instead of rebuilding the docs.
// The datasets are locked as Reindex locks them, so a reindex that read
// the counters before the flush cannot overwrite the sum after it.
func (f *Feed) PopularityChanged(ctx context.Context, tx *sql.Tx, changes []popularity.Change) error {
	var ds Datasets
	for _, ch := range changes {
		switch ch.Kind {
		case popularity.Layer:
			ds.AddLayers(ch.ID)
		case popularity.Set:
			ds.AddSets(ch.ID)
		case popularity.Document:
			ds.AddDocuments(ch.ID)
		}
	}
	if err := f.lock(ctx, tx, ds); err != nil {
		return err
	}
	for _, ch := range changes {
		// popularity.Kind names datasets as dataset_permissions does.
		if err := f.ix.AddPopularity(ctx, tx, string(ch.Kind), ch.ID, popularity.Score(ch.Views, ch.Downloads)); err != nil {
			return err
		}
	}
	return nil
}
