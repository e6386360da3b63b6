package featurerows

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
)

// A stored key order (tables feature_key_orders and feature_keys) is
// ScanKeys' answer kept for a version that no longer changes (published
// or superseded): its (key, row id, sum) triples in key order, packed in
// chunks (keychunk.go). Two versions' orders are read side by side and
// merged (ChangedKeys) without extracting and sorting the key from every
// row's attributes again, the way PostGIS walks two primary key indexes.
// The chunks are read in their own order, so no query planner is asked
// to find it: a table of every version's keys has the statistics of
// none in particular.
//
// A key is stored as bytes: the text of each key field's value (as
// ScanKeys reads it) followed by a zero byte. Compared byte by byte, two
// such keys order as CompareKeys orders their texts, since no stored text
// holds a zero byte (the Writer drops them, as PostgreSQL's jsonb refuses
// them). A version whose fields leave a row without a value or give two
// rows the same values has no usable order.

// Key order states (feature_key_orders.state).
const (
	orderReady    = "ready"
	orderUnusable = "unusable"
)

// keyChunk is the number of rows packed in a chunk of a stored order.
const keyChunk = 4096

// KeyOrder makes sure a version's key order by fields is stored,
// building it the first time, and reports whether it can be used: false
// when the fields are not a key of the version's rows, or when the
// version's order was built by other fields. The version's rows must not
// change any more and must all have a sum (FillSums). Two callers
// building the same version's order at once build it once: the second
// waits for the first's claim of the version (on SQLite, for the write
// lock) and then reads what it recorded.
func KeyOrder(ctx context.Context, st *store.Store, versionID int, fields []string) (bool, error) {
	if len(fields) == 0 {
		return false, errors.New("features: a key order needs at least one field")
	}
	want, err := json.Marshal(fields)
	if err != nil {
		return false, err
	}
	ok, found, err := storedOrder(ctx, st, st.DB, versionID, string(want))
	if err != nil || found {
		return ok, err
	}
	release, err := st.HeavyRead(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		ok, err = buildOrder(ctx, st, tx, versionID, fields, string(want))
		return err
	})
	return ok, err
}

// storedOrder reads what feature_key_orders says of a version: found is
// false when its order was never built, ok whether it is usable by
// fields (JSON).
func storedOrder(ctx context.Context, st *store.Store, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, versionID int, fields string) (ok, found bool, err error) {
	var have, state string
	err = db.QueryRowContext(ctx, q(st, "SELECT fields, state FROM feature_key_orders WHERE version_id = ?"), versionID).Scan(&have, &state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, false, nil
	case err != nil:
		return false, false, fmt.Errorf("features: key order of version %d: %w", versionID, err)
	}
	return state == orderReady && have == fields, true, nil
}

// errNotKey stops a build at a row without a key or a repeated key.
var errNotKey = errors.New("features: not a key")

// buildOrder claims a version's key order on tx, then writes it from
// ScanKeys chunk by chunk and records it ready, or records it unusable
// (and keeps no chunk) when the fields are not a key of its rows. A
// claim already taken (the order was built meanwhile) answers what was
// recorded.
func buildOrder(ctx context.Context, st *store.Store, tx *sql.Tx, versionID int, fields []string, want string) (bool, error) {
	fail := func(err error) (bool, error) {
		return false, fmt.Errorf("features: building the key order of version %d: %w", versionID, err)
	}
	res, err := tx.ExecContext(ctx, q(st, "INSERT INTO feature_key_orders (version_id, fields, state, rows, updated_at) VALUES (?, ?, 'building', 0, ?) ON CONFLICT DO NOTHING"),
		versionID, want, time.Now().Unix())
	if err != nil {
		return fail(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return fail(err)
		}
		ok, _, err := storedOrder(ctx, st, tx, versionID, want)
		return ok, err
	}
	insert, err := tx.PrepareContext(ctx, q(st, "INSERT INTO feature_keys (version_id, seq, first, data) VALUES (?, ?, ?, ?)"))
	if err != nil {
		return fail(err)
	}
	defer insert.Close()
	var (
		chunk []orderRow
		prev  []byte
		seq   int
		total int64
		buf   []byte
	)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		buf = packChunk(buf[:0], chunk)
		if _, err := insert.ExecContext(ctx, versionID, seq, chunk[0].k, buf); err != nil {
			return err
		}
		seq++
		chunk = chunk[:0]
		return nil
	}
	err = ScanKeys(ctx, st, versionID, fields, func(batch []KeyRow) error {
		for _, r := range batch {
			if r.Key == nil {
				return errNotKey
			}
			k := encodeKey(r.Key)
			if prev != nil && slices.Equal(k, prev) {
				return errNotKey
			}
			chunk = append(chunk, orderRow{k: k, id: r.ID, sum: r.Sum})
			prev = k
			total++
			if len(chunk) == keyChunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	state := orderReady
	switch {
	case errors.Is(err, errNotKey):
		if _, err := tx.ExecContext(ctx, q(st, "DELETE FROM feature_keys WHERE version_id = ?"), versionID); err != nil {
			return fail(err)
		}
		state, total = orderUnusable, 0
	case err != nil:
		return fail(err)
	}
	_, err = tx.ExecContext(ctx, q(st, "UPDATE feature_key_orders SET state = ?, rows = ?, updated_at = ? WHERE version_id = ?"),
		state, total, time.Now().Unix(), versionID)
	if err != nil {
		return fail(err)
	}
	return state == orderReady, nil
}

// DecodeKey is a stored key as the texts of its fields.
func decodeKey(k []byte) []string {
	if len(k) == 0 {
		return nil
	}
	return strings.Split(string(k[:len(k)-1]), "\x00")
}

// encodeKey is a key as stored.
func encodeKey(key []string) []byte {
	var b []byte
	for _, s := range key {
		b = append(b, s...)
		b = append(b, 0)
	}
	return b
}

// deleteKeyOrder removes a version's key order on tx.
func deleteKeyOrder(ctx context.Context, st *store.Store, tx *sql.Tx, versionID int) error {
	for _, table := range []string{"feature_keys", "feature_key_orders"} {
		if _, err := tx.ExecContext(ctx, q(st, "DELETE FROM "+table+" WHERE version_id = ?"), versionID); err != nil {
			return fmt.Errorf("features: deleting the key order of version %d: %w", versionID, err)
		}
	}
	return nil
}
