package datatable

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

// CSVWriter writes a view as CSV (RFC 4180: CRLF line ends, fields
// quoted where needed; UTF-8): a header row, then one row per feature.
// The first column is the feature id ("fid", or "_fid" when a field is
// named fid), then the view's fields, then "WKT" when the geometry was
// asked for (GDAL's CSV driver reads that column as the geometry).
type CSVWriter struct {
	w *csv.Writer
	q Query
}

// NewCSVWriter writes q's header to w.
func NewCSVWriter(w io.Writer, q Query) (*CSVWriter, error) {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	fid := "fid"
	if slices.Contains(q.Fields, fid) {
		fid = "_fid"
	}
	head := append([]string{fid}, q.Fields...)
	if q.WKT {
		head = append(head, "WKT")
	}
	if err := cw.Write(head); err != nil {
		return nil, err
	}
	return &CSVWriter{w: cw, q: q}, nil
}

// Write adds one row.
func (c *CSVWriter) Write(r Row) error {
	rec := make([]string, 0, len(r.Values)+2)
	rec = append(rec, strconv.FormatInt(r.FID, 10))
	for _, v := range r.Values {
		rec = append(rec, CellText(v))
	}
	if c.q.WKT {
		rec = append(rec, r.WKT)
	}
	return c.w.Write(rec)
}

// Flush writes what is buffered, returning the first write error.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// CellText is a value as a CSV cell: a string as it is, null as an empty
// cell, numbers and booleans as JSON writes them, objects and arrays as
// JSON.
func CellText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}
