package featurerows

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/geopub/geopub/internal/batchstream"
	"github.com/geopub/geopub/internal/store"
)

// KeyChange is a key whose row differs between two versions: present in
// one only (the other's id is 0) or with different sums.
type KeyChange struct {
	Key      []string
	AID, BID int64
}

// ChangedKeys streams, in key order and in batches that are fn's to
// keep, the keys whose rows differ between two versions with stored key
// orders (KeyOrder), after the key after when it is not nil. The two
// orders are read at once, each on a goroutine of its own, and merged
// here.
func ChangedKeys(ctx context.Context, st *store.Store, aID, bID int, after []string, fn func([]KeyChange) error) error {
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
		ar, aok := as.Peek()
		br, bok := bs.Peek()
		if err := as.Err(); err != nil {
			return err
		}
		if err := bs.Err(); err != nil {
			return err
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
			as.Next()
		case c > 0:
			err = emit(KeyChange{Key: decodeKey(br.k), BID: br.id})
			bs.Next()
		default:
			if ar.sum != br.sum {
				err = emit(KeyChange{Key: decodeKey(ar.k), AID: ar.id, BID: br.id})
			}
			as.Next()
			bs.Next()
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

// readOrder streams a version's stored key order, from the chunk holding
// the first key after after (all of it when after is nil), skipping the
// rows up to after.
func readOrder(ctx context.Context, st *store.Store, versionID int, after []string) *batchstream.Stream[orderRow] {
	return batchstream.Start(ctx, func(send func([]orderRow) error) error {
		return sendOrder(ctx, st, versionID, after, send)
	})
}

func sendOrder(ctx context.Context, st *store.Store, versionID int, after []string, send func([]orderRow) error) error {
	fail := func(err error) error {
		return fmt.Errorf("features: reading the key order of version %d: %w", versionID, err)
	}
	var (
		from  int
		bound []byte
	)
	if after != nil {
		bound = encodeKey(after)
		err := st.DB.QueryRowContext(ctx, q(st, "SELECT coalesce(max(seq), 0) FROM feature_keys WHERE version_id = ? AND first <= ?"),
			versionID, bound).Scan(&from)
		if err != nil {
			return fail(err)
		}
	}
	rows, err := st.DB.QueryContext(ctx, q(st, "SELECT data FROM feature_keys WHERE version_id = ? AND seq >= ? ORDER BY seq"), versionID, from)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	var data []byte
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return fail(err)
		}
		chunk, err := unpackChunk(make([]orderRow, 0, keyChunk), data)
		if err != nil {
			return fail(err)
		}
		if bound != nil {
			n, _ := slices.BinarySearchFunc(chunk, bound, func(r orderRow, k []byte) int { return bytes.Compare(r.k, k) })
			if n < len(chunk) && bytes.Equal(chunk[n].k, bound) {
				n++
			}
			chunk = chunk[n:]
		}
		if len(chunk) == 0 {
			continue
		}
		if err := send(chunk); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return nil
}
