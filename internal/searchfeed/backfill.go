package searchfeed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
)

// BuildVersion names what the doc builders put in a doc. Raise it when
// they change (a new field, a different kind or title): every process that
// starts with a newer version rebuilds the index.
const BuildVersion = 6

// rebuildBatch is how many datasets one rebuild transaction indexes (each
// gives at most two docs: about 1,000 docs per transaction).
const rebuildBatch = 500

// metaVersion is the search_meta row holding the build version the index
// was last rebuilt with.
const metaVersion = "feed_build_version"

// bind turns `?` placeholders into PostgreSQL's `$n` (store.Rebind).
func (f *Feed) bind(q string) string { return store.Rebind(q, f.pg) }

// Stale reports why the index must be rebuilt ("" when it is current):
// its recorded build version is not BuildVersion, or it holds no doc while
// the store holds datasets.
func (f *Feed) Stale(ctx context.Context) (string, error) {
	var v int64
	err := f.store.DB.QueryRowContext(ctx, f.bind("SELECT value FROM search_meta WHERE key = ?"), metaVersion).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "the index has never been built", nil
	case err != nil:
		return "", fmt.Errorf("searchfeed: reading the build version: %w", err)
	case v != BuildVersion:
		return fmt.Sprintf("the index was built by version %d of the doc builders, this is %d", v, BuildVersion), nil
	}
	var any int
	err = f.store.DB.QueryRowContext(ctx, "SELECT 1 FROM search_docs LIMIT 1").Scan(&any)
	if err == nil {
		return "", nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("searchfeed: reading the index: %w", err)
	}
	c := f.store.Client
	for _, exists := range []func(context.Context) (bool, error){
		c.Layer.Query().Exist, c.Set.Query().Exist, c.Document.Query().Exist, c.CatalogItem.Query().Exist, c.Source.Query().Exist,
	} {
		ok, err := exists(ctx)
		if err != nil {
			return "", fmt.Errorf("searchfeed: %w", err)
		}
		if ok {
			return "the index is empty", nil
		}
	}
	return "", nil
}

// EnsureCurrent rebuilds the index when Stale says so; reason is why (""
// when nothing was done). serve and worker call it at start, in the
// background: until it ends, searches see the index as it was, and writes
// keep it current as usual.
func (f *Feed) EnsureCurrent(ctx context.Context) (reason string, docs int, err error) {
	reason, err = f.Stale(ctx)
	if err != nil || reason == "" {
		return reason, 0, err
	}
	docs, err = f.Rebuild(ctx)
	return reason, docs, err
}

// Rebuild reindexes every dataset from the store, in transactions of
// about 1,000 docs, removes docs of datasets that no longer exist, and
// records BuildVersion. It returns the number of docs written. Writes that
// run meanwhile reindex their datasets as usual; a rebuild cut short
// leaves every batch it committed and does not record the version, so the
// next start rebuilds again. Two processes rebuilding at once write the
// same docs.
func (f *Feed) Rebuild(ctx context.Context) (int, error) {
	total := 0
	c := f.store.Client
	type table struct {
		name string
		ids  func(ctx context.Context, after int) ([]int, error)
		add  func(*Datasets, ...int)
	}
	tables := []table{
		{"layers", func(ctx context.Context, after int) ([]int, error) {
			return c.Layer.Query().Where(layer.IDGT(after)).Order(ent.Asc(layer.FieldID)).Limit(rebuildBatch).IDs(ctx)
		}, (*Datasets).AddLayers},
		{"sets", func(ctx context.Context, after int) ([]int, error) {
			return c.Set.Query().Where(set.IDGT(after)).Order(ent.Asc(set.FieldID)).Limit(rebuildBatch).IDs(ctx)
		}, (*Datasets).AddSets},
		{"documents", func(ctx context.Context, after int) ([]int, error) {
			return c.Document.Query().Where(document.IDGT(after)).Order(ent.Asc(document.FieldID)).Limit(rebuildBatch).IDs(ctx)
		}, (*Datasets).AddDocuments},
		{"catalog items", func(ctx context.Context, after int) ([]int, error) {
			return c.CatalogItem.Query().Where(catalogitem.IDGT(after)).Order(ent.Asc(catalogitem.FieldID)).Limit(rebuildBatch).IDs(ctx)
		}, (*Datasets).AddItems},
		{"sources", func(ctx context.Context, after int) ([]int, error) {
			return c.Source.Query().Where(source.IDGT(after)).Order(ent.Asc(source.FieldID)).Limit(rebuildBatch).IDs(ctx)
		}, (*Datasets).AddSources},
	}
	for _, t := range tables {
		after := 0
		for {
			ids, err := t.ids(ctx, after)
			if err != nil {
				return total, fmt.Errorf("searchfeed: listing %s: %w", t.name, err)
			}
			if len(ids) == 0 {
				break
			}
			after = ids[len(ids)-1]
			var ds Datasets
			t.add(&ds, ids...)
			err = f.store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
				n, err := f.reindex(ctx, c, tx, ds)
				total += n
				return err
			})
			if err != nil {
				return total, err
			}
		}
	}
	if err := f.sweep(ctx); err != nil {
		return total, err
	}
	err := f.store.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, f.bind("INSERT INTO search_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
			metaVersion, BuildVersion)
		return err
	})
	if err != nil {
		return total, fmt.Errorf("searchfeed: recording the build version: %w", err)
	}
	if f.pg {
		// A rebuild rewrites the index and fills the change log in
		// minutes, faster than autovacuum refreshes their statistics;
		// until it does, the planner takes the change-log check every
		// search runs for a scan of the whole log (ms per search at
		// 100,000 docs, seconds at a million).
		if _, err := f.store.DB.ExecContext(ctx, "ANALYZE search_docs, search_changes"); err != nil {
			return total, fmt.Errorf("searchfeed: analysing the rebuilt index: %w", err)
		}
	}
	return total, nil
}

// sweep removes the docs of datasets the store no longer holds (deleted
// while no feed was installed), a batch per transaction.
func (f *Feed) sweep(ctx context.Context) error {
	for _, t := range []struct {
		types []search.Type
		table string
	}{
		{[]search.Type{search.TypeLayer, search.TypeTable}, layer.Table},
		{[]search.Type{search.TypeSet}, set.Table},
		{[]search.Type{search.TypeDocument}, document.Table},
		{[]search.Type{search.TypeItem}, catalogitem.Table},
		{[]search.Type{search.TypeSource}, source.Table},
	} {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.types)), ", ")
		args := make([]any, len(t.types))
		for i, ty := range t.types {
			args[i] = string(ty)
		}
		q := f.bind("SELECT d.doc_type, d.doc_id, d.state FROM search_docs d WHERE d.doc_type IN (" + marks + ") AND NOT EXISTS " +
			"(SELECT 1 FROM " + t.table + " x WHERE x.id = d.doc_id) ORDER BY d.id LIMIT " + strconv.Itoa(2*rebuildBatch))
		for {
			var refs []search.Ref
			err := f.store.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
				rows, err := tx.QueryContext(ctx, q, args...)
				if err != nil {
					return err
				}
				for rows.Next() {
					var r search.Ref
					if err := rows.Scan(&r.Type, &r.ID, &r.State); err != nil {
						rows.Close()
						return err
					}
					refs = append(refs, r)
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
				return f.ix.Delete(ctx, tx, refs...)
			})
			if err != nil {
				return fmt.Errorf("searchfeed: removing docs of deleted datasets: %w", err)
			}
			if len(refs) == 0 {
				break
			}
		}
	}
	return nil
}
