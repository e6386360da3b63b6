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

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store"
)

// A stored key order (tables feature_key_orders and feature_keys) is
// ScanKeys' answer kept for a version that no longer changes (published
// or superseded): one row per feature with its key, its row id and its
// sum, in the order of the key. Two versions' orders are walked side by
// side (ChangedKeys) without extracting and sorting the key from every
// row's attributes again, as PostGIS walks two primary key indexes.
//
// The key is stored as bytes: the text of each key field's value (as
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

// KeyOrder makes sure a version's key order by fields is stored,
// building it the first time, and reports whether it can be used: false
// when the fields are not a key of the version's rows, or when the
// version's order was built by other fields. The version's rows must not
// change any more and must all have a sum (FillSums). Two callers
// building the same version's order at once build it once: the second
// waits for the first on PostgreSQL (its claim of the version) and on
// SQLite (the write lock).
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
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		// Inside the write: another caller may have built it meanwhile.
		if ok, found, err = storedOrder(ctx, st, tx, versionID, string(want)); err != nil || found {
			return err
		}
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

// buildOrder claims a version's key order on tx, then writes it and
// records it ready, or unusable when the fields are not a key of its
// rows. A claim already taken (the version's order was built meanwhile)
// answers what was recorded: on PostgreSQL the claim waits for the
// transaction that took it.
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
	// A savepoint keeps the transaction usable on PostgreSQL when the
	// insert fails on a missing or repeated key.
	if _, err := tx.ExecContext(ctx, "SAVEPOINT key_order"); err != nil {
		return fail(err)
	}
	state, rows := orderReady, int64(0)
	query, args := orderInsert(st, versionID, fields)
	res, err = tx.ExecContext(ctx, q(st, query), args...)
	switch {
	case err != nil && !store.IsConstraintViolation(err):
		return fail(err)
	case err != nil:
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT key_order"); err != nil {
			return fail(err)
		}
		state = orderUnusable
	default:
		if rows, err = res.RowsAffected(); err != nil {
			return fail(err)
		}
	}
	_, err = tx.ExecContext(ctx, q(st, "UPDATE feature_key_orders SET state = ?, rows = ?, updated_at = ? WHERE version_id = ?"),
		state, rows, time.Now().Unix(), versionID)
	if err != nil {
		return fail(err)
	}
	return state == orderReady, nil
}

// orderInsert is the statement copying a version's keys into
// feature_keys, sorted so the index grows at its end, with its arguments.
// A row without a value of some field gets a NULL key, which the table
// refuses, as it refuses a key twice.
func orderInsert(st *store.Store, versionID int, fields []string) (string, []any) {
	parts := make([]string, 0, 2*len(fields))
	args := make([]any, 0, len(fields)+1)
	for _, f := range fields {
		expr, arg := keyText(st, f)
		args = append(args, arg)
		if st.Dialect == dialect.Postgres {
			parts = append(parts, "convert_to("+expr+", 'UTF8')", `'\x00'::bytea`)
			continue
		}
		parts = append(parts, expr, "x'00'")
	}
	k := strings.Join(parts, " || ")
	if st.Dialect != dialect.Postgres {
		k = "CAST(" + k + " AS BLOB)"
	}
	args = append(args, versionID)
	return "INSERT INTO feature_keys (version_id, k, id, sum) SELECT version_id, " + k +
		", id, coalesce(sum, 0) FROM features WHERE version_id = ? ORDER BY 2", args
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

// KeyChange is a key whose row differs between two versions: present in
// one only (the other's id is 0) or with different sums.
type KeyChange struct {
	Key      []string
	AID, BID int64
}

// ChangedKeys streams, in key order and in batches that are fn's to
// keep, the keys whose rows differ between two versions with stored key
// orders (KeyOrder), after the key after when it is not nil.
func ChangedKeys(ctx context.Context, st *store.Store, aID, bID int, after []string, fn func([]KeyChange) error) error {
	if st.Dialect == dialect.Postgres {
		return changedKeysJoin(ctx, st, aID, bID, after, fn)
	}
	return changedKeysMerge(ctx, st, aID, bID, after, fn)
}

// keyBounds is the condition on k after the key after, with its
// arguments.
func keyBounds(after []string) (string, []any) {
	if after == nil {
		return "", nil
	}
	return " AND k > ?", []any{encodeKey(after)}
}

// changedKeysJoin has PostgreSQL join the two orders, a merge join over
// the primary key's index, sending only the keys that differ.
func changedKeysJoin(ctx context.Context, st *store.Store, aID, bID int, after []string, fn func([]KeyChange) error) error {
	bound, bargs := keyBounds(after)
	query := "SELECT coalesce(a.k, b.k), coalesce(a.id, 0), coalesce(b.id, 0)" +
		" FROM (SELECT k, id, sum FROM feature_keys WHERE version_id = ?" + bound + ") a" +
		" FULL JOIN (SELECT k, id, sum FROM feature_keys WHERE version_id = ?" + bound + ") b ON a.k = b.k" +
		" WHERE a.k IS NULL OR b.k IS NULL OR a.sum <> b.sum ORDER BY 1"
	args := append(append(append([]any{aID}, bargs...), bID), bargs...)
	tx, err := st.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("features: comparing versions %d and %d: %w", aID, bID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	// Without statistics of the new rows the planner may hash a million
	// keys; the index already gives both sides in order.
	if _, err := tx.ExecContext(ctx, "SET LOCAL enable_hashjoin = off"); err != nil {
		return fmt.Errorf("features: comparing versions %d and %d: %w", aID, bID, err)
	}
	rows, err := tx.QueryContext(ctx, q(st, query), args...)
	if err != nil {
		return fmt.Errorf("features: comparing versions %d and %d: %w", aID, bID, err)
	}
	defer rows.Close()
	batch := make([]KeyChange, 0, keyBatch)
	for rows.Next() {
		var (
			k []byte
			c KeyChange
		)
		if err := rows.Scan(&k, &c.AID, &c.BID); err != nil {
			return fmt.Errorf("features: comparing versions %d and %d: %w", aID, bID, err)
		}
		c.Key = decodeKey(k)
		if batch = append(batch, c); len(batch) == keyBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = make([]KeyChange, 0, keyBatch)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("features: comparing versions %d and %d: %w", aID, bID, err)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// orderRow is a row of a stored key order.
type orderRow struct {
	k   []byte
	id  int64
	sum int64
}

// changedKeysMerge reads the two orders at once, each on a goroutine of
// its own (SQLite runs in this process: two cores read), and merges
// them here.
func changedKeysMerge(ctx context.Context, st *store.Store, aID, bID int, after []string, fn func([]KeyChange) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	as, bs := readOrder(ctx, st, aID, after), readOrder(ctx, st, bID, after)
	batch := make([]KeyChange, 0, keyBatch)
	emit := func(c KeyChange) error {
		if batch = append(batch, c); len(batch) == keyBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = make([]KeyChange, 0, keyBatch)
		}
		return nil
	}
	for {
		ar, aok := as.peek()
		br, bok := bs.peek()
		if as.err != nil {
			return as.err
		}
		if bs.err != nil {
			return bs.err
		}
		var err error
		switch c := compareOrder(ar, aok, br, bok); {
		case !aok && !bok:
			if len(batch) > 0 {
				return fn(batch)
			}
			return nil
		case c < 0:
			err = emit(KeyChange{Key: decodeKey(ar.k), AID: ar.id})
			as.next()
		case c > 0:
			err = emit(KeyChange{Key: decodeKey(br.k), BID: br.id})
			bs.next()
		default:
			if ar.sum != br.sum {
				err = emit(KeyChange{Key: decodeKey(ar.k), AID: ar.id, BID: br.id})
			}
			as.next()
			bs.next()
		}
		if err != nil {
			return err
		}
	}
}

// compareOrder orders the heads of two orders, an ended one last.
func compareOrder(a orderRow, aok bool, b orderRow, bok bool) int {
	switch {
	case !aok:
		return 1
	case !bok:
		return -1
	}
	return slices.Compare(a.k, b.k)
}

// orderStream is a stored key order read on its own goroutine.
type orderStream struct {
	ch   chan []orderRow
	done chan error
	buf  []orderRow
	end  bool
	err  error
}

func readOrder(ctx context.Context, st *store.Store, versionID int, after []string) *orderStream {
	s := &orderStream{ch: make(chan []orderRow, 4), done: make(chan error, 1)}
	bound, bargs := keyBounds(after)
	go func() {
		defer close(s.ch)
		rows, err := st.DB.QueryContext(ctx, q(st, "SELECT k, id, sum FROM feature_keys WHERE version_id = ?"+bound+" ORDER BY k"),
			append([]any{versionID}, bargs...)...)
		if err != nil {
			s.done <- fmt.Errorf("features: reading the key order of version %d: %w", versionID, err)
			return
		}
		defer rows.Close()
		batch := make([]orderRow, 0, keyBatch)
		for rows.Next() {
			var r orderRow
			if err := rows.Scan(&r.k, &r.id, &r.sum); err != nil {
				s.done <- fmt.Errorf("features: reading the key order of version %d: %w", versionID, err)
				return
			}
			if batch = append(batch, r); len(batch) == keyBatch {
				select {
				case s.ch <- batch:
				case <-ctx.Done():
					s.done <- ctx.Err()
					return
				}
				batch = make([]orderRow, 0, keyBatch)
			}
		}
		if err := rows.Err(); err != nil {
			s.done <- fmt.Errorf("features: reading the key order of version %d: %w", versionID, err)
			return
		}
		if len(batch) > 0 {
			select {
			case s.ch <- batch:
			case <-ctx.Done():
				s.done <- ctx.Err()
				return
			}
		}
		s.done <- nil
	}()
	return s
}

// peek returns the next row without taking it; ok is false at the end
// or on an error, which err then holds.
func (s *orderStream) peek() (orderRow, bool) {
	for len(s.buf) == 0 {
		if s.end {
			return orderRow{}, false
		}
		b, ok := <-s.ch
		if !ok {
			s.end = true
			s.err = <-s.done
			continue
		}
		s.buf = b
	}
	return s.buf[0], true
}

func (s *orderStream) next() { s.buf = s.buf[1:] }
