package featurerows

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Row is one feature of a layer version.
type Row struct {
	// FID is the feature's id in its datasource.
	FID int64
	// Geom is ISO WKB in EPSG:4326, nil without geometry.
	Geom []byte
	// Attrs maps field names to values. Written: string, int64, float64,
	// bool, time.Time, nil, and nested map[string]any and []any of them.
	// Read back: integral numbers as int64, other numbers as float64, times
	// as RFC 3339 strings. A nil map is stored as NULL and read back nil.
	Attrs map[string]any
	// Encoded, when not nil, is the attributes already encoded by an
	// AttrsEncoder, written in place of Attrs. The Writer copies it.
	Encoded []byte
}

// Writer streams rows of one layer version into the features table inside
// the caller's transaction. Rows are buffered and written in large
// batches; nothing is visible to others until the transaction commits, and
// a rollback discards everything written. A Writer is not safe for
// concurrent use.
type Writer struct {
	ctx       context.Context
	versionID int
	count     int64
	closed    bool
	err       error
	b         batcher
	scratch   []byte // attributes JSON of the row being written
}

// batcher is the dialect-specific part of a Writer.
type batcher interface {
	// add buffers a row whose attributes are already JSON (nil for NULL),
	// with its box and content sum, and reports whether the buffer is due
	// for a flush.
	add(r *Row, attrs []byte, box *[4]float64, sum int64) bool
	flush(ctx context.Context) error
	close() error
}

// NewWriter starts writing rows of versionID on tx, a transaction of
// st.InTx (on PostgreSQL the rows are copied over the transaction's own
// connection). Close the writer before the transaction ends.
func NewWriter(ctx context.Context, st *store.Store, tx *sql.Tx, versionID int) (*Writer, error) {
	w := &Writer{ctx: ctx, versionID: versionID}
	switch st.Dialect {
	case dialect.Postgres:
		conn := st.TxConn(tx)
		if conn == nil {
			return nil, errors.New("features: the transaction is not an open store.InTx transaction")
		}
		w.b = newPgBatcher(ctx, conn, tx, versionID)
	case dialect.SQLite:
		w.b = newSQLiteBatcher(tx, versionID)
	default:
		return nil, fmt.Errorf("features: unsupported dialect %q", st.Dialect)
	}
	return w, nil
}

// Write buffers a row, flushing a batch when the buffer is full. The row's
// bounding box is computed from its WKB; a geometry that is not valid WKB
// is an error. After an error the Writer refuses further rows.
func (w *Writer) Write(r Row) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("features: write on a closed Writer")
	}
	if len(r.Geom) == 0 {
		r.Geom = nil
	}
	var box *[4]float64
	if r.Geom != nil {
		b, ok, err := Envelope(r.Geom)
		if err != nil {
			return fmt.Errorf("features: FID %d: %w", r.FID, err)
		}
		if ok {
			box = &b
		}
	}
	attrs := r.Encoded
	if attrs == nil && r.Attrs != nil {
		var err error
		if attrs, err = appendAttrs(w.scratch[:0], r.Attrs); err != nil {
			return fmt.Errorf("features: FID %d: encoding attributes: %w", r.FID, err)
		}
		w.scratch = attrs
	}
	due := w.b.add(&r, attrs, box, Sum(r.Geom, attrs))
	w.count++
	if due {
		if err := w.b.flush(w.ctx); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// Close flushes the remaining rows and returns how many rows the Writer
// wrote.
func (w *Writer) Close() (int64, error) {
	if w.closed {
		return w.count, w.err
	}
	w.closed = true
	if w.err == nil {
		if err := w.b.flush(w.ctx); err != nil {
			w.err = err
		}
	}
	if err := w.b.close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.count, w.err
}
