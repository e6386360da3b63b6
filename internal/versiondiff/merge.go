package versiondiff

import (
	"cmp"
	"context"

	"github.com/geopub/geopub/internal/batchstream"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// Cursor is a change's place in a diff's order: its group (the key
// values, or the content sum when matched by content; Null for the
// features without a complete key, which come first) and its index within
// the group.
type Cursor struct {
	Key  []string `json:"k,omitempty"`
	Sum  int64    `json:"s,omitempty"`
	Null bool     `json:"z,omitempty"`
	N    int      `json:"n"`
}

// group is a run of rows with equal keys (or sums).
type group struct {
	key  []string
	sum  int64
	null bool
}

func groupOf(r featurerows.KeyRow, byKey bool) group {
	if !byKey {
		return group{sum: r.Sum}
	}
	return group{key: r.Key, null: r.Key == nil}
}

// compareGroups orders groups as the streams are ordered.
func compareGroups(a, b group, byKey bool) int {
	if !byKey {
		return cmp.Compare(a.sum, b.sum)
	}
	switch {
	case a.null && b.null:
		return 0
	case a.null:
		return -1
	case b.null:
		return 1
	}
	return featurerows.CompareKeys(a.key, b.key)
}

// pending is a change found by the merge whose rows are yet to be read.
type pending struct {
	op     Op
	aID    int64
	bID    int64
	key    []string
	cursor Cursor
}

// merger walks the two key streams together.
type merger struct {
	ctx       context.Context
	st        *store.Store
	a, b      Version
	byKey     bool
	after     *Cursor
	countOnly bool
	fn        func(Change) error
	as, bs    *batchstream.Stream[featurerows.KeyRow]
	pending   []pending
	counts    Counts
}

func (m *merger) run() error {
	for {
		ar, aok := m.as.Peek()
		br, bok := m.bs.Peek()
		if err := m.as.Err(); err != nil {
			return err
		}
		if err := m.bs.Err(); err != nil {
			return err
		}
		if !aok && !bok {
			return m.flush()
		}
		var g group
		switch {
		case !bok:
			g = groupOf(ar, m.byKey)
		case !aok:
			g = groupOf(br, m.byKey)
		default:
			g = groupOf(ar, m.byKey)
			if bg := groupOf(br, m.byKey); compareGroups(bg, g, m.byKey) < 0 {
				g = bg
			}
		}
		if err := m.group(g); err != nil {
			return err
		}
	}
}

// runChanged merges the keys whose rows differ between the stored key
// orders of the two versions (featurerows.ChangedKeys). A key is a group
// of one row on either side, so every change is its group's first.
func (m *merger) runChanged() error {
	var after []string
	if m.after != nil && !m.after.Null {
		after = m.after.Key
	}
	err := featurerows.ChangedKeys(m.ctx, m.st, m.a.ID, m.b.ID, after, func(batch []featurerows.KeyChange) error {
		for _, c := range batch {
			p := pending{op: Update, aID: c.AID, bID: c.BID, key: c.Key}
			switch {
			case c.AID == 0:
				p.op = Insert
			case c.BID == 0:
				p.op = Delete
			}
			if err := m.add(p, group{key: c.Key}, 0); err != nil {
				return err
			}
		}
		return m.ctx.Err()
	})
	if err != nil {
		return err
	}
	return m.flush()
}

// in reports whether the stream's next row belongs to group g.
func (m *merger) in(s *batchstream.Stream[featurerows.KeyRow], g group) (featurerows.KeyRow, bool) {
	r, ok := s.Peek()
	if !ok || compareGroups(groupOf(r, m.byKey), g, m.byKey) != 0 {
		return r, false
	}
	return r, true
}

// group merges the rows of group g of both streams: pairs in row order
// (none for rows without a key), then the older version's rest as
// deletes and the newer's as inserts.
func (m *merger) group(g group) error {
	n := 0
	for !g.null {
		ar, aok := m.in(m.as, g)
		br, bok := m.in(m.bs, g)
		if !aok || !bok {
			break
		}
		m.as.Next()
		m.bs.Next()
		if ar.Sum != br.Sum {
			// The same content has the same sum (matched by content,
			// pairs always do): only these may be updates.
			if err := m.add(pending{op: Update, aID: ar.ID, bID: br.ID, key: ar.Key}, g, n); err != nil {
				return err
			}
		}
		n++
	}
	for {
		ar, ok := m.in(m.as, g)
		if !ok {
			break
		}
		m.as.Next()
		if err := m.add(pending{op: Delete, aID: ar.ID, key: ar.Key}, g, n); err != nil {
			return err
		}
		n++
	}
	for {
		br, ok := m.in(m.bs, g)
		if !ok {
			break
		}
		m.bs.Next()
		if err := m.add(pending{op: Insert, bID: br.ID, key: br.Key}, g, n); err != nil {
			return err
		}
		n++
	}
	return m.ctx.Err()
}

// add queues a change at index n of group g, unless the cursor has passed
// it; counting inserts and deletes at once when only counting.
func (m *merger) add(p pending, g group, n int) error {
	p.cursor = Cursor{Key: g.key, Sum: g.sum, Null: g.null, N: n}
	if m.after != nil && !m.passed(p.cursor) {
		return nil
	}
	if m.countOnly && p.op != Update {
		if p.op == Insert {
			m.counts.Inserts++
		} else {
			m.counts.Deletes++
		}
		return nil
	}
	m.pending = append(m.pending, p)
	if len(m.pending) >= fetchBatch {
		return m.flush()
	}
	return nil
}

// passed reports whether c comes after the resume cursor.
func (m *merger) passed(c Cursor) bool {
	a := m.after
	ga := group{key: a.Key, sum: a.Sum, null: a.Null}
	gc := group{key: c.Key, sum: c.Sum, null: c.Null}
	if d := compareGroups(gc, ga, m.byKey); d != 0 {
		return d > 0
	}
	return c.N > a.N
}

// flush reads the pending changes' rows, settles the updates and hands
// the changes to fn in order.
func (m *merger) flush() error {
	if len(m.pending) == 0 {
		return nil
	}
	var aIDs, bIDs []int64
	for _, p := range m.pending {
		if p.op != Insert {
			aIDs = append(aIDs, p.aID)
		}
		if p.op != Delete {
			bIDs = append(bIDs, p.bID)
		}
	}
	ar, err := m.rows(m.a.ID, aIDs)
	if err != nil {
		return err
	}
	br, err := m.rows(m.b.ID, bIDs)
	if err != nil {
		return err
	}
	for _, p := range m.pending {
		c := Change{Op: p.op, Key: p.key, Cursor: p.cursor}
		if p.op != Insert {
			r := ar[p.aID]
			c.Old = &r
		}
		if p.op != Delete {
			r := br[p.bID]
			c.New = &r
		}
		switch p.op {
		case Update:
			if !compareRows(&c) {
				continue
			}
			m.counts.Updates++
		case Insert:
			m.counts.Inserts++
		case Delete:
			m.counts.Deletes++
		}
		if m.countOnly {
			continue
		}
		if err := m.fn(c); err != nil {
			m.pending = m.pending[:0]
			return err
		}
	}
	m.pending = m.pending[:0]
	return nil
}

func (m *merger) rows(versionID int, ids []int64) (map[int64]featurerows.Row, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return featurerows.RowsByID(m.ctx, m.st, versionID, ids)
}
