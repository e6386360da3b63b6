package featurerows

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
	pgBatchBytes = 2 << 20
	pgBatchRows  = 50_000
)

// pgCopyColumns are the columns a COPY batch fills, in its order.
const pgCopyColumns = `(version_id, fid, geom, attrs, minx, miny, maxx, maxy, cell, sum)`

// copyHeader starts a binary COPY stream: signature, flags, extension size.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// pgBatcher encodes rows straight into PostgreSQL's binary COPY format and
// sends each batch with one COPY FROM STDIN on the transaction's
// connection, into the version's partition (partitions_pg.go): a new one
// is filled bare and attached when the batcher closes. Batches are
// double-buffered: a full batch is copied in the
// background while the next one fills, so the server's work (parsing,
// index updates) overlaps the caller's reading. The connection is held
// only while a batch is copied, so a caller that abandons the Writer and
// rolls back merely waits for that batch.
type pgBatcher struct {
	ctx       context.Context
	conn      *sql.Conn
	tx        *sql.Tx
	versionID int64
	copySQL   string // set by the first flush
	fresh     bool   // the partition is new: attach it on close
	buf       []byte
	rows      int
	spare     []byte     // the other buffer, free when inflight is nil
	inflight  chan error // result of the batch being copied, nil if none
}

func newPgBatcher(ctx context.Context, conn *sql.Conn, tx *sql.Tx, versionID int) *pgBatcher {
	p := &pgBatcher{ctx: ctx, conn: conn, tx: tx, versionID: int64(versionID)}
	p.reset()
	return p
}

func (p *pgBatcher) reset() {
	p.buf = append(p.buf[:0], copyHeader...)
	p.rows = 0
}

func (p *pgBatcher) add(r *Row, attrs []byte, box *[4]float64, sum int64) bool {
	b := p.buf
	b = binary.BigEndian.AppendUint16(b, 10)
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
		for range 5 {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
		}
	} else {
		for _, v := range box {
			b = binary.BigEndian.AppendUint32(b, 8)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		}
		b = appendInt8(b, cellKey(*box))
	}
	b = appendInt8(b, sum)
	p.buf = b
	p.rows++
	return len(p.buf) >= pgBatchBytes || p.rows >= pgBatchRows
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// flush hands the buffered batch to a background COPY, after the previous
// one has finished.
func (p *pgBatcher) flush(ctx context.Context) error {
	if p.rows == 0 {
		return nil
	}
	if err := p.wait(); err != nil {
		return err
	}
	if p.copySQL == "" {
		// The first batch: nothing is being copied, so the transaction
		// is free for the partition's statements.
		table, fresh, err := openPartition(ctx, p.tx, p.versionID)
		if err != nil {
			return err
		}
		p.copySQL, p.fresh = "COPY "+table+" "+pgCopyColumns+" FROM STDIN (FORMAT binary)", fresh
	}
	batch := binary.BigEndian.AppendUint16(p.buf, math.MaxUint16) // trailer: -1
	want := int64(p.rows)
	done := make(chan error, 1)
	p.inflight = done
	go func() { done <- p.copy(ctx, batch, want) }()
	p.buf, p.spare = p.spare, batch
	p.reset()
	return nil
}

// wait waits for the batch being copied, if any.
func (p *pgBatcher) wait() error {
	if p.inflight == nil {
		return nil
	}
	err := <-p.inflight
	p.inflight = nil
	return err
}

func (p *pgBatcher) copy(ctx context.Context, batch []byte, want int64) error {
	err := p.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the store's connection is %T, not pgx", dc)
		}
		tag, err := sc.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(batch), p.copySQL)
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
	return nil
}

// close waits for the last batch and attaches a new partition.
func (p *pgBatcher) close() error {
	err := p.wait()
	p.buf, p.spare = nil, nil
	if err == nil && p.fresh {
		p.fresh = false
		err = attachPartition(p.ctx, p.tx, p.versionID)
	}
	return err
}
