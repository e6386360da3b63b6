package cswserver

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cql2"
)

// Source answers the catalogue's records as the caller in ctx may see
// them (the resolver's CatalogRecords and CatalogRecord).
type Source interface {
	// Records answers q; a mistake in q wraps catalogrecords.ErrInvalid.
	Records(ctx context.Context, q catalogrecords.Query) (*catalogrecords.Page, error)
	// Record is one record with its links under origin, nil when there
	// is none the caller may see.
	Record(ctx context.Context, identifier, origin string) (*catalogrecords.Record, error)
}

// Call is one request to answer.
type Call struct {
	Request *Request
	// Endpoint is the URL the capabilities give for GET and POST.
	Endpoint string
	// Origin is scheme://host for the records' links.
	Origin string
	// Only restricts the service to one record (the per-dataset
	// endpoint), "" for the whole catalogue.
	Only string
	// Title names the service in the capabilities.
	Title string
}

// ContentType is the media type of every answer.
const ContentType = "application/xml; charset=utf-8"

// Serve answers c from src. Errors are *Exception for the client's
// mistakes; others are the service's.
func Serve(ctx context.Context, src Source, c Call) ([]byte, error) {
	switch c.Request.Operation {
	case OpGetCapabilities:
		return capabilities(c), nil
	case OpDescribeRecord:
		return describeRecord(c)
	case OpGetRecords:
		return getRecords(ctx, src, c)
	case OpGetRecordByID:
		return getRecordByID(ctx, src, c)
	case OpGetDomain:
		return getDomain(ctx, src, c)
	}
	return nil, &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: "request",
		Text: "the operation is not supported"}
}

// served reports whether r is answered through CSW: its csw service is
// on (layers, sets and catalog items have one; tables and documents,
// which have none, are listed as the catalogue lists them). Services
// are filled on a page's records only, after the catalogue's filter, so
// GetRecords cannot ask it; the csw service cannot be switched off
// (internal/dataservices), so the two agree: GetRecordById checks it on
// the record it answers.
func served(r *catalogrecords.Record) bool {
	switch r.Type {
	case catalogrecords.Table, catalogrecords.Document:
		return true
	}
	return slices.Contains(r.Services, "csw")
}

// constraint is the request's constraint as an expression, nil for none.
func (r *Request) constraint() (cql2.Expr, error) {
	switch {
	case r.filter != nil:
		return filterExpr(r.filter)
	case r.Constraint == "":
		return nil, nil
	case r.Lang == LangCQL:
		return parseCQL(r.Constraint)
	}
	return parseFilterText(r.Constraint)
}

// sourceError turns a query mistake into an exception.
func sourceError(err error) error {
	if errors.Is(err, catalogrecords.ErrInvalid) {
		return invalid("request", "%s", err.Error())
	}
	return err
}
