package versiondiff

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/batchstream"
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
	// KeyByFID says the version has no key but its features may be
	// matched by FID, a shapefile's record numbers (internal/layerkey).
	KeyByFID bool
	// Frozen says the version's rows no longer change (it was
	// published): a diff may then keep its key order (see Compare).
	Frozen bool
}

// VersionOf is a layer or table version as one side of a diff; nil is
// the zero Version (nothing: every feature of the other side inserted).
func VersionOf(v *ent.LayerVersion) Version {
	if v == nil {
		return Version{}
	}
	return Version{ID: v.ID, Fields: v.Fields, PrimaryKey: v.PrimaryKeyFields, CRS: v.Crs, GeometryType: v.GeometryType,
		KeyByFID: v.KeyByFid, Frozen: v.State == layerversion.StatePublished || v.State == layerversion.StateSuperseded}
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
//
// Two frozen versions matched by a key are compared through their stored
// key orders (featurerows.KeyOrder), built by the first diff that needs
// them (the change feed's count after a publish): only the keys whose
// rows differ come back from the store. Other versions, and keys that do
// not identify their rows, have their keys extracted and sorted by the
// store for each diff (featurerows.ScanKeys).
func Compare(ctx context.Context, st *store.Store, a, b Version, opt Options, fn func(Change) error) (Diff, error) {
	d := Diff{Schema: compareSchema(a, b), MatchedBy: MatchKey(a, b)}
	ids := []int{a.ID}
	if b.ID != a.ID {
		ids = append(ids, b.ID)
	}
	if err := fillSums(ctx, st, ids...); err != nil {
		return d, err
	}
	byOrder, err := keyOrders(ctx, st, a, b, d.MatchedBy)
	if err != nil {
		return d, err
	}
	// Two connections stream at once: two heavy-read slots, so quick
	// reads keep theirs.
	release, err := st.HeavyReads(ctx, 2)
	if err != nil {
		return d, err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &merger{ctx: ctx, st: st, a: a, b: b, byKey: len(d.MatchedBy) > 0, after: opt.After, countOnly: opt.CountOnly, fn: fn}
	if byOrder {
		err = m.runChanged()
	} else {
		m.as, m.bs = stream(ctx, st, a.ID, d.MatchedBy), stream(ctx, st, b.ID, d.MatchedBy)
		err = m.run()
	}
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

// keyOrders reports whether a and b can be compared through their stored
// key orders by key, building them if need be: both must be frozen
// versions with rows, and key must identify the rows of each.
func keyOrders(ctx context.Context, st *store.Store, a, b Version, key []string) (bool, error) {
	if len(key) == 0 || a.ID == 0 || b.ID == 0 || !a.Frozen || !b.Frozen {
		return false, nil
	}
	for _, v := range []Version{a, b} {
		ok, err := featurerows.KeyOrder(ctx, st, v.ID, key)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
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
// the older's, else their FIDs (featurerows.FIDKey) when both (or the one
// there is) say they may be matched so; nil to match by content.
func MatchKey(a, b Version) []string {
	switch {
	case len(b.PrimaryKey) > 0:
		return slices.Clone(b.PrimaryKey)
	case len(a.PrimaryKey) > 0:
		return slices.Clone(a.PrimaryKey)
	case (a.KeyByFID || a.ID == 0) && (b.KeyByFID || b.ID == 0) && a.ID+b.ID != 0:
		return []string{featurerows.FIDKey}
	}
	return nil
}

// KeyNames is a key as the doors name its fields: the FID as "FID".
func KeyNames(key []string) []string {
	if Unstable(key) {
		return []string{"FID"}
	}
	return key
}

// Unstable reports whether key is the FID, which names a feature only
// until its shapefile is rewritten: a diff by it may pair features that
// are not the same, and says so.
func Unstable(key []string) bool { return len(key) == 1 && key[0] == featurerows.FIDKey }

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
// batches over; version 0 has no rows.
func stream(ctx context.Context, st *store.Store, versionID int, fields []string) *batchstream.Stream[featurerows.KeyRow] {
	if versionID == 0 {
		return batchstream.Empty[featurerows.KeyRow]()
	}
	return batchstream.Start(ctx, func(send func([]featurerows.KeyRow) error) error {
		if err := featurerows.ScanKeys(ctx, st, versionID, fields, send); err != nil {
			return fmt.Errorf("versiondiff: %w", err)
		}
		return nil
	})
}
