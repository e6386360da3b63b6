package featurerows

import (
	"encoding/binary"
	"errors"
)

// A stored key order is cut in chunks of consecutive rows, each packed as
// one value: per row, the length of the prefix its key shares with the
// previous row's key and the rest of the key (uvarints and bytes; keys
// in order share long prefixes), the row id (varint, as a difference
// from the previous row's) and the sum (8 bytes, big-endian).

// orderRow is a row of a stored key order: its key as stored (encodeKey),
// row id and sum.
type orderRow struct {
	k   []byte
	id  int64
	sum int64
}

// packChunk appends rows packed as one chunk to b.
func packChunk(b []byte, rows []orderRow) []byte {
	var prevK []byte
	var prevID int64
	for _, r := range rows {
		shared := 0
		for shared < len(prevK) && shared < len(r.k) && prevK[shared] == r.k[shared] {
			shared++
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(r.k)-shared))
		b = append(b, r.k[shared:]...)
		b = binary.AppendVarint(b, r.id-prevID)
		b = binary.BigEndian.AppendUint64(b, uint64(r.sum))
		prevK, prevID = r.k, r.id
	}
	return b
}

var errBadChunk = errors.New("features: a damaged key order chunk")

// unpackChunk appends the rows of a chunk to rows. Each row's key is its
// own slice.
func unpackChunk(rows []orderRow, b []byte) ([]orderRow, error) {
	var prevK []byte
	var prevID int64
	for len(b) > 0 {
		shared, n := binary.Uvarint(b)
		if n <= 0 || shared > uint64(len(prevK)) {
			return rows, errBadChunk
		}
		b = b[n:]
		rest, n := binary.Uvarint(b)
		if n <= 0 || rest > uint64(len(b)-n) {
			return rows, errBadChunk
		}
		b = b[n:]
		k := make([]byte, int(shared)+int(rest))
		copy(k, prevK[:shared])
		copy(k[shared:], b[:rest])
		b = b[rest:]
		d, n := binary.Varint(b)
		if n <= 0 || len(b)-n < 8 {
			return rows, errBadChunk
		}
		b = b[n:]
		r := orderRow{k: k, id: prevID + d, sum: int64(binary.BigEndian.Uint64(b))}
		b = b[8:]
		rows = append(rows, r)
		prevK, prevID = k, r.id
	}
	return rows, nil
}
