package features

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/stdlib"
)

// pgBatchBytes is the size of a COPY batch on PostgreSQL; pgBatchRows caps
// its rows. Variables so tests can exercise batch boundaries.
var (
	pgBatchBytes = 8 << 20
	pgBatchRows  = 50_000
)

const pgCopySQL = `COPY features (version_id, fid, geom, attrs, minx, miny, maxx, maxy) FROM STDIN (FORMAT binary)`

// copyHeader starts a binary COPY stream: signature, flags, extension size.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// pgBatcher encodes rows straight into PostgreSQL's binary COPY format and
// sends each batch with one COPY FROM STDIN on the transaction's
// connection.
type pgBatcher struct {
	conn      *sql.Conn
	versionID int64
	buf       []byte
	rows      int
}

func newPgBatcher(conn *sql.Conn, versionID int) *pgBatcher {
	p := &pgBatcher{conn: conn, versionID: int64(versionID)}
	p.reset()
	return p
}

func (p *pgBatcher) reset() {
	p.buf = append(p.buf[:0], copyHeader...)
	p.rows = 0
}

func (p *pgBatcher) add(r *Row, attrs []byte, box *[4]float64) bool {
	b := p.buf
	b = binary.BigEndian.AppendUint16(b, 8)
	b = appendInt8(b, p.versionID)
	b = appendInt8(b, r.FID)
	if r.Geom == nil {
		b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // -1: NULL
	} else {
		b = binary.BigEndian.AppendUint32(b, uint32(len(r.Geom)))
		b = append(b, r.Geom...)
	}
	if attrs == nil {
		b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
	} else {
		b = binary.BigEndian.AppendUint32(b, uint32(len(attrs)+1))
		b = append(b, 1) // jsonb binary format version
		b = append(b, attrs...)
	}
	if box == nil {
		for range 4 {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
		}
	} else {
		for _, v := range box {
			b = binary.BigEndian.AppendUint32(b, 8)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	p.buf = b
	p.rows++
	return len(p.buf) >= pgBatchBytes || p.rows >= pgBatchRows
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func (p *pgBatcher) flush(ctx context.Context) error {
	if p.rows == 0 {
		return nil
	}
	p.buf = binary.BigEndian.AppendUint16(p.buf, math.MaxUint16) // trailer: -1
	want := int64(p.rows)
	err := p.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the store's connection is %T, not pgx", dc)
		}
		tag, err := sc.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(p.buf), pgCopySQL)
		if err != nil {
			return err
		}
		if n := tag.RowsAffected(); n != want {
			return fmt.Errorf("copied %d rows of %d", n, want)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("features: copying rows: %w", err)
	}
	p.reset()
	return nil
}

func (p *pgBatcher) close() error {
	p.buf = nil
	return nil
}
