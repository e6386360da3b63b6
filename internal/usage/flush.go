package usage

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
)

// DefaultInterval is how often Start flushes.
const DefaultInterval = 5 * time.Second

// table is where figures are kept; conflictColumns its unique key.
const table = "usage_days"

var conflictColumns = []string{"dataset_kind", "dataset_id", "day", "service", "token_id"}

// Flush adds the counted figures to the database, one upsert per row, in
// one transaction, in a fixed order (so that concurrent flushes of
// several processes lock rows alike). On failure the figures are kept
// for the next flush. It returns how many rows it wrote.
func (c *Counter) Flush(ctx context.Context) (int, error) {
	if c == nil {
		return 0, nil
	}
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	batch := c.take()
	if len(batch) == 0 {
		return 0, nil
	}
	keys := make([]key, 0, len(batch))
	for k := range batch {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	err := c.st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		for _, k := range keys {
			if err := c.upsert(ctx, tx, k, batch[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.putBack(batch)
		return 0, err
	}
	return len(keys), nil
}

func (k key) less(o key) bool {
	switch {
	case k.kind != o.kind:
		return k.kind < o.kind
	case k.dataset != o.dataset:
		return k.dataset < o.dataset
	case k.day != o.day:
		return k.day < o.day
	case k.service != o.service:
		return k.service < o.service
	}
	return k.token < o.token
}

// upsert adds a to row k, creating it when absent.
func (c *Counter) upsert(ctx context.Context, tx *sql.Tx, k key, a Amounts) error {
	q, args := entsql.Dialect(c.st.Dialect).Insert(table).
		Columns("day", "dataset_kind", "dataset_id", "service", "token_id",
			"requests", "bytes", "features", "tiles", "exports", "downloads").
		Values(k.day.String(), k.kind.String(), k.dataset, k.service.String(), k.token,
			a.Requests, a.Bytes, a.Features, a.Tiles, a.Exports, a.Downloads).
		OnConflict(entsql.ConflictColumns(conflictColumns...), entsql.ResolveWith(func(u *entsql.UpdateSet) {
			u.Add("requests", a.Requests).Add("bytes", a.Bytes).Add("features", a.Features).
				Add("tiles", a.Tiles).Add("exports", a.Exports).Add("downloads", a.Downloads)
		})).Query()
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("adding usage figures of %s %d (%s): %w", k.kind, k.dataset, k.service, err)
	}
	return nil
}

// Start flushes every interval (DefaultInterval when zero) until Stop is
// called or ctx ends. A negative interval starts nothing: figures are
// then written only by Flush and Stop (tests use that).
func (c *Counter) Start(ctx context.Context, interval time.Duration) {
	if c == nil || interval < 0 {
		return
	}
	if interval == 0 {
		interval = DefaultInterval
	}
	c.loop.Start(ctx, interval, func(ctx context.Context) error { _, err := c.Flush(ctx); return err }, c.logger, "flushing usage figures")
}

// Stop ends the periodic flushes and writes what is counted: the figures
// of a process that shuts down are not lost.
func (c *Counter) Stop(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.loop.Stop()
	_, err := c.Flush(ctx)
	return err
}
