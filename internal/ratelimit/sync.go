package ratelimit

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
)

// batchRows bounds the rows of one upsert statement (PostgreSQL takes at
// most 65535 parameters; four a row).
const batchRows = 500

// pruneEvery is how often ended windows are deleted from the table.
const pruneEvery = time.Minute

// outbound is one bucket's count on its way to the table.
type outbound struct {
	key    Key
	bucket string
	window int64
	end    int64
	sent   int64
}

// Start shares the counts every SyncEvery until Stop or ctx ends. Without
// a store, or with a negative interval, it starts nothing.
func (l *Limiter) Start(ctx context.Context) {
	if l == nil || l.st == nil || l.every < 0 || l.stop != nil {
		return
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := l.Sync(ctx); err != nil && ctx.Err() == nil {
					l.logger.WarnContext(ctx, "sharing rate limit counts", "err", err)
				}
			}
		}
	}()
}

// Stop ends the periodic syncs and shares what is pending, so that the
// requests a stopping process admitted still count for its peers.
func (l *Limiter) Stop(ctx context.Context) error {
	if l == nil {
		return nil
	}
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	if l.st == nil {
		return nil
	}
	return l.Sync(ctx)
}

// Sync adds this process's unshared counts to the table and reads back
// every touched bucket's total; buckets of ended windows are forgotten,
// and once a minute deleted from the table. On failure the counts stay
// pending for the next sync, and decisions go on with what is known.
func (l *Limiter) Sync(ctx context.Context) error {
	if l == nil || l.st == nil {
		return nil
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	now := l.now()
	adds, reads := l.collect(now.Unix())
	for len(adds) > 0 {
		n := min(len(adds), batchRows)
		totals, err := l.upsert(ctx, adds[:n])
		if err != nil {
			return err
		}
		l.apply(adds[:n], totals)
		adds = adds[n:]
	}
	for len(reads) > 0 {
		n := min(len(reads), batchRows)
		totals, err := l.read(ctx, reads[:n])
		if err != nil {
			return err
		}
		l.apply(reads[:n], totals)
		reads = reads[n:]
	}
	if now.Sub(l.lastPrune) >= pruneEvery {
		if err := l.prune(ctx, now.Unix()); err != nil {
			return err
		}
		l.lastPrune = now
	}
	return nil
}

// collect takes the buckets to share: adds, those with requests admitted
// since the last sync, and reads, those used in the last few syncs whose
// total is read back. Buckets whose window ended are dropped.
func (l *Limiter) collect(now int64) (adds, reads []outbound) {
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		for k, e := range sh.m {
			end := e.window + l.policies[k.class].window
			if end <= now {
				delete(sh.m, k)
				continue
			}
			o := outbound{key: k, window: e.window, end: end, sent: e.pending}
			switch {
			case e.pending > 0:
				adds = append(adds, o)
			case e.refresh > 0:
				reads = append(reads, o)
			}
			if e.refresh > 0 {
				e.refresh--
			}
		}
		sh.mu.Unlock()
	}
	for i := range adds {
		adds[i].bucket = adds[i].key.bucket()
	}
	for i := range reads {
		reads[i].bucket = reads[i].key.bucket()
	}
	return adds, reads
}

// apply records the totals read back: shared is the total, and what was
// sent is no longer pending.
func (l *Limiter) apply(out []outbound, totals map[string]int64) {
	for _, o := range out {
		total, ok := totals[o.bucket]
		if !ok {
			continue
		}
		sh := &l.shards[l.shardOf(o.key)]
		sh.mu.Lock()
		if e := sh.m[o.key]; e != nil && e.window == o.window {
			e.shared = total
			e.pending -= o.sent
		}
		sh.mu.Unlock()
	}
}

// upsert adds the counts of out to their rows in one statement and
// returns the rows' totals by bucket.
func (l *Limiter) upsert(ctx context.Context, out []outbound) (map[string]int64, error) {
	var q strings.Builder
	q.WriteString("INSERT INTO rate_limit_counters (bucket, window_start, window_end, hits) VALUES ")
	args := make([]any, 0, 4*len(out))
	for i, o := range out {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?)")
		args = append(args, o.bucket, o.window, o.end, o.sent)
	}
	q.WriteString(" ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits" +
		" RETURNING bucket, window_start, hits")
	query := store.Rebind(q.String(), l.st.Dialect == "postgres")
	totals := make(map[string]int64, len(out))
	err := l.st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var bucket string
			var window, hits int64
			if err := rows.Scan(&bucket, &window, &hits); err != nil {
				return err
			}
			totals[bucket] = hits
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("adding rate limit counts: %w", err)
	}
	return totals, nil
}

// read returns the totals of the buckets of out, without writing.
func (l *Limiter) read(ctx context.Context, out []outbound) (map[string]int64, error) {
	var q strings.Builder
	q.WriteString("SELECT bucket, window_start, hits FROM rate_limit_counters WHERE bucket IN (")
	args := make([]any, 0, len(out))
	want := make(map[string]int64, len(out))
	for i, o := range out {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("?")
		args = append(args, o.bucket)
		want[o.bucket] = o.window
	}
	q.WriteString(")")
	rows, err := l.st.DB.QueryContext(ctx, store.Rebind(q.String(), l.st.Dialect == "postgres"), args...)
	if err != nil {
		return nil, fmt.Errorf("reading rate limit counts: %w", err)
	}
	defer rows.Close()
	totals := make(map[string]int64, len(out))
	for rows.Next() {
		var bucket string
		var window, hits int64
		if err := rows.Scan(&bucket, &window, &hits); err != nil {
			return nil, fmt.Errorf("reading rate limit counts: %w", err)
		}
		if want[bucket] == window {
			totals[bucket] = hits
		}
	}
	return totals, rows.Err()
}

// prune deletes the rows of ended windows.
func (l *Limiter) prune(ctx context.Context, now int64) error {
	q := store.Rebind("DELETE FROM rate_limit_counters WHERE window_end <= ?", l.st.Dialect == "postgres")
	return l.st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, q, now); err != nil {
			return fmt.Errorf("deleting ended rate limit windows: %w", err)
		}
		return nil
	})
}

// bucket is the key's name in the table: class:kind:id.
func (k Key) bucket() string {
	b := make([]byte, 0, 48)
	b = append(b, k.class.String()...)
	switch k.kind {
	case byToken:
		b = append(b, ":t:"...)
		b = strconv.AppendInt(b, k.id, 10)
	case byUser:
		b = append(b, ":u:"...)
		b = strconv.AppendInt(b, k.id, 10)
	default:
		b = append(b, ":a:"...)
		b = k.addr.AppendTo(b)
	}
	return string(b)
}
