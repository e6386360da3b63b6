package catalogrecords

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrInvalid marks a query the caller got wrong (a foreign cursor, a bad
// sort): doors answer it as their standard's 400.
var ErrInvalid = errors.New("invalid catalogue records query")

// Sort is a record order; every order ends on the identifier, so paging
// is exact.
type Sort string

// The sorts: title A-Z and Z-A, modified oldest and newest first. The
// empty sort is the catalogue's own (relevance with Text, else most
// popular first).
const (
	SortDefault      Sort = ""
	SortTitle        Sort = "title"
	SortTitleDesc    Sort = "-title"
	SortModified     Sort = "modified"
	SortModifiedDesc Sort = "-modified"
)

// Query selects records. Everything but Filter is answered by the
// catalogue's index; Filter is evaluated on each candidate record.
type Query struct {
	// Text is free text, as /data/'s q (stemmed words, any of them).
	Text  string
	Types []Type
	// GroupIDs keeps the records these groups own (a catalogue view).
	GroupIDs []int
	// IDs restricts to these identifiers (unknown ones match nothing).
	IDs []string
	// BBox keeps records whose extent intersects [w, s, e, n] (EPSG:4326).
	BBox []float64
	// Modified restricts the modification time, either end open.
	ModifiedAfter, ModifiedBefore *time.Time
	// Filter, when set, keeps the records it returns true for (a CSW or
	// CQL2 constraint through Feature). Totals then need a scan.
	Filter func(*Record) bool
	Sort   Sort
	// Limit is the page size (default 10, at most MaxLimit); 0 records
	// with a total is Limit -1 (CSW's resultType=hits).
	Limit int
	// Offset skips that many matching records (CSW's startPosition - 1);
	// Cursor continues after a page (Records' next links). Not both.
	Offset int
	Cursor string
	// Origin is scheme://host for the records' links.
	Origin string
}

// MaxLimit is the largest page.
const MaxLimit = 1000

// Page is one page of records.
type Page struct {
	Records []Record
	// Matched is how many records the query matches in all.
	Matched int
	// Next continues after this page; "" on the last one.
	Next string
}

// Cursor is the position after a record in a scan: the index's cursor
// of that record's hit, and how many records matched up to it (so a
// filtered page's total needs no rescan of what came before).
type Cursor struct {
	Batch string `json:"b,omitempty"`
	Seen  int    `json:"n"`
	Sort  Sort   `json:"s,omitempty"`
}

// Encode makes c opaque for URLs.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor made by Encode for the same sort.
func DecodeCursor(s string, sort Sort) (Cursor, error) {
	var c Cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Seen < 0 {
		return c, fmt.Errorf("%w: the cursor is not one this service made", ErrInvalid)
	}
	if c.Sort != sort {
		return c, fmt.Errorf("%w: the cursor belongs to another sort order", ErrInvalid)
	}
	return c, nil
}

// Intersects reports whether r's extent meets box [w, s, e, n]. Records
// without an extent meet no box.
func (r *Record) Intersects(box []float64) bool {
	if len(r.BBox) != 4 || len(box) != 4 {
		return false
	}
	return r.BBox[0] <= box[2] && box[0] <= r.BBox[2] && r.BBox[1] <= box[3] && box[1] <= r.BBox[3]
}
