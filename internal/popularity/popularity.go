// Package popularity counts views and downloads of datasets without a
// database write per request: counts accumulate in memory and are flushed
// as batched increments, every few seconds and at shutdown, in one
// transaction, so a burst of 10,000 views of one dataset costs one UPDATE.
//
// What counts: a view is a successful read of a dataset's detail (REST
// GET /layers/{id}/, /tables/{id}/, /sets/{id}/, /documents/{id}/, the
// dataset's HTML page, and the GraphQL single-dataset queries layer, set
// and document at the root of an operation); a download is a successful
// download of a document's file (exports will call Download too). Lists,
// version reads and internal lookups do not count.
//
// A dataset's popularity, the figure the catalogue sorts by, is Score:
// views plus downloads.
package popularity

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/flushloop"
	"github.com/geopub/geopub/internal/store"
)

// Kind is a kind of dataset that has counters. Layers and tables share
// Layer.
type Kind string

// The kinds with counters.
const (
	Layer    Kind = "layer"
	Set      Kind = "set"
	Document Kind = "document"
)

// tables are the tables holding each kind's counters.
var tables = map[Kind]string{Layer: "layers", Set: "sets", Document: "documents"}

// DefaultInterval is how often Start flushes.
const DefaultInterval = 5 * time.Second

// Score is a dataset's popularity: its views plus its downloads.
func Score(views, downloads int64) int64 { return views + downloads }

// Change is the increments one flush applies to one dataset.
type Change struct {
	Kind      Kind
	ID        int
	Views     int64
	Downloads int64
}

type key struct {
	kind Kind
	id   int
}

type delta struct{ views, downloads int64 }

// Counter accumulates views and downloads and flushes them in batches.
// Its methods are safe for concurrent use; a nil *Counter counts nothing.
type Counter struct {
	st     *store.Store
	logger *slog.Logger

	// AfterFlush, when set, runs inside each flush's transaction with the
	// datasets whose counters changed (the catalogue index refreshes
	// their popularity there). An error rolls the flush back; its counts
	// are kept for the next one.
	AfterFlush func(ctx context.Context, tx *sql.Tx, changes []Change) error

	mu      sync.Mutex
	pending map[key]delta

	// flushMu keeps flushes one at a time.
	flushMu sync.Mutex

	loop flushloop.Loop
}

// New returns a counter writing to st.
func New(st *store.Store, logger *slog.Logger) *Counter {
	if logger == nil {
		logger = slog.Default()
	}
	return &Counter{st: st, logger: logger, pending: map[key]delta{}}
}

// View counts one view of a dataset.
func (c *Counter) View(kind Kind, id int) { c.add(kind, id, delta{views: 1}) }

// Download counts one download of a dataset's data.
func (c *Counter) Download(kind Kind, id int) { c.add(kind, id, delta{downloads: 1}) }

func (c *Counter) add(kind Kind, id int, d delta) {
	if c == nil || tables[kind] == "" || id <= 0 {
		return
	}
	c.mu.Lock()
	p := c.pending[key{kind, id}]
	p.views += d.views
	p.downloads += d.downloads
	c.pending[key{kind, id}] = p
	c.mu.Unlock()
}

// Pending returns the counts not flushed yet.
func (c *Counter) Pending() []Change {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return changesOf(c.pending)
}

// changesOf lists counts in a fixed order (kind, then id), so concurrent
// flushes of several processes lock rows in the same order.
func changesOf(m map[key]delta) []Change {
	out := make([]Change, 0, len(m))
	for k, d := range m {
		out = append(out, Change{Kind: k.kind, ID: k.id, Views: d.views, Downloads: d.downloads})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Flush writes the pending counts as increments, one UPDATE per dataset,
// in one transaction. On failure the counts are kept for the next flush.
// It returns how many datasets it updated.
func (c *Counter) Flush(ctx context.Context) (int, error) {
	if c == nil {
		return 0, nil
	}
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	batch := c.pending
	c.pending = map[key]delta{}
	c.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	changes := changesOf(batch)
	err := c.st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		for _, ch := range changes {
			up := entsql.Dialect(c.st.Dialect).Update(tables[ch.Kind]).Where(entsql.EQ("id", ch.ID))
			if ch.Views != 0 {
				up.Add("num_views", ch.Views)
			}
			if ch.Downloads != 0 {
				up.Add("num_downloads", ch.Downloads)
			}
			q, args := up.Query()
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("adding to the counters of %s %d: %w", ch.Kind, ch.ID, err)
			}
		}
		if c.AfterFlush != nil {
			return c.AfterFlush(ctx, tx, changes)
		}
		return nil
	})
	if err != nil {
		// Put the batch back so that nothing is lost.
		c.mu.Lock()
		for k, d := range batch {
			p := c.pending[k]
			p.views += d.views
			p.downloads += d.downloads
			c.pending[k] = p
		}
		c.mu.Unlock()
		return 0, err
	}
	return len(changes), nil
}

// Start flushes every interval (DefaultInterval when zero) until Stop is
// called or ctx ends. A negative interval starts nothing: counts are then
// written only by Flush and Stop (tests that compare tables use that).
func (c *Counter) Start(ctx context.Context, interval time.Duration) {
	if c == nil || interval < 0 {
		return
	}
	if interval == 0 {
		interval = DefaultInterval
	}
	c.loop.Start(ctx, interval, func(ctx context.Context) error { _, err := c.Flush(ctx); return err }, c.logger, "flushing popularity counters")
}

// Stop ends the periodic flushes and flushes what is pending: the counts
// of a process that shuts down are not lost.
func (c *Counter) Stop(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.loop.Stop()
	_, err := c.Flush(ctx)
	return err
}

// Totals returns the popularity (Score) of datasets of one kind by id;
// datasets that do not exist are absent. The catalogue index reads it.
func Totals(ctx context.Context, db *sql.DB, dialect string, kind Kind, ids []int) (map[int]int64, error) {
	out := map[int]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	table := tables[kind]
	if table == "" {
		return nil, fmt.Errorf("popularity: unknown kind %q", kind)
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q, qargs := entsql.Dialect(dialect).Select("id", "num_views", "num_downloads").From(entsql.Table(table)).
		Where(entsql.In("id", args...)).Query()
	rows, err := db.QueryContext(ctx, q, qargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var v, d int64
		if err := rows.Scan(&id, &v, &d); err != nil {
			return nil, err
		}
		out[id] = Score(v, d)
	}
	return out, rows.Err()
}
