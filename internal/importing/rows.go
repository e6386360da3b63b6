package importing

import (
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/ingest"
)

// rowChunk is the size of the blocks RowEncoder carves rows' bytes from.
const rowChunk = 256 << 10

// RowEncoder makes feature rows of ingest records: attributes encoded
// straight from the records' values (featurerows.AttrsEncoder, no map
// per row), and each row's bytes its own, carved from large blocks, so a
// row may outlive its record (the import hands rows to another
// goroutine).
type RowEncoder struct {
	enc   *featurerows.AttrsEncoder
	chunk []byte
	rec   *ingest.Record // the record being encoded
}

// NewRowEncoder encodes records whose values are the fields names, of
// which dates and times are date and time fields (featurerows.DateFields,
// featurerows.TimeFields).
func NewRowEncoder(names []string, dates, times map[string]bool) *RowEncoder {
	return &RowEncoder{enc: featurerows.NewAttrsEncoder(names, dates, times)}
}

// Row is rec's row, with fid and geom (nil for none) in place of the
// record's own.
func (e *RowEncoder) Row(rec *ingest.Record, fid int64, geom []byte) featurerows.Row {
	if len(e.chunk) > rowChunk-rowChunk/8 {
		e.chunk = make([]byte, 0, rowChunk)
	}
	r := featurerows.Row{FID: fid}
	if geom != nil {
		start := len(e.chunk)
		e.chunk = append(e.chunk, geom...)
		r.Geom = e.chunk[start:len(e.chunk):len(e.chunk)]
	}
	start := len(e.chunk)
	e.rec = rec
	e.chunk = e.enc.Encode(e.chunk, e.value)
	r.Encoded = e.chunk[start:len(e.chunk):len(e.chunk)]
	return r
}

// value writes field i of the record being encoded.
func (e *RowEncoder) value(i int, w *featurerows.ValueWriter) {
	switch v := e.rec.Values[i]; v.Kind {
	case ingest.Bool:
		w.Bool(v.Int != 0)
	case ingest.Int:
		w.Int(v.Int)
	case ingest.Float:
		w.Float(v.Float)
	case ingest.Text:
		w.Text(v.Text)
	case ingest.Time:
		w.Time(v.Time)
	default:
		w.Null()
	}
}
