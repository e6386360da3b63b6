package featurerows

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/internal/store"
)

// readRawPG streams a version's rows with one COPY ... TO STDOUT in
// PostgreSQL's binary format, the mirror of how they were written
// (copy_pg.go): the server sends each row as one message with no
// per-column description or text conversion but the jsonb's, and rows are
// decoded in place, without database/sql's copies. A callback error ends
// the copy by closing its connection (the pool replaces it).
func readRawPG(ctx context.Context, st *store.Store, versionID int, fn func(*RawRow) error) error {
	conn, err := st.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	defer conn.Close()
	// The id is an integer: COPY takes no parameters.
	query := "COPY (SELECT fid, geom, attrs, minx, miny, maxx, maxy FROM features WHERE version_id = " +
		strconv.Itoa(versionID) + " ORDER BY fid, id) TO STDOUT (FORMAT binary)"
	dec := &copyRowDecoder{fn: fn}
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the store's connection is %T, not pgx", dc)
		}
		_, err := sc.Conn().PgConn().CopyTo(ctx, dec, query)
		return err
	})
	if dec.err != nil {
		return dec.err // the callback's own error, as is
	}
	if err == nil && len(dec.pending) > 0 {
		err = errors.New("the copy stream ended inside a row")
	}
	if err != nil {
		return fmt.Errorf("features: reading version %d: %w", versionID, err)
	}
	return nil
}

// copyRowDecoder is the io.Writer CopyTo feeds: it decodes the binary COPY
// stream of (fid, geom, attrs, minx, miny, maxx, maxy) rows and hands each
// to fn. The server sends whole rows per message, so pending (a row split
// across writes) stays empty in practice; it is kept for correctness.
type copyRowDecoder struct {
	fn      func(*RawRow) error
	header  bool
	pending []byte
	row     RawRow
	err     error // fn's error
}

// errCopyStream marks a malformed stream.
var errCopyStream = errors.New("malformed binary COPY stream")

func (d *copyRowDecoder) Write(p []byte) (int, error) {
	n := len(p)
	if len(d.pending) > 0 {
		d.pending = append(d.pending, p...)
		p = d.pending
	}
	used, err := d.decode(p)
	if err != nil {
		return 0, err
	}
	rest := p[used:]
	if len(d.pending) > 0 {
		d.pending = append(d.pending[:0], rest...)
	} else if len(rest) > 0 {
		d.pending = append([]byte(nil), rest...)
	}
	return n, nil
}

// decode consumes the complete rows at the start of p and returns how
// many bytes they took.
func (d *copyRowDecoder) decode(p []byte) (int, error) {
	off := 0
	if !d.header {
		const sigLen = len("PGCOPY\n\xff\r\n\x00")
		if len(p) < sigLen+8 {
			return 0, nil
		}
		if !bytes.Equal(p[:sigLen], copyHeader[:sigLen]) {
			return 0, errCopyStream
		}
		ext := int(binary.BigEndian.Uint32(p[sigLen+4:]))
		if len(p) < sigLen+8+ext {
			return 0, nil
		}
		off = sigLen + 8 + ext
		d.header = true
	}
	var cols [7][]byte
	for {
		if len(p)-off < 2 {
			return off, nil
		}
		count := int16(binary.BigEndian.Uint16(p[off:]))
		if count == -1 { // trailer
			return len(p), nil
		}
		if count != int16(len(cols)) {
			return 0, errCopyStream
		}
		at := off + 2
		complete := true
		for i := range cols {
			if len(p)-at < 4 {
				complete = false
				break
			}
			size := int32(binary.BigEndian.Uint32(p[at:]))
			at += 4
			if size < 0 {
				cols[i] = nil
				continue
			}
			if len(p)-at < int(size) {
				complete = false
				break
			}
			cols[i] = p[at : at+int(size) : at+int(size)]
			at += int(size)
		}
		if !complete {
			return off, nil
		}
		if err := d.emit(&cols); err != nil {
			return 0, err
		}
		off = at
	}
}

// emit decodes one row's columns (binary int8, bytea, jsonb, float8s)
// and calls fn.
func (d *copyRowDecoder) emit(cols *[7][]byte) error {
	r := &d.row
	if len(cols[0]) != 8 {
		return errCopyStream
	}
	r.FID = int64(binary.BigEndian.Uint64(cols[0]))
	r.Geom = cols[1]
	r.Attrs = nil
	if a := cols[2]; a != nil {
		if len(a) == 0 || a[0] != 1 { // jsonb's binary form: version 1, then the text
			return errCopyStream
		}
		r.Attrs = a[1:]
	}
	r.HasBox = true
	for i := range r.Box {
		c := cols[3+i]
		if len(c) != 8 {
			r.HasBox, r.Box[i] = false, 0
			continue
		}
		r.Box[i] = math.Float64frombits(binary.BigEndian.Uint64(c))
	}
	if err := d.fn(r); err != nil {
		d.err = err
		return err
	}
	return nil
}
