// Package datatable holds the rules of the data-table service: the
// attribute rows of a layer's or table's published version as a table
// (columns with their types), sorted by one or more fields, filtered by
// CQL2 or by simple field=value filters, narrowed to chosen fields, paged,
// counted, and written as CSV (RFC 4180, UTF-8) for the same view. Rows
// are read through ogcfeatures (its keyset reads and CQL2 evaluation);
// sorted and filtered views are matched once, sorted as WFS SORTBY sorts
// (wfsserver.CompareValues, then feature id), remembered as row
// positions, and paged by a bounded offset. Who may read a table is the
// data-table service rule (view on the layer by default) and the query
// token scope. The ogc package mounts the JSON and CSV door, web/htmlview
// the HTML table page.
package datatable

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// ServiceKey is the data service every request passes through.
const ServiceKey = "data-table"

// UIKey is the UI-visibility key of the table page: it follows
// ServiceKey's switch.
const UIKey = "data-table-ui"

// Scope is the token scope the service needs.
const Scope = auth.ScopeQuery

// Limits of a view.
const (
	// DefaultLimit and MaxLimit bound the rows of one page (a larger
	// limit is refused, not clamped: the page would not be what was
	// asked for).
	DefaultLimit = 50
	MaxLimit     = 1000
	// MaxOrdered bounds the rows a sorted or filtered view may match: it
	// is matched and sorted whole before a page is cut from it. Offsets
	// are therefore below it too.
	MaxOrdered = 100000
	// MaxCSVRows bounds the rows of a CSV download; a larger view is
	// refused before anything is written.
	MaxCSVRows = 100000
)

// ErrNotFound is a layer that does not exist, is not a published vector
// layer or table, or whose data table the caller may not use: callers
// cannot tell which.
var ErrNotFound = errors.New("datatable: no such table")

// Problem is a request the service refuses: a 400 with its message.
type Problem struct{ Message string }

func (p *Problem) Error() string { return p.Message }

func invalid(format string, args ...any) *Problem {
	return &Problem{Message: fmt.Sprintf(format, args...)}
}

// Service reads the tables.
type Service struct {
	f      *of.Service
	orders orderCache
}

// New returns the service over the features reader f.
func New(f *of.Service) *Service { return &Service{f: f} }

// Features is the reader the service reads through.
func (s *Service) Features() *of.Service { return s.f }

// Column is one attribute of a table.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Table is a published layer or table as the service shows it.
type Table struct {
	LayerID int
	// IsTable is set for tables (no geometry).
	IsTable   bool
	Title     string
	VersionID int
	Columns   []Column
	// GeometryType is the layer's geometry type, empty for tables.
	GeometryType string
	// Count is the number of rows of the version.
	Count int64
	c     *of.Collection
}

// Open returns layer id's table if v may use its data table: a
// published vector layer or table with the data-table service on and
// allowed to v. ErrNotFound otherwise.
func (s *Service) Open(ctx context.Context, v *access.Viewer, id int) (*Table, error) {
	for _, prefix := range []string{"layer-", "table-"} {
		c, err := s.f.CollectionFor(ctx, v, prefix+strconv.Itoa(id), ServiceKey)
		if err != nil {
			return nil, err
		}
		if c != nil {
			return newTable(c), nil
		}
	}
	return nil, ErrNotFound
}

func newTable(c *of.Collection) *Table {
	t := &Table{LayerID: c.LayerID, IsTable: c.Table, Title: c.Title, VersionID: c.VersionID, Count: c.FeatureCount, c: c}
	if !c.Table {
		t.GeometryType = c.GeometryType
	}
	for _, f := range c.Fields {
		t.Columns = append(t.Columns, Column{Name: f.Name, Type: f.Type})
	}
	return t
}

// column returns the column named name.
func (t *Table) column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}
