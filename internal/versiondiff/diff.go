package versiondiff

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// Version is one side of a diff: a stored layer or table version and its
// schema. The zero Version is "nothing": a diff from it inserts every
// feature of the other.
type Version struct {
	ID           int
	Fields       []schematype.Field
	PrimaryKey   []string
	CRS          string
	GeometryType string
}

// VersionOf is a layer or table version as one side of a diff; nil is
// the zero Version (nothing: every feature of the other side inserted).
func VersionOf(v *ent.LayerVersion) Version {
	if v == nil {
		return Version{}
	}
	return Version{ID: v.ID, Fields: v.Fields, PrimaryKey: v.PrimaryKeyFields, CRS: v.Crs, GeometryType: v.GeometryType}
}

// Op is what happened to a feature.
type Op string

// The feature changes.
const (
	Insert Op = "insert"
	Update Op = "update"
	Delete Op = "delete"
)

// Change is one changed feature. Old is nil for an insert, New for a
// delete. An update lists the attributes whose values differ (sorted) and
// says whether the geometry did.
type Change struct {
	Op       Op
	Old, New *featurerows.Row
	// Key is the feature's key values as text (nil when matched by
	// content or when the feature has no complete key).
	Key             []string
	Changed         []string
	GeometryChanged bool
	// Cursor resumes a diff after this change.
	Cursor Cursor
}

// Counts counts feature changes.
type Counts struct {
	Inserts int64 `json:"inserts"`
	Updates int64 `json:"updates"`
	Deletes int64 `json:"deletes"`
}

// Total is the number of changed features.
func (c Counts) Total() int64 { return c.Inserts + c.Updates + c.Deletes }

// Diff is what Compare found.
type Diff struct {
	// MatchedBy names the key fields features were matched by; empty when
	// they were matched by content.
	MatchedBy []string
	Schema    SchemaChange
	// Counts counts the changes found after the cursor, up to where the
	// caller stopped (all of them when Complete).
	Counts   Counts
	Complete bool
}

// Options tune Compare.
type Options struct {
	// After resumes after the change with this cursor.
	After *Cursor
	// CountOnly counts changes without reading inserted and deleted rows;
	// fn is not called.
	CountOnly bool
}

// ErrStop, returned by Compare's callback, ends the diff early without an
// error (a full page).
var ErrStop = errors.New("versiondiff: stop")

// fetchBatch is how many changed rows are read in full at a time.
const fetchBatch = 256

// Compare streams the feature changes from version a to version b to fn,
// in key order, and returns what it found. Both versions must be layer or
// table versions of the same dataset (or a the zero Version); their rows
// are read, not their metadata, which the caller gives.
func Compare(ctx context.Context, st *store.Store, a, b Version, opt Options, fn func(Change) error) (Diff, error) {
	d := Diff{Schema: compareSchema(a, b), MatchedBy: MatchKey(a, b)}
	ids := []int{a.ID}
	if b.ID != a.ID {
		ids = append(ids, b.ID)
	}
	if err := fillSums(ctx, st, ids...); err != nil {
		return d, err
	}
	// Two connections stream at once: two heavy-read slots, so quick
	// reads keep theirs.
	for range 2 {
		release, err := st.HeavyRead(ctx)
		if err != nil {
			return d, err
		}
		defer release()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &merger{
		ctx: ctx, st: st, a: a, b: b, byKey: len(d.MatchedBy) > 0, after: opt.After, countOnly: opt.CountOnly, fn: fn,
		as: stream(ctx, st, a.ID, d.MatchedBy), bs: stream(ctx, st, b.ID, d.MatchedBy),
	}
	err := m.run()
	d.Counts = m.counts
	switch {
	case errors.Is(err, ErrStop):
		return d, nil
	case err != nil:
		return d, err
	}
	d.Complete = true
	return d, nil
}

// Count counts the changes from version a to b, and says how features
// were matched and how the schema changed, without reading the changed
// rows' values beyond what updates need: the counts of the change feed,
// of GraphQL's layerDiff and of a set's changed members.
func Count(ctx context.Context, st *store.Store, a, b Version) (Diff, error) {
	return Compare(ctx, st, a, b, Options{CountOnly: true}, nil)
}

// fillSums gives the rows of both versions stored without a content sum
// one (version 0 has no rows). The two run at once: even when there is
// nothing to fill, the check reads every row of its version (bench/diff:
// about half a second for a million rows on PostgreSQL, each).
func fillSums(ctx context.Context, st *store.Store, ids ...int) error {
	errs := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			if id == 0 {
				errs <- nil
				return
			}
			_, err := featurerows.FillSums(ctx, st, id)
			errs <- err
		}()
	}
	var first error
	for range ids {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// MatchKey is the key features are matched by: the newer version's, else
// the older's.
func MatchKey(a, b Version) []string {
	if len(b.PrimaryKey) > 0 {
		return slices.Clone(b.PrimaryKey)
	}
	return slices.Clone(a.PrimaryKey)
}

// compareRows fills an update's changed attributes and geometry, and
// reports whether anything changed.
func compareRows(c *Change) bool {
	c.GeometryChanged = !slices.Equal(c.Old.Geom, c.New.Geom)
	c.Changed = c.Changed[:0]
	for k, v := range c.Old.Attrs {
		if !reflect.DeepEqual(v, c.New.Attrs[k]) {
			c.Changed = append(c.Changed, k)
		}
	}
	for k, v := range c.New.Attrs {
		if _, ok := c.Old.Attrs[k]; !ok && v != nil {
			c.Changed = append(c.Changed, k)
		}
	}
	slices.Sort(c.Changed)
	return c.GeometryChanged || len(c.Changed) > 0
}

// stream runs ScanKeys of a version on its own goroutine, handing its
// batches over a channel; version 0 has no rows.
func stream(ctx context.Context, st *store.Store, versionID int, fields []string) *keyStream {
	s := &keyStream{ch: make(chan []featurerows.KeyRow, 4), done: make(chan error, 1)}
	if versionID == 0 {
		close(s.ch)
		s.done <- nil
		return s
	}
	go func() {
		err := featurerows.ScanKeys(ctx, st, versionID, fields, func(b []featurerows.KeyRow) error {
			select {
			case s.ch <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(s.ch)
		s.done <- err
	}()
	return s
}

// keyStream is one version's rows in key order, read one at a time.
type keyStream struct {
	ch   chan []featurerows.KeyRow
	done chan error
	buf  []featurerows.KeyRow
	end  bool
	err  error
}

// peek returns the next row without taking it; ok is false at the end
// (or on an error, which err then holds).
func (s *keyStream) peek() (featurerows.KeyRow, bool) {
	for len(s.buf) == 0 {
		if s.end {
			return featurerows.KeyRow{}, false
		}
		b, ok := <-s.ch
		if !ok {
			s.end = true
			if err := <-s.done; err != nil {
				s.err = fmt.Errorf("versiondiff: %w", err)
			}
			continue
		}
		s.buf = b
	}
	return s.buf[0], true
}

func (s *keyStream) next() { s.buf = s.buf[1:] }
